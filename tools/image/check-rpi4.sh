#!/usr/bin/env bash
# shellcheck disable=SC2015 # `test && ok || bad`: ok only echoes
# make image-check: structural checks of the rpi4 image, read from the file without mounting
# (sfdisk for the table, mtools for the FAT boot partition, debugfs for the ext4 root):
# partition table, boot files, cmdline.txt root=PARTUUID, fstab, unit enabled, overlay applied,
# no per-device identity baked in.
# usage: check-rpi4.sh IMAGE
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 IMAGE" >&2; exit 2; }
img=$1
fails=0
ok() { echo "image-check: ok   $*"; }
bad() { echo "image-check: FAIL $*" >&2; fails=$((fails + 1)); }
expect() { local what=$1; shift; if "$@" >/dev/null 2>&1; then ok "$what"; else bad "$what"; fi; }
tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/grandstand-imgcheck.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Partition table: MBR, p1 FAT32 (0x0c, bootable), p2 Linux.
dump=$(sfdisk --dump "$img")
label=$(sed -n 's/^label: //p' <<< "$dump")
disk_id=$(sed -n 's/^label-id: 0x//p' <<< "$dump")
[ "$label" = dos ] && ok "MBR partition table (disk id $disk_id)" || bad "partition table is '$label', not dos"
p1=$(grep -E '^[^ ]+1 :' <<< "$dump" || true)
p2=$(grep -E '^[^ ]+2 :' <<< "$dump" || true)
[[ $p1 == *"type=c"* && $p1 == *bootable* ]] && ok "p1 is a bootable FAT32 LBA partition" || bad "p1: $p1"
[[ $p2 == *"type=83"* ]] && ok "p2 is a Linux partition" || bad "p2: $p2"
part() {   # part N FILE: copies partition N out of the image
    local start size
    start=$(grep -E "^[^ ]+$1 :" <<< "$dump" | sed -E 's/.*start= *([0-9]+).*/\1/')
    size=$(grep -E "^[^ ]+$1 :" <<< "$dump" | sed -E 's/.*size= *([0-9]+).*/\1/')
    dd if="$img" of="$2" bs=512 skip="$start" count="$size" status=none
}
part 1 "$tmp/boot.img"
part 2 "$tmp/root.img"

# Boot partition: firmware, kernel, initramfs, device tree, config.txt, cmdline.txt.
export MTOOLS_SKIP_CHECK=1
files=$(mdir -b -i "$tmp/boot.img" :: | sed 's|^::/||')
for f in start4.elf fixup4.dat config.txt cmdline.txt vmlinuz initrd.img bcm2711-rpi-4-b.dtb; do
    grep -qx "$f" <<< "$files" && ok "boot partition has $f" || bad "boot partition lacks $f"
done
cmdline=$(mtype -i "$tmp/boot.img" ::cmdline.txt)
[[ $cmdline == *"root=PARTUUID=$disk_id-02 "* ]] && ok "cmdline.txt: root=PARTUUID=$disk_id-02" || bad "cmdline.txt: $cmdline"
config=$(mtype -i "$tmp/boot.img" ::config.txt)
grep -q '^arm_64bit=1' <<< "$config" && grep -q '^kernel=vmlinuz' <<< "$config" && ok "config.txt: 64-bit, kernel=vmlinuz" || bad "config.txt: $config"
boot_uuid=$(blkid -p -s UUID -o value "$tmp/boot.img")

# Root filesystem, read with debugfs.
rcat() { debugfs -R "cat $1" "$tmp/root.img" 2>/dev/null; }
rexists() { debugfs -R "stat $1" "$tmp/root.img" 2>&1 | grep -q '^Inode:'; }
rlink() { debugfs -R "stat $1" "$tmp/root.img" 2>/dev/null | sed -n 's/^Fast link dest: "\(.*\)"$/\1/p'; }
fstab=$(rcat /etc/fstab)
grep -qE "^PARTUUID=$disk_id-02[[:space:]]+/[[:space:]]+ext4" <<< "$fstab" && ok "fstab: / on PARTUUID=$disk_id-02" || bad "fstab root: $fstab"
grep -qE "^UUID=${boot_uuid}[[:space:]]+/boot/firmware[[:space:]]+vfat" <<< "$fstab" && ok "fstab: /boot/firmware on UUID=$boot_uuid" || bad "fstab boot: $fstab"
expect "grandstand binary installed" rexists /usr/bin/grandstand
# (read whole first: an awk that exits early would SIGPIPE debugfs and fail the pipeline)
dpkg_status=$(rcat /var/lib/dpkg/status)
awk '/^Package: grandstand$/ { p = 1 } p && /^Status:/ { print; p = 0 }' <<< "$dpkg_status" | grep -q 'install ok installed' &&
    ok "package grandstand installed (dpkg status)" || bad "package grandstand not installed"
[ "$(rlink /etc/systemd/system/multi-user.target.wants/grandstand.service)" = /usr/lib/systemd/system/grandstand.service ] &&
    ok "grandstand.service enabled (multi-user.target.wants)" || bad "grandstand.service not enabled"
for u in local-fs.target.wants/grandstand-growroot.service multi-user.target.wants/grandstand-ssh-keys.service; do
    expect "first-boot unit enabled: $u" rexists "/etc/systemd/system/$u"
done
expect "overlay applied: journal-gatewayd socket enabled" rexists /etc/systemd/system/sockets.target.wants/systemd-journal-gatewayd.socket
expect "overlay not shadowing the package's unit" bash -c "! debugfs -R 'stat /etc/systemd/system/grandstand.service' '$tmp/root.img' 2>&1 | grep -q '^Inode:'"
[ "$(rlink /usr/share/grandstand/board.json)" = boards/rpi4.json ] && ok "board.json is the rpi4 board" || bad "board.json -> $(rlink /usr/share/grandstand/board.json)"
rcat /etc/systemd/system/grandstand.service.d/board.conf | grep -qx 'After=dev-gpiochip0.device' && ok "unit waits for gpiochip0" || bad "no board drop-in"
[ "$(rcat /etc/machine-id)" = uninitialized ] && ok "machine id made at first boot" || bad "machine id baked in: $(rcat /etc/machine-id)"
debugfs -R "ls /etc/ssh" "$tmp/root.img" 2>/dev/null | grep -q ssh_host_ && bad "SSH host keys baked in" || ok "no SSH host keys in the image"
expect "kernel modules for brcmfmac (Wi-Fi)" bash -c "debugfs -R 'ls -p /usr/lib/modules' '$tmp/root.img' 2>/dev/null | grep -q arm64"
if [ "$fails" -gt 0 ]; then echo "image-check: $fails check(s) failed for $img" >&2; exit 1; fi
echo "image-check: all checks passed for $img"
