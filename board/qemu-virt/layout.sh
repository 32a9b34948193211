# shellcheck shell=bash disable=SC2034,SC2154 # sourced by tools/image/build.sh: it sets board_dir, reads ROOT_PARTUUID
# The qemu-virt image's layout, sourced by tools/image/build.sh (the functions and variables it
# offers: tools/image/README.md). A/B for RAUC (docs/updates.md, docs/flashing.md), GPT:
#   1 esp       FAT32 EFI system partition (64 MiB: the smallest size FAT32 allows with 512-byte clusters): GRUB (EFI/BOOT/BOOTAA64.EFI), grub.cfg, grubenv, grubenv.bak
#   2 rootfs.0  slot A, the root filesystem (its own /vmlinuz and /initrd.img)
#   3 rootfs.1  slot B, empty until the first update (ROOT_SLOT_MIB)
#   4 data      ext4 mounted on /var/lib/grandstand, kept across updates; grown at first boot
# The firmware (UEFI: QEMU_EFI.fd from qemu-efi-aarch64) starts GRUB, which picks the slot.
# ${IMG%.img}.rootfs.ext4 is left beside the image: `make bundle` packs it (tools/update/bundle.sh).
ROOT_SLOT_MIB=${ROOT_SLOT_MIB:-1536}
DATA_MIB=256
ESP_MIB=64
ROOT_IN_FSTAB=no   # the slot's filesystem goes into either partition; root= is GRUB's

layout_ids() {
    DISK_UUID=$(uuid disk)
    ROOT_PARTUUID=$(uuid root-partition)
    B_PARTUUID=$(uuid root-partition-b)
    ESP_PARTUUID=$(uuid esp-partition)
    DATA_PARTUUID=$(uuid data-partition)
    ESP_VOLID=$(hex8 esp | tr a-f A-F)
}

layout_fstab() {
    # sync: RAUC rewrites grubenv here (grub-editenv) at an install's start and end and at
    # mark-good; a power cut must find it on disk, not in the page cache (docs/updates.md).
    echo "PARTLABEL=esp /boot/efi vfat defaults,noatime,umask=0077,sync 0 2"
    echo "PARTLABEL=data /var/lib/grandstand ext4 defaults,noatime 0 2"
}

# layout_tree ROOT KVER: leaves out what a QEMU virt machine cannot use, about a quarter of every
# bundle sent over the air (docs/updates.md): the module folders of kernel-absent, any module
# that needs one of them, and the kernel's device trees (the firmware hands QEMU's own to it).
layout_tree() {
    local root=$1 kver=$2 rel mod deps d gone=0 mb
    local modules=$root/usr/lib/modules/$kver
    [ -f "$modules/modules.dep" ] || die "no modules.dep for $kver in the tree"
    mb=$(du -sm "$modules" "$root/usr/lib/linux-image-$kver" 2>/dev/null | awk '{ s += $1 } END { print s }')
    while read -r rel; do
        case $rel in '' | '#'*) continue ;; esac
        [ -d "$modules/kernel/$rel" ] || die "board/qemu-virt/kernel-absent: kernel $kver has no $rel"
        rm -rf "${modules:?}/kernel/$rel"
    done < "$board_dir/kernel-absent"
    # modules.dep (still the whole kernel's) lists every module a module needs, transitively.
    while IFS=: read -r mod deps; do
        [ -e "$modules/$mod" ] || continue
        for d in $deps; do
            [ -e "$modules/$d" ] && continue
            rm -f "${modules:?}/$mod"; gone=$((gone + 1)); break
        done
    done < "$modules/modules.dep"
    rm -rf "${root:?}/usr/lib/linux-image-$kver"
    depmod -b "$root" "$kver"
    for mod in $(grep -v '^#' "$board_dir/initramfs-modules") $(grep -hv '^#' "$board_dir"/overlay/etc/modules-load.d/*.conf) \
        mac80211_hwsim veth i6300esb; do
        modprobe -d "$root" -S "$kver" --show-depends "$mod" >/dev/null 2>&1 ||
            die "layout_tree left out module $mod, which the image needs"
    done
    log "left out $((mb - $(du -sm "$modules" | cut -f1))) MB of kernel modules and device trees ($gone modules outside kernel-absent)"
}

# layout_image ROOT KVER WORK IMG
layout_image() {
    local root=$1 kver=$2 work=$3 img=$4 slot
    slot=$(stat -c %s "$work/root.img")
    [ "$slot" -le $((ROOT_SLOT_MIB << 20)) ] || die "root filesystem ($((slot >> 20)) MiB) exceeds the slot (ROOT_SLOT_MIB=$ROOT_SLOT_MIB)"
    make_esp "$root" "$work/esp.img"
    cp "$work/root.img" "$work/slot-a.img"
    truncate -s "${ROOT_SLOT_MIB}M" "$work/slot-a.img"
    truncate -s "${ROOT_SLOT_MIB}M" "$work/slot-b.img"
    # The data filesystem's root is /var/lib/grandstand: owned by the service user, as the tree's
    # StateDirectory would be.
    mkdir -p "$work/data"
    local owner
    owner=$(awk -F: '$1 == "grandstand" { print $3 ":" $4 }' "$root/etc/passwd")
    [ -z "$owner" ] || chown "$owner" "$work/data"
    chmod 0755 "$work/data"
    touch -d "@$SOURCE_DATE_EPOCH" "$work/data"
    make_ext4 "$work/data" "$work/data.img" grandstand-data "$(uuid data-fs)" "$DATA_MIB"
    # EFI System, then "Linux root (ARM-64)" twice, then "Linux filesystem".
    assemble "$img" gpt "$DISK_UUID" \
        "$work/esp.img" C12A7328-F81F-11D2-BA4B-00A0C93EC93B "$ESP_PARTUUID" \
        "$work/slot-a.img" B921B045-1DF0-41C3-AF44-4C6F280D3FAE "$ROOT_PARTUUID" \
        "$work/slot-b.img" B921B045-1DF0-41C3-AF44-4C6F280D3FAE "$B_PARTUUID" \
        "$work/data.img" 0FC63DAF-8483-4772-8E79-3D69D8477DE4 "$DATA_PARTUUID"
    for slot in 1:esp 2:rootfs.0 3:rootfs.1 4:data; do
        sfdisk --no-reread --no-tell-kernel -q --part-label "$img" "${slot%%:*}" "${slot#*:}"
    done
    cp "$work/root.img" "${img%.img}.rootfs.ext4"
    rm -f "${img%.img}.vmlinuz" "${img%.img}.initrd" "${img%.img}.cmdline"   # direct-boot files of the old layout
}

# The ESP: GRUB built for arm64-efi in the tree's chroot (grub-mkimage from the tree's own
# grub-common, its own modules), its grub.cfg and an initial grubenv (slot A good, B empty).
make_esp() {
    local root=$1 img=$2 stage f
    stage=$(dirname "$img")/esp
    rm -rf "$stage" "$img"
    mkdir -p "$stage/EFI/BOOT"
    binfmt_require
    # shellcheck disable=SC2016
    root_ns "$root" --chroot grub-mkimage -O arm64-efi -p /EFI/BOOT -o /tmp/BOOTAA64.EFI \
        part_gpt fat ext2 normal linux configfile loadenv test regexp echo search cat true sleep reboot
    binfmt_cleanup
    trap - EXIT
    mv "$root/tmp/BOOTAA64.EFI" "$stage/EFI/BOOT/BOOTAA64.EFI"
    sed -e "s|@CMDLINE@|$(board_cmdline)|" -e "s/@A_PARTUUID@/$ROOT_PARTUUID/" -e "s/@B_PARTUUID@/$B_PARTUUID/" \
        "$board_dir/grub.cfg" > "$stage/EFI/BOOT/grub.cfg"
    grubenv ORDER="A B" A_OK=1 A_TRY=0 B_OK=0 B_TRY=0 > "$stage/EFI/BOOT/grubenv"
    # GRUB's own copy of the last readable state (grub.cfg): only GRUB writes it, in place.
    cp "$stage/EFI/BOOT/grubenv" "$stage/EFI/BOOT/grubenv.bak"
    find "$stage" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
    truncate -s "${ESP_MIB}M" "$img"
    mkfs.vfat -F 32 -n GS-ESP --invariant -i "$ESP_VOLID" "$img" >/dev/null 2>&1 ||
        mkfs.vfat -F 32 -n GS-ESP -i "$ESP_VOLID" "$img" >/dev/null
    for f in "$stage"/*; do
        MTOOLS_SKIP_CHECK=1 mcopy -s -m -o -i "$img" "$f" ::
    done
    rm -rf "$stage"
}

# A GRUB environment block (what grub-editenv writes): a header, NAME=VALUE lines, '#' to 1024 bytes.
grubenv() {
    local body
    body=$(printf '# GRUB Environment Block\n'; printf '%s\n' "$@")
    printf '%s\n' "$body"
    head -c $((1024 - ${#body} - 1)) /dev/zero | tr '\0' '#'
}
