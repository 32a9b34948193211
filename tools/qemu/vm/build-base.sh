#!/usr/bin/env bash
# Builds, or finds in the cache, the base of the test VM: a Debian arm64 root tree from the
# packages in packages.list plus every module of the Debian arm64 kernel, that kernel, and a
# small busybox initramfs. Prints the base directory (…/vm/base-KEY) on stdout.
#
# KEY hashes every input (these scripts, the package list, the suite), so a change rebuilds.
# Packages are configured in an arm64 chroot on the host through qemu-user + binfmt_misc
# (mmdebstrap); when binfmt_misc is unavailable, debootstrap unpacks and the VM itself runs
# the second stage on the tree shared over 9p (slower, no host support needed).
# Everything is in functions and main runs last, so editing this file during a build is safe.
set -euo pipefail
VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tools/lib/roottree.sh
. "$VM_DIR/../../lib/roottree.sh"   # log, die, list_words, debian_mirror, mmdebstrap_arm64, binfmt (SLOW_HELPERS, DPKG_EXCLUDES)
LOG_TAG=vm
# $GRANDSTAND_CACHE (default <repo>/.cache) holds everything generated; the VM keeps to vm/.
VM_CACHE=${GRANDSTAND_CACHE:-$REPO_DIR/.cache}/vm
SUITE=${GRANDSTAND_VM_SUITE:-$TARGET_SUITE}

# Modules the initramfs loads before systemd takes over: the root disk and the 9p share.
INITRD_MODULES="crc32c_generic virtio_blk ext4 9pnet_virtio 9p"

stamp() { echo "$1 $((SECONDS - START))s" >> "$TMP/build-times.txt"; log "$1 ($((SECONDS - START)) s)"; }

# An apt-get/apt-cache option set for a private arm64 view of $SUITE under $1 (lists, debs),
# independent of the host's own apt state.
APT_OPTS=()
apt_setup() {
    local dir=$1 mirror=$2
    mkdir -p "$dir"/etc/apt/{apt.conf.d,preferences.d,sources.list.d} "$dir"/var/lib/apt/lists/partial \
        "$dir"/var/cache/apt/archives/partial "$dir"/var/lib/dpkg "$dir"/debs
    : > "$dir/var/lib/dpkg/status"
    echo "deb [signed-by=$KEYRING] $mirror $SUITE main" > "$dir/etc/apt/sources.list"
    APT_OPTS=(-o "Dir=$dir" -o "Dir::State::status=$dir/var/lib/dpkg/status"
        -o APT::Architecture=arm64 -o APT::Architectures=arm64
        -o APT::Sandbox::User=root -o Debug::NoLocking=1 -q)
}

# The kernel and busybox-static of the suite, through a private apt view; sets KVER, BUSYBOX.
fetch_kernel() {
    local apt_dir=$VM_CACHE/apt kpkg p v f debs=()
    apt_setup "$apt_dir" "$MIRROR"
    apt-get "${APT_OPTS[@]}" update >/dev/null
    kpkg=$(apt-cache "${APT_OPTS[@]}" depends linux-image-arm64 |
        sed -nE 's/^ *Depends: (linux-image-[0-9][^ ]*-arm64)$/\1/p' | head -n1)
    [ -n "$kpkg" ] || die "cannot resolve linux-image-arm64 in $SUITE"
    for p in "$kpkg" busybox-static; do
        v=$(apt-cache "${APT_OPTS[@]}" show --no-all-versions "$p" | sed -n 's/^Version: //p' | head -n1)
        debs+=("$apt_dir/debs/${p}_${v//:/%3a}_arm64.deb")   # apt-get download's file name
    done
    (cd "$apt_dir/debs" && apt-get "${APT_OPTS[@]}" download "$kpkg" busybox-static >/dev/null)
    for f in "$apt_dir"/debs/*.deb; do   # keep only the versions in use
        [[ " ${debs[*]} " == *" $f "* ]] || rm -f "$f"
    done
    dpkg-deb -x "${debs[0]}" "$TMP/kernel"
    dpkg-deb -x "${debs[1]}" "$TMP/busybox"
    KVER=$(ls "$TMP/kernel/usr/lib/modules")
    cp "$TMP/kernel/boot/vmlinuz-$KVER" "$TMP/vmlinuz"
    echo "$KVER" > "$TMP/kernel-version"
    BUSYBOX=$TMP/busybox/usr/bin/busybox
    stamp "kernel $KVER downloaded"
}

# The whole root tree, configured in an arm64 chroot on the host (qemu-user via binfmt_misc).
rootfs_binfmt() {
    log "arm64 runs through binfmt_misc: configuring packages in a chroot (mmdebstrap)"
    # shellcheck disable=SC2086 # the helper list is words
    mmdebstrap_arm64 "$ROOT" "$SUITE" main "$PACKAGES" "$SLOW_HELPERS" \
        --customize-hook="$(restore_helpers $SLOW_HELPERS)"
    stamp "rootfs configured (mmdebstrap, binfmt)"
}

# The unpacked first half (debootstrap --foreign); the slow helpers diverted by writing dpkg's
# diversions file directly (no arm64 code can run here), undone by undivert_foreign.
rootfs_foreign() {
    local f
    log "no binfmt_misc emulation: debootstrap --foreign now, second stage inside the VM"
    mkdir -p "$VM_CACHE/debootstrap-debs"
    debootstrap --foreign --arch=arm64 --variant=minbase --include="${PACKAGES// /,}" \
        --cache-dir="$VM_CACHE/debootstrap-debs" "$SUITE" "$ROOT" "$MIRROR" 2>&1 | indent
    mkdir -p "$ROOT/etc/dpkg/dpkg.cfg.d"
    printf '%s\n' force-unsafe-io "${DPKG_EXCLUDES[@]}" > "$ROOT/etc/dpkg/dpkg.cfg.d/90-grandstand-vm"
    for f in $SLOW_HELPERS; do
        printf '%s\n%s\n:\n' "$f" "$f.distrib" >> "$ROOT/var/lib/dpkg/diversions"
        if [ -e "$ROOT$f" ]; then mv "$ROOT$f" "$ROOT$f.distrib"; fi
        printf '#!/bin/sh\nexit 0\n' > "$ROOT$f"
        chmod 755 "$ROOT$f"
    done
    stamp "rootfs unpacked (debootstrap --foreign)"
}

undivert_foreign() {
    local f
    for f in $SLOW_HELPERS; do
        rm -f "$ROOT$f"
        if [ -e "$ROOT$f.distrib" ]; then mv "$ROOT$f.distrib" "$ROOT$f"; fi
    done
    rm -f "$ROOT/var/lib/dpkg/diversions"
    touch "$ROOT/var/lib/dpkg/diversions"
}

# Every kernel module, indexed on the host (depmod understands foreign modules).
install_modules() {
    mkdir -p "$ROOT/usr/lib/modules"
    cp -a "$TMP/kernel/usr/lib/modules/$KVER" "$ROOT/usr/lib/modules/"
    depmod -b "$ROOT" "$KVER"
    stamp "modules installed"
}

# The initramfs: busybox, /init, and INITRD_MODULES with dependencies (decompressed) in load order.
make_initramfs() {
    local ird=$TMP/initramfs a m cmd path name
    mkdir -p "$ird"/{bin,dev,proc,sys,newroot,etc,lib/modules}
    cp "$BUSYBOX" "$ird/bin/busybox"
    for a in sh mount umount insmod sleep switch_root chroot poweroff cat sync; do ln -s busybox "$ird/bin/$a"; done
    install -m 0755 "$VM_DIR/initramfs/init" "$ird/init"
    : > "$ird/etc/modules.order"
    for m in $INITRD_MODULES; do
        modprobe -d "$ROOT" -S "$KVER" --show-depends "$m" | while read -r cmd path _; do
            [ "$cmd" = insmod ] || continue
            name=$(basename "$path" .xz)
            grep -qx "$name" "$ird/etc/modules.order" && continue
            case $path in
                *.xz) xz -dc "$path" > "$ird/lib/modules/$name" ;;
                *) cp "$path" "$ird/lib/modules/$name" ;;
            esac
            echo "$name" >> "$ird/etc/modules.order"
        done
    done
    (cd "$ird" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -1 > "$TMP/initrd.img"
    stamp "initramfs built ($(wc -l < "$ird/etc/modules.order") modules)"
    rm -rf "$ird"
}

# debootstrap's second stage, run by the VM on the tree shared over virtio-9p.
second_stage_in_vm() {
    local slog=$TMP/stage2-console.log
    log "running debootstrap's second stage in the VM (TCG; takes a while; console: $slog)"
    timeout 7200 qemu-system-aarch64 -M virt -cpu cortex-a57 -smp 2 -m 1024 -no-reboot -nodefaults \
        -display none -serial "file:$slog" \
        -kernel "$TMP/vmlinuz" -initrd "$TMP/initrd.img" \
        -append "console=ttyAMA0 panic=-1 gs.mode=stage2" \
        -virtfs "local,path=$ROOT,mount_tag=gsroot,security_model=passthrough,multidevs=remap,id=gsroot" ||
        die "stage-2 VM failed; console log: $slog"
    grep -q 'GS-STAGE2-RC=0' "$slog" || { tail -n 40 "$slog" >&2; die "second stage failed; console log: $slog"; }
    undivert_foreign
    rm -rf "$ROOT"/var/cache/apt/archives/*.deb "$ROOT/debootstrap"
    stamp "rootfs configured (second stage in the VM)"
}

# Identity, so no boot is a "first boot", and the package manifest.
finish() {
    od -An -tx1 -N16 /dev/urandom | tr -d ' \n' > "$ROOT/etc/machine-id"
    echo >> "$ROOT/etc/machine-id"
    echo grandstand-vm > "$ROOT/etc/hostname"
    printf '127.0.0.1\tlocalhost\n127.0.1.1\tgrandstand-vm\n::1\tlocalhost ip6-localhost ip6-loopback\n' > "$ROOT/etc/hosts"
    rm -rf "$ROOT"/var/lib/apt/lists/* "$ROOT"/var/cache/apt/*.bin
    # /etc and /var newer than /usr: every boot of a fresh copy would otherwise run the
    # ConditionNeedsUpdate= services (hwdb compile, ldconfig, sysusers, journal catalog).
    touch "$ROOT/etc/.updated" "$ROOT/var/.updated"
    dpkg-query --admindir="$ROOT/var/lib/dpkg" -W -f='${Package} ${Version}\n' > "$TMP/packages.txt"
    rm -rf "$TMP/kernel" "$TMP/busybox"
    echo "mode=$MODE kernel=$KVER packages=$(wc -l < "$TMP/packages.txt") size=$(du -sm "$ROOT" | cut -f1)M" \
        > "$TMP/info.txt"
    stamp "done: $(cat "$TMP/info.txt")"
    touch "$TMP/READY"
}

main() {
    [ "$(id -u)" -eq 0 ] || die "building the VM image needs root (chroot, device nodes, binfmt_misc)"
    PACKAGES=$(list_words "$VM_DIR/packages.list")
    # shellcheck disable=SC2086,SC2116 # word splitting joins the lists with single spaces
    PACKAGES=$(echo $PACKAGES ${GRANDSTAND_VM_EXTRA_PACKAGES:-})
    # This script, the library functions it builds with, the guest's init, the package set.
    KEY=$({ cat "$VM_DIR/build-base.sh" "$VM_DIR/initramfs/init"
            declare -f mmdebstrap_arm64 divert_helpers restore_helpers binfmt_setup binfmt_works_in_chroot
            echo "$SLOW_HELPERS ${DPKG_EXCLUDES[*]}"
            echo "$SUITE $PACKAGES"; } | sha256sum | cut -c1-16)
    BASE=$VM_CACHE/base-$KEY
    if [ -e "$BASE/READY" ]; then echo "$BASE"; return; fi
    mkdir -p "$VM_CACHE"
    exec 9>"$VM_CACHE/build.lock"
    flock 9
    if [ -e "$BASE/READY" ]; then echo "$BASE"; return; fi

    START=$SECONDS
    TMP=$BASE.tmp
    ROOT=$TMP/rootfs
    rm -rf "$TMP"
    mkdir -p "$TMP"
    MIRROR=$(debian_mirror "$SUITE")
    log "building VM base $KEY from $MIRROR $SUITE (arm64)"
    fetch_kernel
    trap binfmt_cleanup EXIT
    # GRANDSTAND_VM_NO_BINFMT=1 takes the second path even where binfmt_misc works (to test it).
    if [ -z "${GRANDSTAND_VM_NO_BINFMT:-}" ] && binfmt_setup && binfmt_works_in_chroot "$BUSYBOX"; then
        MODE=binfmt
        rootfs_binfmt
        binfmt_cleanup
    else
        MODE=vm
        rootfs_foreign
    fi
    install_modules
    make_initramfs
    if [ "$MODE" = vm ]; then second_stage_in_vm; fi
    finish

    # Publish atomically, then drop bases built from older inputs.
    local old
    for old in "$VM_CACHE"/base-*; do
        if [ "$old" != "$TMP" ] && [ -d "$old" ]; then rm -rf "$old"; fi
    done
    mv "$TMP" "$BASE"
    echo "$BASE"
}

main "$@"; exit $?   # one line: bash has read it all before running main
