#!/usr/bin/env bash
# The .deb's maintainer scripts without booting: in a copy of an arm64 trixie root tree (the VM
# base, `tools/qemu/vm/vm.py base`), through qemu-user + binfmt_misc, install build N-1, edit the
# config and write state, cache and a queued report, upgrade to N (all kept), remove (kept),
# purge (wiped, unit link gone), reinstall (enabled again). No systemd runs in a chroot, so
# starting and restarting are left to the VM's deb-upgrade check. Needs root.
# usage: test-lifecycle.sh ROOTFS DEB_PREVIOUS DEB
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 ROOTFS DEB_PREVIOUS DEB" >&2; exit 2; }
src=$1 prev=$2 new=$3
# shellcheck source=tools/qemu/vm/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tools/qemu/vm/lib.sh"
binfmt_setup || die "binfmt_misc with qemu-aarch64 is needed"
work=$(mktemp -d "${TMPDIR:-/var/tmp}/grandstand-lifecycle.XXXXXX")
trap 'umount "$work/root/proc" 2>/dev/null || true; rm -rf "$work"; binfmt_cleanup' EXIT
cp -a --reflink=auto "$src" "$work/root"
cp "$prev" "$work/root/tmp/prev.deb"
cp "$new" "$work/root/tmp/new.deb"
mount -t proc proc "$work/root/proc"
# shellcheck disable=SC2016 # the script expands in the chroot
chroot "$work/root" sh -ec '
fail() { echo "lifecycle: FAIL $*" >&2; exit 1; }
dpkg -i /tmp/prev.deb >/dev/null
old=$(dpkg-query -W -f "\${Version}" grandstand)
id grandstand >/dev/null || fail "no user grandstand"
getent group gpio >/dev/null || fail "no group gpio"
[ -L /etc/systemd/system/multi-user.target.wants/grandstand.service ] || fail "unit not enabled"
[ "$(stat -c %a:%G /etc/grandstand)" = 770:grandstand ] || fail "/etc/grandstand is $(stat -c %a:%G /etc/grandstand)"
sed -i "s/\"logLevel\": \"info\"/\"logLevel\": \"debug\"/" /etc/grandstand/config.json
mkdir -p /var/lib/grandstand/reports /var/cache/grandstand
cat /proc/sys/kernel/random/uuid > /var/lib/grandstand/device-uuid
echo "{}" > /var/lib/grandstand/reports/queued.json
echo cached > /var/cache/grandstand/entry
kept="/etc/grandstand/config.json /var/lib/grandstand/device-uuid /var/lib/grandstand/reports/queued.json /var/cache/grandstand/entry"
before=$(sha256sum $kept)
dpkg -i /tmp/new.deb >/dev/null
new=$(dpkg-query -W -f "\${Version}" grandstand)
[ "$new" != "$old" ] || fail "upgrade did not change the version ($old)"
[ "$(sha256sum $kept)" = "$before" ] || fail "upgrade changed kept files"
echo "lifecycle: ok   upgrade $old -> $new kept config, device UUID, queued report, cache"
dpkg -r grandstand >/dev/null
[ "$(sha256sum $kept)" = "$before" ] || fail "remove did not keep config, state and cache"
echo "lifecycle: ok   remove kept config, state and cache"
dpkg -P grandstand >/dev/null
for d in /etc/grandstand /var/lib/grandstand /var/cache/grandstand; do [ ! -e $d ] || fail "purge left $d"; done
[ ! -e /etc/systemd/system/multi-user.target.wants/grandstand.service ] || fail "purge left the unit link"
echo "lifecycle: ok   purge wiped config, state, cache and the unit link"
dpkg -i /tmp/new.deb >/dev/null
[ -L /etc/systemd/system/multi-user.target.wants/grandstand.service ] || fail "reinstall did not enable the unit"
echo "lifecycle: ok   reinstall enabled the unit again"
'
