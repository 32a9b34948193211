#!/usr/bin/env bash
# shellcheck disable=SC2015 # `test && ok || bad`: ok only echoes
# The bundles' slot hook (tools/update/slot-hook.sh) on two small trees: the running box (release 1
# as flashed, `record`ed, then changed as a box changes itself) and the slot RAUC just wrote
# (release 2, with new defaults). Every rule of docs/updates.md "What an update keeps" has a row.
# Run by `make image-check`. usage: test-slot-hook.sh
set -euo pipefail
hook=$(cd "$(dirname "$0")" && pwd)/slot-hook.sh
tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/grandstand-slot-hook.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "slot-hook-test: ok   $*"; }
bad() { echo "slot-hook-test: FAIL $*" >&2; fails=$((fails + 1)); }
# release TREE VERSION: a release's /etc as its image ships it.
release() {
    local t=$1 v=$2
    mkdir -p "$t/etc/grandstand" "$t/etc/ssh" "$t/etc/rauc" "$t/etc/systemd/network" "$t/usr/lib" "$t/root"
    echo '{"channels": []}' > "$t/etc/grandstand/config.json"
    echo uninitialized > "$t/etc/machine-id"
    echo grandstand > "$t/etc/hostname"
    echo "Grandstand release $v" > "$t/etc/motd"
    echo "root:x:0:0:root:/root:/bin/sh" > "$t/etc/passwd"
    [ "$v" = 1 ] || echo "_grandstand2:x:990:990::/nonexistent:/usr/sbin/nologin" >> "$t/etc/passwd"
    echo "keyring of release $v" > "$t/etc/rauc/keyring.pem"
    echo "[Match]" > "$t/etc/systemd/network/20-uplink.network"
    echo "default $v" > "$t/etc/name with space.conf"
    ln -s /usr/share/zoneinfo/Etc/UTC "$t/etc/localtime"
}

release "$tmp/box" 1
"$hook" record "$tmp/box"
list=$tmp/box/usr/lib/grandstand-image/etc.sha256sums
[ -s "$list" ] && grep -q $'\tetc/grandstand/config.json$' "$list" && ok "record lists /etc" || bad "record: $(cat "$list" 2>&1)"
# The box makes itself its own.
echo '{"channels": [{"id": "venue"}]}' > "$tmp/box/etc/grandstand/config.json"
echo 0123456789abcdef0123456789abcdef > "$tmp/box/etc/machine-id"
echo box-17 > "$tmp/box/etc/hostname"
echo "ed25519 host key" > "$tmp/box/etc/ssh/ssh_host_ed25519_key"
chmod 600 "$tmp/box/etc/ssh/ssh_host_ed25519_key"
echo "[Match]" > "$tmp/box/etc/systemd/network/10-static.network"
ln -sfn /usr/share/zoneinfo/Europe/Berlin "$tmp/box/etc/localtime"
echo "box's own" > "$tmp/box/etc/name with space.conf"
echo "operator:x:1000:1000::/home/operator:/bin/sh" >> "$tmp/box/etc/passwd"
echo "keyring changed on the box" > "$tmp/box/etc/rauc/keyring.pem"
touch "$tmp/box/etc/.updated"
mkdir -p "$tmp/box/root/.ssh" && echo "ssh-ed25519 AAAA operator" > "$tmp/box/root/.ssh/authorized_keys"
# Release 2 as RAUC wrote it into the other slot.
release "$tmp/slot" 2
echo "release 2 ships a new network file" > "$tmp/slot/etc/systemd/network/10-static.network"

out=$(GRANDSTAND_HOOK_ROOT=$tmp/box RAUC_SLOT_CLASS=rootfs RAUC_SLOT_MOUNT_POINT=$tmp/slot "$hook" slot-post-install 2>&1) ||
    bad "the hook failed: $out"
same() { cmp -s "$tmp/$2/$1" "$tmp/slot/$1" && ok "$3" || bad "$3: /$1 is '$(cat "$tmp/slot/$1" 2>&1)'"; }
same etc/grandstand/config.json box "changed config.json kept"
same etc/machine-id box "machine id kept"
same etc/hostname box "hostname kept"
same etc/ssh/ssh_host_ed25519_key box "added SSH host key kept"
[ "$(stat -c %a "$tmp/slot/etc/ssh/ssh_host_ed25519_key")" = 600 ] && ok "its mode kept" || bad "host key mode $(stat -c %a "$tmp/slot/etc/ssh/ssh_host_ed25519_key")"
[ "$(readlink "$tmp/slot/etc/localtime")" = /usr/share/zoneinfo/Europe/Berlin ] && ok "changed symlink kept" || bad "localtime -> $(readlink "$tmp/slot/etc/localtime")"
same "etc/name with space.conf" box "a changed file whose name has a space kept"
same root/.ssh/authorized_keys box "/root/.ssh kept"
grep -q "release 2" "$tmp/slot/etc/motd" && ok "an unchanged default takes the new release's" || bad "motd: $(cat "$tmp/slot/etc/motd")"
grep -q _grandstand2 "$tmp/slot/etc/passwd" && ! grep -q operator "$tmp/slot/etc/passwd" && ok "accounts are the new release's" || bad "passwd: $(cat "$tmp/slot/etc/passwd")"
grep -q "release 2" "$tmp/slot/etc/rauc/keyring.pem" && ok "RAUC's keyring is the new release's" || bad "keyring: $(cat "$tmp/slot/etc/rauc/keyring.pem")"
grep -q "release 2 ships" "$tmp/slot/etc/systemd/network/10-static.network" && ok "a file the box added that the new release ships is the release's" || bad "10-static: $(cat "$tmp/slot/etc/systemd/network/10-static.network")"
[ ! -e "$tmp/slot/etc/.updated" ] && ok "per-boot files are not carried" || bad "etc/.updated carried"
grep -q "kept changed /etc/grandstand/config.json" <<< "$out" && ok "the hook says what it kept" || bad "output: $out"
# Other slot classes (rpi4's boot partition) are untouched; an unknown hook fails.
rm -rf "$tmp/boot" && mkdir "$tmp/boot"
GRANDSTAND_HOOK_ROOT=$tmp/box RAUC_SLOT_CLASS=boot RAUC_SLOT_MOUNT_POINT=$tmp/boot "$hook" slot-post-install &&
    [ -z "$(ls -A "$tmp/boot")" ] && ok "a boot slot is left alone" || bad "boot slot: $(ls -A "$tmp/boot")"
"$hook" slot-pre-install 2>/dev/null && bad "an unknown hook succeeded" || ok "an unknown hook fails"
# A box flashed before the record existed keeps its identity and config.
release "$tmp/old" 1 && echo 0123456789abcdef0123456789abcdef > "$tmp/old/etc/machine-id"
echo '{"old": true}' > "$tmp/old/etc/grandstand/config.json"
rm -rf "$tmp/slot" && release "$tmp/slot" 2
GRANDSTAND_HOOK_ROOT=$tmp/old RAUC_SLOT_CLASS=rootfs RAUC_SLOT_MOUNT_POINT=$tmp/slot "$hook" slot-post-install >/dev/null 2>&1 ||
    bad "the hook failed without a record"
same etc/machine-id old "without a record: machine id kept"
same etc/grandstand/config.json old "without a record: config.json kept"
grep -q "release 2" "$tmp/slot/etc/motd" && ok "without a record: the rest is the new release's" || bad "motd: $(cat "$tmp/slot/etc/motd")"
[ "$fails" -eq 0 ] || { echo "slot-hook-test: $fails failed" >&2; exit 1; }
echo "slot-hook-test: all passed"
