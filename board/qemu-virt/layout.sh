# shellcheck shell=bash disable=SC2034,SC2154 # sourced by tools/image/build.sh: it sets board_dir, reads ROOT_PARTUUID
# The qemu-virt image's layout, sourced by tools/image/build.sh (the functions and variables it
# offers: tools/image/README.md). GPT with the root partition alone; the kernel, initramfs and
# command line beside the image for QEMU's direct kernel boot (-kernel/-initrd/-append:
# tools/qemu/vm/vmlib/board_image.py reads them).

layout_ids() {
    DISK_UUID=$(uuid disk)
    ROOT_PARTUUID=$(uuid root-partition)
}

# layout_image ROOT KVER WORK IMG: IMG and IMG's .vmlinuz, .initrd and .cmdline beside it.
layout_image() {
    local root=$1 kver=$2 work=$3 img=$4
    # Partition type "Linux root (ARM-64)".
    assemble "$img" gpt "$DISK_UUID" "$work/root.img" "B921B045-1DF0-41C3-AF44-4C6F280D3FAE" "$ROOT_PARTUUID"
    cp "$root/boot/vmlinuz-$kver" "${img%.img}.vmlinuz"
    cp "$root/boot/initrd.img-$kver" "${img%.img}.initrd"
    board_cmdline > "${img%.img}.cmdline"
}
