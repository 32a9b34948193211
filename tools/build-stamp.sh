#!/bin/sh
# Writes the build stamp header (version from VERSION, commit from git) only when it changes,
# so an unchanged tree does not rebuild.
set -eu
cd "$(dirname "$0")/.."
out=Sources/CLibraries/CGSBuildStamp/include/generated/build_stamp.h
version=$(cat VERSION)
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
if [ "$commit" != unknown ] && [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
    commit="$commit-dirty"
fi
new=$(printf '#define GS_BUILD_VERSION "%s"\n#define GS_BUILD_COMMIT "%s"\n' "$version" "$commit")
mkdir -p "$(dirname "$out")"
[ -f "$out" ] && [ "$(cat "$out")" = "$new" ] && exit 0
printf '%s\n' "$new" > "$out"
