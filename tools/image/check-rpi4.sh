#!/usr/bin/env bash
# shellcheck disable=SC2015 # `test && ok || bad`: ok only echoes
# make image-check: structural checks of the rpi4 image, read from the file without mounting
# (sfdisk for the table, mtools for the FAT boot partition, debugfs for the ext4 root):
# the A/B partition table, autoboot.txt, boot files, each boot partition's cmdline.txt (root=,
# rauc.slot=), fstab, RAUC's system.conf and the rauc-tryboot backend, the data partition, unit
# enabled, overlay applied, no per-device identity baked in, the tryboot module for the image's kernel.
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

# Partition table (board/rpi4/layout.sh): MBR; p1 the bootable FAT16 autoboot partition; p2/p3
# FAT32 LBA boot partitions of slot A/B; p4 extended; p5/p6 Linux root slots; p7 Linux data.
dump=$(sfdisk --dump "$img")
label=$(sed -n 's/^label: //p' <<< "$dump")
disk_id=$(sed -n 's/^label-id: 0x//p' <<< "$dump")
[ "$label" = dos ] && ok "MBR partition table (disk id $disk_id)" || bad "partition table is '$label', not dos"
pline() { grep -E "^[^ ]+[^0-9]$1 :" <<< "$dump" || true; }
psize() { pline "$1" | sed -E 's/.*size= *([0-9]+).*/\1/'; }   # sectors
ptype() {   # ptype N TYPE WHAT: partition N has TYPE, and is bootable when it is p1 (only p1 is)
    local l boot=no want=no
    l=$(pline "$1")
    [[ $l == *bootable* ]] && boot=yes
    [ "$1" = 1 ] && want=yes
    if [[ $l =~ type=$2(,|$) ]] && [ "$boot" = "$want" ]; then ok "p$1 is $3"; else bad "p$1 ($3): $l"; fi
}
ptype 1 e "the bootable FAT16 autoboot partition"
ptype 2 c "slot A's FAT32 boot partition"
ptype 3 c "slot B's FAT32 boot partition"
ptype 4 5 "the extended partition"
ptype 5 83 "slot A's root partition"
ptype 6 83 "slot B's root partition"
ptype 7 83 "the data partition"
[ "$(pline 8)" = "" ] && ok "no eighth partition" || bad "unexpected $(pline 8)"
[ "$(psize 2)" = "$(psize 3)" ] && [ "$(psize 2)" -eq $((256 << 11)) ] && ok "boot partitions 256 MiB each" || bad "boot partition sizes $(psize 2), $(psize 3)"
[ "$(psize 5)" = "$(psize 6)" ] && [ "$(psize 5)" -ge $((1024 << 11)) ] && ok "root slots equal, $(( $(psize 5) >> 11 )) MiB each" || bad "root slot sizes $(psize 5), $(psize 6)"
ext_end=$(( $(pline 4 | sed -E 's/.*start= *([0-9]+).*/\1/') + $(psize 4) ))
p7_end=$(( $(pline 7 | sed -E 's/.*start= *([0-9]+).*/\1/') + $(psize 7) ))
[ "$p7_end" -le "$ext_end" ] && ok "p5-p7 inside the extended partition" || bad "p7 ends at $p7_end, past the extended partition ($ext_end)"
part() {   # part N FILE: copies partition N out of the image
    dd if="$img" of="$2" bs=512 skip="$(pline "$1" | sed -E 's/.*start= *([0-9]+).*/\1/')" count="$(psize "$1")" status=none
}
part 1 "$tmp/autoboot.img"
part 2 "$tmp/boot.img"
part 3 "$tmp/boot-b.img"
part 5 "$tmp/root.img"
part 6 "$tmp/root-b.img"
part 7 "$tmp/data.img"

# autoboot.txt: slot A (p2) committed, nothing armed (the firmware's tryboot: board/rpi4/README.md).
export MTOOLS_SKIP_CHECK=1
[ "$(blkid -p -s TYPE -o value "$tmp/autoboot.img")" = vfat ] && ok "p1 holds a FAT file system" || bad "p1 is not FAT"
autoboot=$(mtype -i "$tmp/autoboot.img" ::autoboot.txt 2>/dev/null | tr -d '\r' || true)
[ "$autoboot" = "$(printf '%s\n' '[all]' tryboot_a_b=1 boot_partition=2 '[tryboot]' boot_partition=2)" ] &&
    ok "autoboot.txt: tryboot_a_b=1, slot A (p2) committed, nothing armed" || bad "autoboot.txt: $autoboot"

# Slot A's boot partition: firmware, kernel, initramfs, device tree, config.txt, cmdline.txt.
files=$(mdir -b -i "$tmp/boot.img" :: | sed 's|^::/||')
for f in start4.elf fixup4.dat config.txt cmdline.txt vmlinuz initrd.img bcm2711-rpi-4-b.dtb; do
    grep -qx "$f" <<< "$files" && ok "boot partition A has $f" || bad "boot partition A lacks $f"
done
cmdline=$(mtype -i "$tmp/boot.img" ::cmdline.txt)
[[ " $cmdline " == *" root=PARTUUID=$disk_id-05 "* ]] && ok "cmdline.txt A: root=PARTUUID=$disk_id-05" || bad "cmdline.txt A: $cmdline"
[[ " $cmdline " == *" rauc.slot=A "* ]] && ok "cmdline.txt A: rauc.slot=A" || bad "cmdline.txt A has no rauc.slot=A: $cmdline"
[[ " $cmdline " == *" rw "* ]] && ok "cmdline.txt A: root mounted rw (not in fstab)" || bad "cmdline.txt A: no rw: $cmdline"
config=$(mtype -i "$tmp/boot.img" ::config.txt)
grep -q '^arm_64bit=1' <<< "$config" && grep -q '^kernel=vmlinuz' <<< "$config" && ok "config.txt: 64-bit, kernel=vmlinuz" || bad "config.txt: $config"
# Slot B: empty until the first update writes it (rauc-tryboot then writes its cmdline.txt).
[ -z "$(blkid -p -s TYPE -o value "$tmp/boot-b.img" 2>/dev/null)" ] && ok "boot partition B empty" || bad "boot partition B holds a file system"
[ -z "$(blkid -p -s TYPE -o value "$tmp/root-b.img" 2>/dev/null)" ] && ok "root slot B empty" || bad "root slot B holds a file system"
[ "$(blkid -p -s TYPE -o value "$tmp/data.img")" = ext4 ] && [ "$(blkid -p -s LABEL -o value "$tmp/data.img")" = grandstand-data ] &&
    ok "p7: ext4 grandstand-data" || bad "p7: $(blkid -p "$tmp/data.img")"
data_root=$(debugfs -R "stat /" "$tmp/data.img" 2>/dev/null | sed -n 's/.*User: *\([0-9]*\).*/\1/p')
[ -n "$data_root" ] && [ "$data_root" != 0 ] && ok "data partition's root owned by the service user (uid $data_root)" || bad "data partition root owner: '$data_root'"

# Root filesystem, read with debugfs.
rcat() { debugfs -R "cat $1" "$tmp/root.img" 2>/dev/null; }
rexists() { debugfs -R "stat $1" "$tmp/root.img" 2>&1 | grep -q '^Inode:'; }
rlink() { debugfs -R "stat $1" "$tmp/root.img" 2>/dev/null | sed -n 's/^Fast link dest: "\(.*\)"$/\1/p'; }
fstab=$(rcat /etc/fstab)
grep -qE "^[^#].*[[:space:]]/[[:space:]]" <<< "$fstab" && bad "fstab mounts / (either slot holds this tree): $fstab" || ok "fstab leaves / to cmdline.txt"
grep -qE "^PARTUUID=$disk_id-01[[:space:]]+/boot/autoboot[[:space:]]+vfat" <<< "$fstab" && ok "fstab: /boot/autoboot on PARTUUID=$disk_id-01" || bad "fstab autoboot: $fstab"
grep -qE "^PARTUUID=$disk_id-07[[:space:]]+/var/lib/grandstand[[:space:]]+ext4" <<< "$fstab" && ok "fstab: /var/lib/grandstand on PARTUUID=$disk_id-07" || bad "fstab data: $fstab"
expect "mount point /boot/autoboot" rexists /boot/autoboot
# RAUC: system.conf as board/rpi4/system.conf, its slots the partitions above; the keyring; the
# backend executable; the reboot that carries '0 tryboot'.
conf=$(rcat /etc/rauc/system.conf)
[ "$conf" = "$(cat "$(dirname "$0")/../../board/rpi4/system.conf")" ] && ok "/etc/rauc/system.conf is board/rpi4/system.conf" || bad "/etc/rauc/system.conf differs from board/rpi4/system.conf"
slots=$(awk -F= '/^\[slot\./ { s = $0 } /^device=/ { print s, $2 } /^bootname=/ { print s, "bootname", $2 } /^parent=/ { print s, "parent", $2 }' <<< "$conf" | xargs)
[ "$slots" = "[slot.boot.0] /dev/mmcblk0p2 [slot.boot.0] parent rootfs.0 [slot.boot.1] /dev/mmcblk0p3 [slot.boot.1] parent rootfs.1 [slot.rootfs.0] /dev/mmcblk0p5 [slot.rootfs.0] bootname A [slot.rootfs.1] /dev/mmcblk0p6 [slot.rootfs.1] bootname B" ] &&
    ok "system.conf slots: boot p2/p3, root p5 (A)/p6 (B)" || bad "system.conf slots: $slots"
grep -qx 'bootloader=custom' <<< "$conf" && grep -qx 'bootloader-custom-backend=/usr/libexec/grandstand-image/rauc-tryboot' <<< "$conf" &&
    ok "system.conf: custom backend rauc-tryboot" || bad "system.conf backend"
expect "keyring installed" bash -c "debugfs -R 'cat /etc/rauc/keyring.pem' '$tmp/root.img' 2>/dev/null | grep -q 'BEGIN CERTIFICATE'"
mode=$(debugfs -R "stat /usr/libexec/grandstand-image/rauc-tryboot" "$tmp/root.img" 2>/dev/null | sed -n 's/.*Mode: *\([0-7]*\).*/\1/p')
[ "$mode" = 0755 ] && ok "rauc-tryboot installed, mode 0755" || bad "rauc-tryboot mode '$mode'"
[ "$(rcat /usr/libexec/grandstand-image/rauc-tryboot)" = "$(cat "$(dirname "$0")/../../board/rpi4/overlay/usr/libexec/grandstand-image/rauc-tryboot")" ] &&
    ok "rauc-tryboot is the board's" || bad "rauc-tryboot differs from board/rpi4/overlay"
expect "rauc installed" rexists /usr/bin/rauc
rcat /usr/libexec/grandstand-image/update-reboot | grep -q "reboot '0 tryboot'" && ok "update-reboot reboots with '0 tryboot' when armed" || bad "update-reboot lacks '0 tryboot'"
expect "grandstand-update-reboot.path enabled" rexists /etc/systemd/system/paths.target.wants/grandstand-update-reboot.path
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

# The tryboot reboot flag for Debian's kernel (board/rpi4/tryboot-module): grandstand_tryboot.ko
# built for the image's own kernel (vermagic), in updates/, known to depmod, loaded at boot; every
# symbol it needs exported by the kernel itself with the CRC it was built against (depmod -e);
# nothing of its build chroot in the image.
kver=$(debugfs -R 'ls -p /usr/lib/modules' "$tmp/root.img" 2>/dev/null | awk -F/ '$6 ~ /-arm64$/ { print $6 }' | head -n1)
ko=/usr/lib/modules/$kver/updates/grandstand_tryboot.ko
base=$tmp/modules/lib/modules/$kver
mkdir -p "$base/updates"
debugfs -R "dump $ko $base/updates/grandstand_tryboot.ko" "$tmp/root.img" >/dev/null 2>&1 || true
if [ -n "$kver" ] && [ -s "$base/updates/grandstand_tryboot.ko" ]; then
    ok "grandstand_tryboot.ko in /usr/lib/modules/$kver/updates"
    vermagic=$(modinfo -F vermagic "$base/updates/grandstand_tryboot.ko" 2>/dev/null || true)
    [ "${vermagic%% *}" = "$kver" ] && ok "grandstand_tryboot vermagic: $vermagic" || bad "grandstand_tryboot vermagic '$vermagic', kernel $kver"
    # The whole vermagic (SMP, preempt model, modversions) as the kernel's own modules have it.
    deps=$(rcat "/usr/lib/modules/$kver/modules.dep")
    stock=$(grep -o -m1 '^kernel/[^:]*/brcmfmac\.ko[^:]*' <<< "$deps" || true)
    debugfs -R "dump /usr/lib/modules/$kver/$stock $tmp/stock.ko${stock##*.ko}" "$tmp/root.img" >/dev/null 2>&1 || true
    stock_magic=$(modinfo -F vermagic "$tmp/stock.ko${stock##*.ko}" 2>/dev/null || true)
    [ -n "$stock_magic" ] && [ "$vermagic" = "$stock_magic" ] && ok "grandstand_tryboot vermagic = the kernel's own modules' (brcmfmac)" ||
        bad "grandstand_tryboot vermagic '$vermagic', brcmfmac's '$stock_magic'"
    [ "$(modinfo -F license "$base/updates/grandstand_tryboot.ko" 2>/dev/null)" = GPL ] && ok "grandstand_tryboot license GPL (GPL-only exports)" || bad "grandstand_tryboot license"
    [ -z "$(modinfo -F depends "$base/updates/grandstand_tryboot.ko" 2>/dev/null)" ] && ok "grandstand_tryboot depends on no other module" || bad "grandstand_tryboot depends on $(modinfo -F depends "$base/updates/grandstand_tryboot.ko")"
    grep -qx 'updates/grandstand_tryboot.ko:' <<< "$deps" && ok "depmod ran for $kver: modules.dep lists updates/grandstand_tryboot.ko" || bad "modules.dep of $kver lacks updates/grandstand_tryboot.ko"
    # depmod -e: symbols it needs that the kernel does not export, or exports with another CRC
    # (modversions). Debian's /boot/System.map is a stub (the real one is in the -dbg package), so
    # against the kernel's Module.symvers: linux-headers-KVER's, kept beside the module in the
    # image cache by its build (board/rpi4/tryboot-module/build.sh), or KERNEL_SYMVERS. Only this
    # module is in the base, so a symbol of another module counts as unresolved too. The same run
    # with rpi_firmware_property's CRC changed must complain (the check can fail).
    symvers=${KERNEL_SYMVERS:-$(find "${GRANDSTAND_CACHE:-$(dirname "$0")/../../.cache}/image" -maxdepth 1 -name "tryboot-$kver-*.symvers" 2>/dev/null | head -n1)}
    : > "$base/modules.order"; : > "$base/modules.builtin"
    if [ -s "$symvers" ]; then
        grep -qE '^0x[0-9a-f]+[[:space:]]+rpi_firmware_property[[:space:]]+vmlinux[[:space:]]+EXPORT_SYMBOL_GPL' "$symvers" &&
            ok "Module.symvers of $kver: rpi_firmware_property built in, GPL-only" || bad "$symvers: no built-in rpi_firmware_property"
        unresolved=$(depmod -n -e -E "$symvers" -b "$tmp/modules" "$kver" 2>&1 >/dev/null || true)
        [ -z "$unresolved" ] && ok "depmod -e -E Module.symvers of $kver: grandstand_tryboot resolves, CRCs match" || bad "depmod -e: $unresolved"
        sed -E 's/^0x[0-9a-f]+([[:space:]]+rpi_firmware_property[[:space:]])/0x00000001\1/' "$symvers" > "$tmp/Module.symvers.bad"
        depmod -n -e -E "$tmp/Module.symvers.bad" -b "$tmp/modules" "$kver" 2>&1 >/dev/null | grep -q 'version of symbol rpi_firmware_property' &&
            ok "depmod -e reports a CRC mismatch (control)" || bad "depmod -e missed rpi_firmware_property's CRC changed"
    else
        bad "no Module.symvers of $kver (KERNEL_SYMVERS, or tryboot-$kver-*.symvers in the image cache: build the image first)"
    fi
else
    bad "no grandstand_tryboot.ko for the image's kernel '$kver'"
fi
rcat /etc/modules-load.d/grandstand-tryboot.conf | grep -qx grandstand_tryboot && ok "modules-load.d loads grandstand_tryboot at boot" || bad "no /etc/modules-load.d/grandstand-tryboot.conf entry"
build_pkgs=$(awk '/^Package: / { p = $2 } /^Status: .* installed$/ && p ~ /^(linux-headers-|linux-kbuild-|(gcc|cpp|binutils)(-[0-9]+)?$|make$)/ { print p }' <<< "$dpkg_status" | xargs)
[ -z "$build_pkgs" ] && ok "no compiler or kernel headers in the image (the module's build chroot stays out)" || bad "build packages in the image: $build_pkgs"
debugfs -R "ls -p /usr/src" "$tmp/root.img" 2>/dev/null | grep -q 'linux-headers' && bad "kernel headers in /usr/src" || ok "no kernel headers in /usr/src"
if [ "$fails" -gt 0 ]; then echo "image-check: $fails check(s) failed for $img" >&2; exit 1; fi
echo "image-check: all checks passed for $img"
