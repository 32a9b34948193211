#!/usr/bin/env bash
# grandstand_tryboot.ko (README.md here) for Debian's arm64 kernel KVER, called by the rpi4 image
# build (board/rpi4/layout.sh: layout_tree). Built in a throwaway Debian trixie arm64 chroot
# (mmdebstrap of gcc, make and linux-headers-KVER from the image's mirror and suite, configured
# and compiled under qemu-user: tools/lib/roottree.sh), `make -C /usr/src/linux-headers-KVER
# M=... modules`, debug info stripped as Debian strips its own modules, then checked with
# `depmod -e` against the headers' Module.symvers (every symbol exported by the kernel, same CRC).
# The chroot is deleted; only the .ko and that Module.symvers leave it, cached in
# $GRANDSTAND_CACHE/image/ (tryboot-KVER-HASH.ko, .symvers: tools/image/check-rpi4.sh reads it)
# by KVER and a hash of this folder's sources, so an image rebuild copies the .ko.
# usage: build.sh KVER OUT.ko     (root: mmdebstrap --mode=root, chroot, binfmt_misc)
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 KVER OUT.ko" >&2; exit 2; }
kver=$1 out=$2
MODULE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tools/lib/roottree.sh
. "$MODULE_DIR/../../../tools/lib/roottree.sh"   # log, die, mmdebstrap_arm64, binfmt_require (REPO_DIR too)
LOG_TAG=tryboot-module
[[ $kver =~ ^[0-9][A-Za-z0-9.+~-]*-arm64$ ]] || die "not a Debian arm64 kernel release: '$kver'"
[ "$(id -u)" -eq 0 ] || die "building the module needs root (mmdebstrap --mode=root, chroot)"
cache=${GRANDSTAND_CACHE:-$REPO_DIR/.cache}/image
key=$({ echo "$TARGET_SUITE $kver"; cat "$MODULE_DIR/Kbuild" "$MODULE_DIR/grandstand_tryboot.c" "$MODULE_DIR/build.sh"; } |
    sha256sum | cut -c1-16)
ko=$cache/tryboot-$kver-$key.ko
mkdir -p "$cache"
exec 6>"$cache/tryboot-module.lock"
flock 6
if [ ! -e "$ko" ]; then
    # Older builds of the module (other kernels, other sources) go.
    find "$cache" -maxdepth 1 \( -name 'tryboot-*.ko' -o -name 'tryboot-*.symvers' \) -delete
    build=$(mktemp -d "$cache/tryboot-build.XXXXXX")
    SECONDS=0
    binfmt_require
    trap 'binfmt_cleanup; rm -rf "$build"' EXIT
    mkdir "$build/tree" "$build/out"
    # shellcheck disable=SC2016 # $1 (the tree) expands in mmdebstrap's hook shell
    hook='set -e
        mkdir "$1/tmp/gs-tryboot"
        cp "'"$MODULE_DIR"'/Kbuild" "'"$MODULE_DIR"'/grandstand_tryboot.c" "$1/tmp/gs-tryboot/"
        chroot "$1" make -s -C /usr/src/linux-headers-'"$kver"' M=/tmp/gs-tryboot modules
        chroot "$1" strip --strip-debug /tmp/gs-tryboot/grandstand_tryboot.ko
        cp "$1/tmp/gs-tryboot/grandstand_tryboot.ko" "$1/usr/src/linux-headers-'"$kver"'/Module.symvers" "'"$build/out"'/"'
    log "mmdebstrap: $TARGET_SUITE arm64 chroot with linux-headers-$kver, then make modules"
    mmdebstrap_arm64 "$build/tree" "$TARGET_SUITE" main "gcc make linux-headers-$kver" "$SLOW_HELPERS" \
        --aptopt='APT::Install-Recommends "false"' --customize-hook="$hook"
    [ -s "$build/out/grandstand_tryboot.ko" ] || die "the module build left no grandstand_tryboot.ko"
    # Every symbol it needs exported by the kernel with the same CRC (Debian's Module.symvers).
    mkdir -p "$build/base/lib/modules/$kver/updates"
    cp "$build/out/grandstand_tryboot.ko" "$build/base/lib/modules/$kver/updates/"
    touch "$build/base/lib/modules/$kver/modules.order" "$build/base/lib/modules/$kver/modules.builtin"
    unresolved=$(depmod -n -e -E "$build/out/Module.symvers" -b "$build/base" "$kver" 2>&1 >/dev/null)
    [ -z "$unresolved" ] || die "depmod -e against linux-headers-$kver's Module.symvers: $unresolved"
    cp "$build/out/Module.symvers" "${ko%.ko}.symvers"
    cp "$build/out/grandstand_tryboot.ko" "$ko.new"
    mv "$ko.new" "$ko"
    log "grandstand_tryboot.ko for $kver built in $SECONDS s (sha256 $(sha256sum "$ko" | cut -c1-16))"
fi
cp "$ko" "$out"
chmod 0644 "$out"
