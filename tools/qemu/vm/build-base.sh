#!/usr/bin/env bash
# Builds, or finds in the cache, the base of the test VM: a Debian arm64 root tree from the
# packages in packages.list plus every module of the Debian arm64 kernel, that kernel, and a
# small busybox initramfs. Prints the base directory (…/vm/base-KEY) on stdout.
#
# KEY hashes every input (these scripts, the package list, the suite), so a change rebuilds.
# Packages are configured in an arm64 chroot on the host through qemu-user + binfmt_misc
# (mmdebstrap); when binfmt_misc is unavailable, debootstrap unpacks and the VM itself runs
# the second stage on the tree shared over 9p (slower, no host support needed).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[ "$(id -u)" -eq 0 ] || die "building the VM image needs root (chroot, device nodes, binfmt_misc)"

# Modules the initramfs loads before systemd takes over: the root disk and the 9p share.
INITRD_MODULES="crc32c_generic virtio_blk ext4 9pnet_virtio 9p"
# Package-maintainer helpers that take minutes under emulation and produce caches nothing in
# the VM reads (udev hardware database, MIME database, font cache): stubbed while installing.
SLOW_HELPERS="/usr/bin/systemd-hwdb /usr/bin/update-mime-database /usr/bin/fc-cache"

PACKAGES=$(sed -e 's/#.*//' "$VM_DIR/packages.list" | xargs)
PACKAGES="$PACKAGES ${GRANDSTAND_VM_EXTRA_PACKAGES:-}"
PACKAGES=$(echo $PACKAGES)
KEY=$({ cat "$VM_DIR/build-base.sh" "$VM_DIR/lib.sh" "$VM_DIR/initramfs/init"
        echo "$SUITE $PACKAGES"; } | sha256sum | cut -c1-16)
BASE=$VM_CACHE/base-$KEY

if [ -e "$BASE/READY" ]; then echo "$BASE"; exit 0; fi
mkdir -p "$VM_CACHE"
exec 9>"$VM_CACHE/build.lock"
flock 9
if [ -e "$BASE/READY" ]; then echo "$BASE"; exit 0; fi

START=$SECONDS
TMP=$BASE.tmp
ROOT=$TMP/rootfs
rm -rf "$TMP"
mkdir -p "$TMP"
stamp() { echo "$1 $((SECONDS - START))s" >> "$TMP/build-times.txt"; log "$1 ($((SECONDS - START)) s)"; }

MIRROR=$(host_mirror)
log "building VM base $KEY from $MIRROR $SUITE (arm64)"

# 1. The kernel and busybox-static, through a private apt view of the suite.
APT_DIR=$VM_CACHE/apt
apt_setup "$APT_DIR" "$MIRROR"
apt-get "${APT_OPTS[@]}" update >/dev/null
KPKG=$(apt-cache "${APT_OPTS[@]}" depends linux-image-arm64 |
    sed -nE 's/^ *Depends: (linux-image-[0-9][^ ]*-arm64)$/\1/p' | head -n1)
[ -n "$KPKG" ] || die "cannot resolve linux-image-arm64 in $SUITE"
debs=()
for p in "$KPKG" busybox-static; do
    v=$(apt-cache "${APT_OPTS[@]}" show --no-all-versions "$p" | sed -n 's/^Version: //p' | head -n1)
    debs+=("$APT_DIR/debs/${p}_${v//:/%3a}_arm64.deb")   # apt-get download's file name
done
(cd "$APT_DIR/debs" && apt-get "${APT_OPTS[@]}" download "$KPKG" busybox-static >/dev/null)
for f in "$APT_DIR"/debs/*.deb; do   # keep only the versions in use
    [[ " ${debs[*]} " == *" $f "* ]] || rm -f "$f"
done
dpkg-deb -x "${debs[0]}" "$TMP/kernel"
dpkg-deb -x "${debs[1]}" "$TMP/busybox"
KVER=$(ls "$TMP/kernel/usr/lib/modules")
cp "$TMP/kernel/boot/vmlinuz-$KVER" "$TMP/vmlinuz"
echo "$KVER" > "$TMP/kernel-version"
BUSYBOX=$TMP/busybox/usr/bin/busybox
stamp "kernel $KVER downloaded"

# 2. The root tree (first half when emulation is not available).
hook_divert='for f in '"$SLOW_HELPERS"'; do
    chroot "$1" dpkg-divert --quiet --local --rename --add "$f"
    printf "#!/bin/sh\nexit 0\n" > "$1$f"; chmod 755 "$1$f"; done'
hook_restore='for f in '"$SLOW_HELPERS"'; do
    rm -f "$1$f"; chroot "$1" dpkg-divert --quiet --local --rename --remove "$f"; done'
DPKG_EXCLUDES=(path-exclude=/usr/share/man/* path-exclude=/usr/share/doc/*
    path-include=/usr/share/doc/*/copyright path-exclude=/usr/share/locale/*
    path-exclude=/usr/share/info/*)

if binfmt_setup && binfmt_works_in_chroot "$BUSYBOX"; then
    MODE=binfmt
    log "arm64 runs through binfmt_misc: configuring packages in a chroot (mmdebstrap)"
    dpkgopts=(--dpkgopt=force-unsafe-io)
    for o in "${DPKG_EXCLUDES[@]}"; do dpkgopts+=("--dpkgopt=$o"); done
    mmdebstrap --mode=root --arch=arm64 --variant=essential --include="${PACKAGES// /,}" \
        "${dpkgopts[@]}" --essential-hook="$hook_divert" --customize-hook="$hook_restore" \
        "$SUITE" "$ROOT" "deb [signed-by=$KEYRING] $MIRROR $SUITE main" 2>&1 | sed 's/^/  /' >&2
    stamp "rootfs configured (mmdebstrap, binfmt)"
else
    MODE=vm
    log "no binfmt_misc emulation: debootstrap --foreign now, second stage inside the VM"
    mkdir -p "$VM_CACHE/debootstrap-debs"
    debootstrap --foreign --arch=arm64 --variant=minbase --include="${PACKAGES// /,}" \
        --cache-dir="$VM_CACHE/debootstrap-debs" "$SUITE" "$ROOT" "$MIRROR" 2>&1 | sed 's/^/  /' >&2
    mkdir -p "$ROOT/etc/dpkg/dpkg.cfg.d"
    printf '%s\n' force-unsafe-io "${DPKG_EXCLUDES[@]}" > "$ROOT/etc/dpkg/dpkg.cfg.d/90-grandstand-vm"
    stamp "rootfs unpacked (debootstrap --foreign)"
fi

# 3. Every kernel module, indexed on the host (depmod understands foreign modules).
mkdir -p "$ROOT/usr/lib/modules"
cp -a "$TMP/kernel/usr/lib/modules/$KVER" "$ROOT/usr/lib/modules/"
depmod -b "$ROOT" "$KVER"
stamp "modules installed"

# 4. The initramfs: busybox, /init, and the modules above (decompressed) in load order.
IRD=$TMP/initramfs
mkdir -p "$IRD"/{bin,dev,proc,sys,newroot,etc,lib/modules}
cp "$BUSYBOX" "$IRD/bin/busybox"
for a in sh mount umount insmod sleep switch_root chroot poweroff cat sync; do ln -s busybox "$IRD/bin/$a"; done
install -m 0755 "$VM_DIR/initramfs/init" "$IRD/init"
: > "$IRD/etc/modules.order"
for m in $INITRD_MODULES; do
    modprobe -d "$ROOT" -S "$KVER" --show-depends "$m" | while read -r cmd path _; do
        [ "$cmd" = insmod ] || continue
        name=$(basename "$path" .xz)
        grep -qx "$name" "$IRD/etc/modules.order" && continue
        case $path in *.xz) xz -dc "$path" > "$IRD/lib/modules/$name" ;; *) cp "$path" "$IRD/lib/modules/$name" ;; esac
        echo "$name" >> "$IRD/etc/modules.order"
    done
done
(cd "$IRD" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -1 > "$TMP/initrd.img"
stamp "initramfs built ($(wc -l < "$IRD/etc/modules.order") modules)"

if [ "$MODE" = vm ]; then
    log "running debootstrap's second stage in the VM (TCG; takes a while)"
    mkdir -p "$VM_CACHE/logs"
    slog=$VM_CACHE/logs/stage2-$KEY.log
    timeout 7200 qemu-system-aarch64 -M virt -cpu max -smp 2 -m 1024 -no-reboot \
        -display none -monitor none -serial "file:$slog" -nic none \
        -kernel "$TMP/vmlinuz" -initrd "$TMP/initrd.img" \
        -append "console=ttyAMA0 panic=-1 gs.mode=stage2" \
        -virtfs "local,path=$ROOT,mount_tag=gsroot,security_model=passthrough,multidevs=remap,id=gsroot" ||
        die "stage-2 VM failed; console log: $slog"
    grep -q 'GS-STAGE2-RC=0' "$slog" || { tail -n 40 "$slog" >&2; die "second stage failed; console log: $slog"; }
    rm -rf "$ROOT"/var/cache/apt/archives/*.deb "$ROOT/debootstrap"
    stamp "rootfs configured (second stage in the VM)"
fi

# 5. Identity, so no boot is a "first boot": a fixed machine id and host name.
od -An -tx1 -N16 /dev/urandom | tr -d ' \n' > "$ROOT/etc/machine-id"
echo >> "$ROOT/etc/machine-id"
echo grandstand-vm > "$ROOT/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tgrandstand-vm\n::1\tlocalhost ip6-localhost ip6-loopback\n' > "$ROOT/etc/hosts"
rm -rf "$ROOT"/var/lib/apt/lists/* "$ROOT"/var/cache/apt/*.bin
# /etc and /var newer than /usr: every boot of a fresh copy would otherwise run the
# ConditionNeedsUpdate= services (hwdb compile, ldconfig, journal catalog) for minutes.
touch "$ROOT/etc/.updated" "$ROOT/var/.updated"

dpkg-query --admindir="$ROOT/var/lib/dpkg" -W -f='${Package} ${Version}\n' > "$TMP/packages.txt"
rm -rf "$TMP/kernel" "$TMP/busybox" "$IRD"
echo "mode=$MODE kernel=$KVER packages=$(wc -l < "$TMP/packages.txt") size=$(du -sm "$ROOT" | cut -f1)M" > "$TMP/info.txt"
stamp "done: $(cat "$TMP/info.txt")"
touch "$TMP/READY"

# Publish atomically, then drop bases built from older inputs.
for old in "$VM_CACHE"/base-*; do
    [ "$old" != "$TMP" ] && [ -d "$old" ] && rm -rf "$old"
done
mv "$TMP" "$BASE"
echo "$BASE"
