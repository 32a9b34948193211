# shellcheck shell=bash disable=SC2034,SC2154 # sourced by tools/image/build.sh: it sets board_dir, reads ROOT_PARTUUID
# The rpi4 image's layout, sourced by tools/image/build.sh (the functions and variables it offers:
# tools/image/README.md). MBR, which the Raspberry Pi boot ROM reads: p1 a 256 MiB FAT32 boot
# partition at 4 MiB (GPU firmware, config.txt, cmdline.txt, kernel, initramfs, device trees),
# p2 the root filesystem.

# MBR disk id; the root is its partition 2; the FAT volume id as XXXX-XXXX.
layout_ids() {
    DISK_ID=$(hex8 disk)
    ROOT_PARTUUID=$DISK_ID-02
    BOOT_UUID=$(hex8 boot | tr a-f A-F | sed -E 's/(....)(....)/\1-\2/')
}

layout_fstab() { echo "UUID=$BOOT_UUID /boot/firmware vfat defaults,noatime,umask=0077 0 2"; }

# layout_image ROOT KVER WORK IMG: the boot partition, then both partitions into the MBR disk.
layout_image() {
    local root=$1 kver=$2 work=$3 img=$4
    make_boot "$root" "$kver" "$work/boot.img" "${BOOT_UUID//-/}"
    assemble "$img" dos "$DISK_ID" "$work/boot.img" c "$work/root.img" 83
}

# The FAT boot partition: GPU firmware, kernel, initramfs, the BCM2711 device trees,
# config.txt and cmdline.txt (root=PARTUUID); files put in with mcopy (no mount).
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
    board_cmdline > "$stage/cmdline.txt"
    find "$stage" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
    truncate -s 256M "$img"
    # --invariant first: given after -i it resets the volume id to 1234-ABCD (dosfstools 4.2).
    mkfs.vfat -F 32 -n GS-BOOT --invariant -i "$volid" "$img" >/dev/null 2>&1 ||
        mkfs.vfat -F 32 -n GS-BOOT -i "$volid" "$img" >/dev/null
    for f in "$stage"/*; do
        MTOOLS_SKIP_CHECK=1 mcopy -s -m -o -i "$img" "$f" ::
    done
    rm -rf "$stage"
}
