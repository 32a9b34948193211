# shellcheck shell=bash disable=SC2034,SC2154 # sourced by tools/image/build.sh: it sets board_dir, reads ROOT_PARTUUID
# The rpi4 image's layout, sourced by tools/image/build.sh (the functions and variables it offers:
# tools/image/README.md). A/B for RAUC with the firmware's tryboot (board/rpi4/README.md,
# docs/updates.md, docs/flashing.md). MBR, which the Raspberry Pi boot ROM reads:
#   p1 autoboot  FAT16 (AUTOBOOT_MIB): autoboot.txt only, the firmware's choice of boot partition
#   p2 boot.0    FAT32 (BOOT_MIB) of slot A: GPU firmware, config.txt, cmdline.txt (root=p5,
#                rauc.slot=A), kernel, initramfs, device trees
#   p3 boot.1    FAT32 of slot B, empty until the first update
#   p4 extended, holding
#   p5 rootfs.0  slot A, the root filesystem
#   p6 rootfs.1  slot B, empty until the first update (ROOT_SLOT_MIB)
#   p7 data      ext4 mounted on /var/lib/grandstand, kept across updates; grown at first boot
# layout_tree adds grandstand_tryboot.ko (tryboot-module/) for the tree's kernel before the image is made.
# ${IMG%.img}.rootfs.ext4 and ${IMG%.img}.boot.vfat are left beside the image: `make bundle`
# packs both (tools/update/bundle.sh). The slot numbers are also in rauc-tryboot and system.conf.
ROOT_SLOT_MIB=${ROOT_SLOT_MIB:-1536}
BOOT_MIB=256
AUTOBOOT_MIB=16
DATA_MIB=256
ROOT_IN_FSTAB=no   # the slot's filesystem goes into either partition; root= is its cmdline.txt's

# MBR disk id (partition N is PARTUUID DISKID-0N); the FAT volume ids.
layout_ids() {
    DISK_ID=$(hex8 disk)
    ROOT_PARTUUID=$DISK_ID-05
    BOOT_VOLID=$(hex8 boot | tr a-f A-F)
    AUTOBOOT_VOLID=$(hex8 autoboot | tr a-f A-F)
}

layout_fstab() {
    echo "PARTUUID=$DISK_ID-01 /boot/autoboot vfat defaults,noatime,umask=0077 0 2"
    echo "PARTUUID=$DISK_ID-07 /var/lib/grandstand ext4 defaults,noatime 0 2"
}

# layout_tree ROOT KVER: the tryboot reboot flag for Debian's kernel (tryboot-module/README.md):
# grandstand_tryboot.ko built for KVER (tryboot-module/build.sh, cached) in
# /lib/modules/KVER/updates/, depmod for KVER (the host's, as for the common tree), and loaded at
# boot by overlay/etc/modules-load.d/grandstand-tryboot.conf.
layout_tree() {
    local root=$1 kver=$2 dir=$1/usr/lib/modules/$2
    [ -d "$dir" ] || die "no /usr/lib/modules/$kver in the tree"
    mkdir -p "$dir/updates"
    # The mirror keeps only the suite's current kernel: a common tree cached before a point
    # release has a KVER whose headers are gone (a new common tree fixes it).
    "$board_dir/tryboot-module/build.sh" "$kver" "$dir/updates/grandstand_tryboot.ko" ||
        die "no grandstand_tryboot.ko for $kver (if apt found no linux-headers-$kver: the mirror moved to a newer kernel; remove $IMAGE_CACHE/common-* and build again)"
    depmod -b "$root" "$kver"
}

# layout_image ROOT KVER WORK IMG
layout_image() {
    local root=$1 kver=$2 work=$3 img=$4 size owner
    size=$(stat -c %s "$work/root.img")
    [ "$size" -le $((ROOT_SLOT_MIB << 20)) ] || die "root filesystem ($((size >> 20)) MiB) exceeds the slot (ROOT_SLOT_MIB=$ROOT_SLOT_MIB)"
    make_boot "$root" "$kver" "$work/boot.img" "$BOOT_VOLID"
    make_autoboot "$work/autoboot.img"
    cp "$work/root.img" "$work/slot-a.img"
    truncate -s "${ROOT_SLOT_MIB}M" "$work/slot-a.img"
    rm -f "$work/slot-b.img" "$work/boot-b.img"
    truncate -s "${ROOT_SLOT_MIB}M" "$work/slot-b.img"
    truncate -s "${BOOT_MIB}M" "$work/boot-b.img"
    # The data filesystem's root is /var/lib/grandstand, owned by the service user, as the tree's
    # StateDirectory would be.
    mkdir -p "$work/data"
    owner=$(awk -F: '$1 == "grandstand" { print $3 ":" $4 }' "$root/etc/passwd")
    [ -z "$owner" ] || chown "$owner" "$work/data"
    chmod 0755 "$work/data"
    touch -d "@$SOURCE_DATE_EPOCH" "$work/data"
    make_ext4 "$work/data" "$work/data.img" grandstand-data "$(uuid data-fs)" "$DATA_MIB"
    # mke2fs 1.47.0 -d leaves the root directory to root: set its owner with debugfs.
    [ -z "$owner" ] || printf 'sif / uid %s\nsif / gid %s\n' "${owner%:*}" "${owner#*:}" |
        E2FSPROGS_FAKE_TIME=$SOURCE_DATE_EPOCH debugfs -w -f - "$work/data.img" >/dev/null 2>&1
    assemble_ab "$img" "$work/autoboot.img" "$work/boot.img" "$work/boot-b.img" \
        "$work/slot-a.img" "$work/slot-b.img" "$work/data.img"
    cp "$work/root.img" "${img%.img}.rootfs.ext4"
    cp "$work/boot.img" "${img%.img}.boot.vfat"
}

# assemble_ab IMG P1 P2 P3 P5 P6 P7: the MBR (sfdisk on the file: p1 bootable FAT16, p2/p3 FAT32
# LBA, p4 extended to the end, p5-p7 logical Linux, 1 MiB apart for their EBRs), then each
# partition image written in place with dd (assemble in tools/image/build.sh does primaries only).
assemble_ab() {
    local img=$1 mib=4 script i f sizes=() starts=()
    shift
    local -a files=("$@")
    for i in 0 1 2 3 4 5; do
        [ "$i" -eq 3 ] && mib=$((mib + 1))   # the extended partition's first EBR
        [ "$i" -gt 3 ] && mib=$((mib + 1))   # each further logical partition's EBR
        starts[i]=$mib
        sizes[i]=$(( ($(stat -c %s "${files[i]}") + (1 << 20) - 1) >> 20 ))
        mib=$((mib + sizes[i]))
    done
    script="label: dos
label-id: 0x$DISK_ID
start=$((starts[0] << 11)), size=$((sizes[0] << 11)), type=e, bootable
start=$((starts[1] << 11)), size=$((sizes[1] << 11)), type=c
start=$((starts[2] << 11)), size=$((sizes[2] << 11)), type=c
start=$(((starts[3] - 1) << 11)), type=5
start=$((starts[3] << 11)), size=$((sizes[3] << 11)), type=83
start=$((starts[4] << 11)), size=$((sizes[4] << 11)), type=83
start=$((starts[5] << 11)), size=$((sizes[5] << 11)), type=83
"
    rm -f "$img"
    truncate -s $(( (mib + 1) << 20 )) "$img"
    sfdisk --no-reread --no-tell-kernel -q "$img" <<< "$script"
    for i in 0 1 2 3 4 5; do
        f=${files[i]}
        dd if="$f" of="$img" bs=1M seek="${starts[i]}" conv=notrunc,sparse status=none
    done
}

# The autoboot partition: autoboot.txt with slot A committed and nothing armed ([tryboot] names A
# too: rauc-tryboot arms B when an update is written).
make_autoboot() {
    local img=$1 stage
    stage=$(dirname "$img")/autoboot
    rm -rf "$stage" "$img"
    mkdir -p "$stage"
    printf '%s\n' "[all]" "tryboot_a_b=1" "boot_partition=2" "[tryboot]" "boot_partition=2" > "$stage/autoboot.txt"
    touch -d "@$SOURCE_DATE_EPOCH" "$stage/autoboot.txt"
    truncate -s "${AUTOBOOT_MIB}M" "$img"
    mkfs.vfat -F 16 -n GS-AUTOBOOT --invariant -i "$AUTOBOOT_VOLID" "$img" >/dev/null 2>&1 ||
        mkfs.vfat -F 16 -n GS-AUTOBOOT -i "$AUTOBOOT_VOLID" "$img" >/dev/null
    MTOOLS_SKIP_CHECK=1 mcopy -m -o -i "$img" "$stage/autoboot.txt" ::
    rm -rf "$stage"
}

# Slot A's FAT boot partition: GPU firmware, kernel, initramfs, the BCM2711 device trees,
# config.txt and cmdline.txt (root=PARTUUID of p5, rauc.slot=A); files put in with mcopy (no mount).
make_boot() {
    local root=$1 kver=$2 img=$3 volid=$4 fw=$1/usr/lib/raspi-firmware stage f
    [ -f "$fw/start4.elf" ] || die "raspi-firmware did not install $fw/start4.elf"
    stage=$(dirname "$img")/boot
    rm -rf "$stage" "$img"
    mkdir -p "$stage"
    cp "$fw"/*.bin "$fw"/*.elf "$fw"/*.dat "$stage/" 2>/dev/null || true
    cp "$root/usr/lib/linux-image-$kver"/broadcom/bcm2711-*.dtb "$stage/"
    mkdir -p "$stage/overlays"
    [ -d "$root/usr/lib/linux-image-$kver/overlays" ] && cp "$root/usr/lib/linux-image-$kver"/overlays/* "$stage/overlays/"
    cp "$root/boot/vmlinuz-$kver" "$stage/vmlinuz"
    cp "$root/boot/initrd.img-$kver" "$stage/initrd.img"
    cp "$board_dir/config.txt" "$stage/config.txt"
    echo "$(board_cmdline) rauc.slot=A" > "$stage/cmdline.txt"
    find "$stage" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
    truncate -s "${BOOT_MIB}M" "$img"
    # --invariant first: given after -i it resets the volume id to 1234-ABCD (dosfstools 4.2).
    mkfs.vfat -F 32 -n GS-BOOT --invariant -i "$volid" "$img" >/dev/null 2>&1 ||
        mkfs.vfat -F 32 -n GS-BOOT -i "$volid" "$img" >/dev/null
    for f in "$stage"/*; do
        MTOOLS_SKIP_CHECK=1 mcopy -s -m -o -i "$img" "$f" ::
    done
    rm -rf "$stage"
}
