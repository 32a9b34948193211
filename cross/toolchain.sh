#!/usr/bin/env bash
# Assembles (or confirms up to date) the arm64 cross toolchain from Debian packages:
# stage 1 the trixie amd64 build root, stage 2 the arm64 sysroot and Swift SDK bundle.
# Each stage has a stamp (hash of its script and package list); a matching stamp skips it.
# shellcheck source=cross/lib.sh
source "$(dirname "$0")/lib.sh"
require_root "$@"
mkdir -p "$CROSS_CACHE"
exec 9> "$CACHE/.cross.lock"
flock 9   # one assembler at a time (parallel make, several worktrees sharing a cache)
t0=$SECONDS
"$CROSS_DIR/make-root.sh"
"$CROSS_DIR/make-sysroot.sh"
# Every pkg-config module Package.swift names must resolve in the sysroot (checked on every run:
# a new system library needs its -dev in cross/packages/arm64.txt).
read -r -a pcs <<< "$(grep -o 'pkgConfig: "[^"]*"' "$PROJECT/Package.swift" | cut -d'"' -f2 | tr '\n' ' ')"
if [ "${#pcs[@]}" -gt 0 ]; then
    # shellcheck disable=SC2046
    in_root $(pkg_config_env) pkg-config --exists --print-errors "${pcs[@]}" ||
        die "pkg-config modules of Package.swift missing from the arm64 sysroot; add their -dev to cross/packages/arm64.txt"
fi
[ $((SECONDS - t0)) -lt 2 ] || log "toolchain assembled in $((SECONDS - t0)) s (cache: $CROSS_CACHE, $(du -sh "$CROSS_CACHE" | cut -f1))"
