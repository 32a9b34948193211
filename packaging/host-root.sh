#!/usr/bin/env bash
# A minimal Debian root tree of the host's release and architecture (here bookworm amd64), for
# installing the host .deb with apt as on a fresh system: `mmdebstrap --variant=apt` (Essential
# plus apt), native, no emulation, apt sources from the host's mirror (tools/lib/roottree.sh
# debian_mirror: read at run time, never written into the repo). Cached as a tarball under
# $GRANDSTAND_CACHE/packaging/, keyed by its inputs (the mmdebstrap arguments: suite, architecture, variant, sources);
# a new key replaces the old tarballs. Prints the tarball's path. Needs root.
# usage: host-root.sh
set -euo pipefail
pkg_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tools/lib/roottree.sh
. "$pkg_dir/../tools/lib/roottree.sh"   # debian_mirror, log, die, indent, KEYRING
LOG_TAG=packaging
suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
arch=$(dpkg --print-architecture)
[ -n "$suite" ] || die "no VERSION_CODENAME in /etc/os-release"
mirror=$(debian_mirror "$suite")
cache=${GRANDSTAND_CACHE:-$REPO_DIR/.cache}/packaging
# The point releases' updates too: the host's libraries (the Depends' versions) may come from them.
args=(--mode=root --variant=apt --format=tar --arch="$arch" "$suite" TARGET
      "deb [signed-by=$KEYRING] $mirror $suite main" "deb [signed-by=$KEYRING] $mirror $suite-updates main")
key=$(printf '%s\n' "${args[@]}" | sha256sum | cut -c1-16)
tarball=$cache/root-$suite-$arch-$key.tar
mkdir -p "$cache"
exec 9>"$cache/root-$suite-$arch.lock"
flock 9
if [ ! -s "$tarball" ]; then
    log "mmdebstrap --variant=apt $suite $arch (once per inputs: $tarball)"
    start=$(date +%s)
    partial=$cache/partial-$suite-$arch-$key.tar
    # mmdebstrap's own temporary tree: not under /tmp (files there have vanished mid-run here).
    TMPDIR=${TMPDIR:-/var/tmp} mmdebstrap "${args[@]/#TARGET/$partial}" 2>&1 | indent
    mv "$partial" "$tarball"
    find "$cache" -maxdepth 1 -name "root-$suite-$arch-*.tar" ! -path "$tarball" -delete
    log "root tree $suite $arch: $(( $(date +%s) - start )) s, $(stat -c %s "$tarball") bytes"
fi
echo "$tarball"
