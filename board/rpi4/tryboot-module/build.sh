#!/usr/bin/env bash
# grandstand_tryboot.ko (README.md here) for Debian's arm64 kernel KVER, called by the rpi4 image
# build (board/rpi4/layout.sh: layout_tree). Cross-compiled on the amd64 host, nothing emulated:
# a throwaway Debian trixie amd64 tree (mmdebstrap --variant=apt from the image's mirror and
# suite, arm64 added as a foreign architecture only so that apt fetches the arm64 headers) with
# make and the amd64 linux-kbuild of the kernel's version (kbuild's host programs: fixdep,
# modpost, genksyms, resolve_btfids, and pahole by its Depends); linux-headers-KVER (arm64) and
# its -common (all) are unpacked into it with dpkg-deb -x (not installed: their Depends want the
# arm64 gcc and linux-kbuild, and the headers' scripts/ and tools/ symlinks point into the amd64
# linux-kbuild); then the cross compiler of the kernel's own gcc version (CONFIG_GCC_VERSION of the
# headers' .config: gcc-14-aarch64-linux-gnu on trixie; the headers' .kernelvariables call it as
# aarch64-linux-gnu-gcc-14, the native build used that name too). `make -C
# /usr/src/linux-headers-KVER M=/tmp/gs-tryboot ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
# modules` (BTF from the headers' BTF-only vmlinux, as natively), debug info stripped as Debian
# strips its own modules (aarch64-linux-gnu-strip --strip-debug), then checked with `depmod -e`
# against the headers' Module.symvers (every symbol exported by the kernel, same CRC). Same
# compiler, binutils, pahole and path as the native build, so the same bytes (the path is in the
# DWARF, hence in the build id, even after stripping). The tree is deleted; only the .ko and that
# Module.symvers leave it, cached in $GRANDSTAND_CACHE/image/ (tryboot-KVER-HASH.ko, .symvers:
# tools/image/check-rpi4.sh reads it) by KVER, the build method and a hash of this folder's
# sources, so an image rebuild copies the .ko. Anything the cross build cannot have (a host that is
# not amd64, headers and kbuild of different versions, a kernel built by a gcc version the suite
# has no cross compiler for) stops it with the reason: there is no fallback.
# usage: build.sh KVER OUT.ko     (root: mmdebstrap --mode=root, chroot)
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 KVER OUT.ko" >&2; exit 2; }
kver=$1 out=$2
MODULE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tools/lib/roottree.sh
. "$MODULE_DIR/../../../tools/lib/roottree.sh"   # log, die, debian_mirror, root_ns, DPKG_EXCLUDES (REPO_DIR too)
LOG_TAG=tryboot-module
[[ $kver =~ ^[0-9][A-Za-z0-9.+~-]*-arm64$ ]] || die "not a Debian arm64 kernel release: '$kver'"
[ "$(id -u)" -eq 0 ] || die "building the module needs root (mmdebstrap --mode=root, chroot)"
# The method is part of the key: a .ko built another way (the old arm64 chroot) is built again.
method=cross-amd64
cache=${GRANDSTAND_CACHE:-$REPO_DIR/.cache}/image
key=$({ echo "$TARGET_SUITE $kver $method"; cat "$MODULE_DIR/Kbuild" "$MODULE_DIR/grandstand_tryboot.c" "$MODULE_DIR/build.sh"; } |
    sha256sum | cut -c1-16)
ko=$cache/tryboot-$kver-$key.ko
mkdir -p "$cache"
exec 6>"$cache/tryboot-module.lock"
flock 6
if [ ! -e "$ko" ]; then
    # The tree runs the host's own programs (chroot, no binfmt_misc): amd64, linux-kbuild's arch.
    host_arch=$(dpkg --print-architecture)
    [ "$host_arch" = amd64 ] ||
        die "the module is cross-compiled in an amd64 tree (amd64 linux-kbuild, gcc-N-aarch64-linux-gnu): this host is $host_arch"
    # Older builds of the module (other kernels, other sources, other methods) go.
    find "$cache" -maxdepth 1 \( -name 'tryboot-*.ko' -o -name 'tryboot-*.symvers' \) -delete
    build=$(mktemp -d "$cache/tryboot-build.XXXXXX")
    SECONDS=0
    trap 'rm -rf "$build"' EXIT
    mkdir "$build/tree" "$build/out"
    kabi=${kver%-arm64}   # 6.12.117+deb13: linux-kbuild-KABI, linux-headers-KABI-common
    headers=/usr/src/linux-headers-$kver
    mirror=$(debian_mirror "$TARGET_SUITE")
    opts=(--dpkgopt=force-unsafe-io)
    for o in "${DPKG_EXCLUDES[@]}"; do opts+=("--dpkgopt=$o"); done
    # In the tree, with apt's lists still there: the arm64 headers fetched and unpacked, their
    # version noted, and the cross compiler of the gcc version the kernel was built with.
    # shellcheck disable=SC2016 # $1 (the tree) and $d, $gv expand in mmdebstrap's hook shell
    hook='set -e
        mkdir "$1/tmp/gs-debs"
        chroot "$1" chown _apt /tmp/gs-debs
        chroot "$1" sh -c "cd /tmp/gs-debs && apt-get download -q linux-headers-'"$kver"':arm64 linux-headers-'"$kabi"'-common"
        for d in "$1"/tmp/gs-debs/*.deb; do chroot "$1" dpkg-deb -x "/tmp/gs-debs/${d##*/}" /; done
        for d in "$1"/tmp/gs-debs/linux-headers-'"$kver"'_*_arm64.deb; do
            chroot "$1" dpkg-deb -f "/tmp/gs-debs/${d##*/}" Version > "'"$build"'/headers.version"; done
        gv=$(sed -n "s/^CONFIG_GCC_VERSION=//p" "$1'"$headers"'/.config")
        [ -n "$gv" ] || { echo "linux-headers-'"$kver"': no CONFIG_GCC_VERSION in .config" >&2; exit 1; }
        chroot "$1" apt-get install -q -y --no-install-recommends "gcc-$((gv / 10000))-aarch64-linux-gnu"'
    log "mmdebstrap: $TARGET_SUITE amd64 tree with make, linux-kbuild-$kabi, the arm64 linux-headers-$kver and its cross compiler"
    mmdebstrap --mode=root --variant=apt --architectures=amd64,arm64 --components=main \
        --include="make,linux-kbuild-$kabi" "${opts[@]}" --aptopt='APT::Install-Recommends "false"' \
        --customize-hook="$hook" "$TARGET_SUITE" "$build/tree" \
        "deb [signed-by=$KEYRING] $mirror $TARGET_SUITE main" 2>&1 | indent ||
        die "no $TARGET_SUITE amd64 build tree with linux-kbuild-$kabi, linux-headers-$kver (arm64) and the cross compiler (mmdebstrap's output above)"
    tree_s=$SECONDS
    tree=$build/tree
    # Headers, kbuild and compiler as Debian built the kernel with: one package version for the
    # headers and kbuild (kbuild's host programs go with the headers' scripts), the same gcc.
    hver=$(cat "$build/headers.version")
    # shellcheck disable=SC2016 # dpkg-query's format field, not shell
    kbver=$(chroot "$tree" dpkg-query -W -f '${Version}' "linux-kbuild-$kabi")
    [ "$hver" = "$kbver" ] || die "linux-headers-$kver is $hver but linux-kbuild-$kabi is $kbver"
    if [ "$(readlink "$tree$headers/scripts")" != "../../lib/linux-kbuild-$kabi/scripts" ] || [ ! -x "$tree$headers/scripts/mod/modpost" ]; then
        die "linux-headers-$kver's scripts/ is not linux-kbuild-$kabi's: $(readlink "$tree$headers/scripts")"
    fi
    gv=$(sed -n 's/^CONFIG_GCC_VERSION=//p' "$tree$headers/.config")
    cctext=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"$/\1/p' "$tree$headers/.config")
    cc=aarch64-linux-gnu-gcc-$((gv / 10000))
    ccver=$(chroot "$tree" "$cc" -dumpfullversion) || die "no $cc in the tree"
    IFS=. read -r ma mi pa <<< "$ccver"
    [ $((ma * 10000 + mi * 100 + pa)) = "$gv" ] ||
        die "linux-headers-$kver was built by gcc $gv ($cctext), $TARGET_SUITE's $cc is $ccver"
    cctext_cross=$(chroot "$tree" "$cc" --version | head -n1)
    [ "$cctext_cross" = "$cctext" ] || log "note: the kernel's compiler was '$cctext', the cross compiler is '$cctext_cross'"
    mkdir "$tree/tmp/gs-tryboot"
    cp "$MODULE_DIR/Kbuild" "$MODULE_DIR/grandstand_tryboot.c" "$tree/tmp/gs-tryboot/"
    log "make modules with $cctext_cross (linux-kbuild-$kabi $kbver, amd64)"
    root_ns "$tree" --chroot make -s -C "$headers" M=/tmp/gs-tryboot ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- modules 2>&1 | indent ||
        die "make modules failed for linux-headers-$kver (output above)"
    [ -s "$tree/tmp/gs-tryboot/grandstand_tryboot.ko" ] || die "the module build left no grandstand_tryboot.ko"
    chroot "$tree" aarch64-linux-gnu-strip --strip-debug /tmp/gs-tryboot/grandstand_tryboot.ko
    cp "$tree/tmp/gs-tryboot/grandstand_tryboot.ko" "$tree$headers/Module.symvers" "$build/out/"
    # Every symbol it needs exported by the kernel with the same CRC (Debian's Module.symvers).
    mkdir -p "$build/base/lib/modules/$kver/updates"
    cp "$build/out/grandstand_tryboot.ko" "$build/base/lib/modules/$kver/updates/"
    touch "$build/base/lib/modules/$kver/modules.order" "$build/base/lib/modules/$kver/modules.builtin"
    unresolved=$(depmod -n -e -E "$build/out/Module.symvers" -b "$build/base" "$kver" 2>&1 >/dev/null)
    [ -z "$unresolved" ] || die "depmod -e against linux-headers-$kver's Module.symvers: $unresolved"
    cp "$build/out/Module.symvers" "${ko%.ko}.symvers"
    cp "$build/out/grandstand_tryboot.ko" "$ko.new"
    mv "$ko.new" "$ko"
    log "grandstand_tryboot.ko for $kver built in $SECONDS s (tree $tree_s s, cross-compiled; sha256 $(sha256sum "$ko" | cut -c1-16))"
fi
cp "$ko" "$out"
chmod 0644 "$out"
