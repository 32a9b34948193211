#!/usr/bin/env bash
# The .deb's binary and maintainer scripts without booting, in a copy of a root tree of the
# package's architecture (arm64 through qemu-user + binfmt_misc on an x86 host, the host's own
# natively): install build N-1 (user, group, directories, conffile, unit enabled), run the binary
# (--version, --help, a bad config refused with its JSON path), check its shared libraries resolve
# and come from exactly the packages Depends names, edit the config and write state, cache and a
# queued report, upgrade to N (all kept), remove (kept), purge (wiped, unit link gone), reinstall
# (enabled again). No systemd runs in a chroot, so starting and restarting are left to the VM's
# deb-upgrade check. Needs root.
# usage: test-lifecycle.sh [--apt] ROOTFS DEB_PREVIOUS DEB
#   ROOTFS  a root tree (directory, copied) or a tarball of one (extracted): the arm64 trixie VM
#           base (`tools/qemu/vm/vm.py base`), or the host's release (packaging/host-root.sh)
#   --apt   install N-1 with `apt-get install --no-install-recommends ./….deb` from the tree's apt
#           sources (network), and check the packages it pulled are exactly Depends and what they
#           need; without it `dpkg -i` (the tree already holds the libraries)
set -euo pipefail
apt=0
if [ "${1:-}" = --apt ]; then apt=1; shift; fi
[ $# -eq 3 ] || { echo "usage: $0 [--apt] ROOTFS DEB_PREVIOUS DEB" >&2; exit 2; }
src=$1 prev=$2 new=$3
# shellcheck source=tools/lib/roottree.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tools/lib/roottree.sh"   # log, die, binfmt_setup/cleanup, root_ns
LOG_TAG=lifecycle
arch=$(dpkg-deb -f "$new" Architecture)
[ "$(dpkg-deb -f "$prev" Architecture)" = "$arch" ] || die "$prev and $new are for different architectures"
if [ "$arch" != "$(dpkg --print-architecture)" ]; then
    [ "$arch" = arm64 ] || die "no emulation for $arch here (arm64 through qemu-user, or the host's own)"
    binfmt_setup || die "binfmt_misc with qemu-aarch64 is needed"
fi
work=$(mktemp -d "${TMPDIR:-/var/tmp}/grandstand-lifecycle.XXXXXX")
# The mounts live in the chroot's own mount namespace (below): gone before this removal.
trap 'rm -rf "$work"; binfmt_cleanup' EXIT
mkdir "$work/root"
if [ -d "$src" ]; then
    cp -a --reflink=auto "$src/." "$work/root/"
else
    tar -xpf "$src" --numeric-owner -C "$work/root"
fi
# Under their own names: the log shows `apt-get install ./grandstand_…deb` as an operator types it.
mkdir "$work/root/tmp/debs"
cp "$prev" "$new" "$work/root/tmp/debs/"
# What the chroot script compares with: the Depends field, and the binary's NEEDED libraries
# (read on the host: binutils' readelf reads either architecture).
dpkg-deb -f "$new" Depends > "$work/root/tmp/depends"
dpkg-deb --fsys-tarfile "$new" | tar -xO ./usr/bin/grandstand > "$work/grandstand"
readelf -d "$work/grandstand" | sed -n 's/.*(NEEDED).*Shared library: \[\(.*\)\]/\1/p' > "$work/root/tmp/needed"
[ -s "$work/root/tmp/needed" ] || die "readelf found no NEEDED libraries in $new's binary"
[ "$apt" -eq 0 ] || cp /etc/resolv.conf "$work/root/etc/resolv.conf"

# shellcheck disable=SC2016 # the script expands in the chroot
script='
fail() { echo "lifecycle: FAIL $*" >&2; exit 1; }
ok() { echo "lifecycle: ok   $*"; }
installed() { dpkg-query -W -f "\${db:Status-Abbrev} \${Package}\n" | awk "\$1 == \"ii\" { print \$2 }" | sort -u; }
export DEBIAN_FRONTEND=noninteractive
if [ "$APT" = 1 ]; then
    apt-get -q update >/tmp/apt.log 2>&1 || { cat /tmp/apt.log >&2; fail "apt-get update"; }
    installed > /tmp/before
    (cd /tmp/debs && apt-get -q -y --no-install-recommends install "./$PREV") >/tmp/apt.log 2>&1 ||
        { cat /tmp/apt.log >&2; fail "apt-get install ./$PREV"; }
    installed > /tmp/after
    # The Depends names (first of each alternative, no versions), then everything they need.
    tr "," "\n" < /tmp/depends | sed -e "s/|.*//" -e "s/(.*)//" -e "s/ //g" -e "/^$/d" | sort -u > /tmp/declared
    apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces \
        --no-enhances $(cat /tmp/declared) | sed -n "s/^\([^ <][^ ]*\)$/\1/p" | sed "s/:.*//" | sort -u > /tmp/closure
    comm -13 /tmp/before /tmp/after | grep -vx grandstand > /tmp/pulled || true
    missing=$(comm -23 /tmp/declared /tmp/after | tr "\n" " ")
    [ -z "$missing" ] || fail "apt did not install Depends: $missing"
    extra=$(comm -23 /tmp/pulled /tmp/closure | tr "\n" " ")
    [ -z "$extra" ] || fail "apt pulled packages Depends does not need: $extra"
    ok "apt-get install ./$PREV pulled $(wc -l < /tmp/pulled) packages, all Depends ($(tr "\n" " " < /tmp/declared)) or what they need"
else
    dpkg -i "/tmp/debs/$PREV" >/dev/null
fi
old=$(dpkg-query -W -f "\${Version}" grandstand)

# The binary: it runs, its libraries resolve, and they come from exactly the Depends packages.
out=$(grandstand --version) || fail "grandstand --version exited $?"
case $out in "grandstand "*) ;; *) fail "grandstand --version printed: $out" ;; esac
grandstand --help | grep -q "^SUBCOMMANDS:" || fail "grandstand --help lists no subcommands"
grandstand --help | grep -qE "^ +run " || fail "grandstand --help lacks run"
sed "s/\"logLevel\": \"info\"/\"logLevel\": \"chatty\"/" /etc/grandstand/config.json > /tmp/bad.json
rc=0; grandstand run --config /tmp/bad.json > /tmp/run.out 2>&1 || rc=$?
[ "$rc" -eq 78 ] || fail "run with a bad config exited $rc, expected 78 (EX_CONFIG): $(cat /tmp/run.out)"
grep -qF "\$.logLevel: \"chatty\" is not a log level" /tmp/run.out || fail "run with a bad config did not name \$.logLevel: $(cat /tmp/run.out)"
ok "$out; --help; a bad config exits 78 naming \$.logLevel"
ldd /usr/bin/grandstand > /tmp/ldd 2>&1 || fail "ldd: $(cat /tmp/ldd)"
! grep -q "not found" /tmp/ldd || fail "unresolved libraries: $(grep "not found" /tmp/ldd)"
: > /tmp/providers
while read -r soname; do
    # "libfoo.so.1 => /path (addr)", or the loader itself as "/path/ld-linux….so.2 (addr)".
    path=$(awk -v s="$soname" "(\$1 == s && \$2 == \"=>\") { print \$3 } (substr(\$1, length(\$1) - length(s)) == \"/\" s) { print \$1 }" /tmp/ldd | head -n1)
    [ -n "$path" ] || fail "ldd does not show where $soname comes from"
    provider=$(dpkg -S "*/$soname" 2>/dev/null | grep -v "^diversion" | sed -n "s/^\([^:, ]*\).*: .*/\1/p" | head -n1)
    [ -n "$provider" ] || fail "no package ships $soname ($path)"
    echo "$provider" >> /tmp/providers
done < /tmp/needed
sort -u -o /tmp/providers /tmp/providers
libdeps=$(tr "," "\n" < /tmp/depends | sed -e "s/|.*//" -e "s/(.*)//" -e "s/ //g" -e "/^$/d" |
    grep -vx -e systemd -e init-system-helpers | sort -u)
[ "$libdeps" = "$(cat /tmp/providers)" ] ||
    fail "Depends names the libraries of $(echo $libdeps), the binary links those of $(cat /tmp/providers | tr "\n" " ")"
ok "$(wc -l < /tmp/needed) NEEDED libraries resolve, from exactly the Depends packages ($(echo $libdeps))"

# The maintainer scripts: user, group, directories, conffile, unit enabled.
id grandstand >/dev/null || fail "no user grandstand"
getent group gpio >/dev/null || fail "no group gpio"
[ -L /etc/systemd/system/multi-user.target.wants/grandstand.service ] || fail "unit not enabled"
[ "$(stat -c %a:%U:%G /etc/grandstand)" = 770:root:grandstand ] || fail "/etc/grandstand is $(stat -c %a:%U:%G /etc/grandstand)"
[ "$(stat -c %a:%U:%G /etc/grandstand/config.json)" = 660:root:grandstand ] || fail "config.json is $(stat -c %a:%U:%G /etc/grandstand/config.json)"
dpkg-query -W -f "\${Conffiles}\n" grandstand | grep -q "^ /etc/grandstand/config.json " || fail "config.json is not a conffile"
ok "install: user grandstand, group gpio, /etc/grandstand 770 root:grandstand, config.json a 660 conffile, unit enabled"
sed -i "s/\"logLevel\": \"info\"/\"logLevel\": \"debug\"/" /etc/grandstand/config.json
mkdir -p /var/lib/grandstand/reports /var/cache/grandstand
cat /proc/sys/kernel/random/uuid > /var/lib/grandstand/device-uuid
echo "{}" > /var/lib/grandstand/reports/queued.json
echo cached > /var/cache/grandstand/entry
kept="/etc/grandstand/config.json /var/lib/grandstand/device-uuid /var/lib/grandstand/reports/queued.json /var/cache/grandstand/entry"
before=$(sha256sum $kept)
dpkg -i "/tmp/debs/$NEW" >/dev/null
new=$(dpkg-query -W -f "\${Version}" grandstand)
[ "$new" != "$old" ] || fail "upgrade did not change the version ($old)"
[ "$(sha256sum $kept)" = "$before" ] || fail "upgrade changed kept files"
ok "upgrade $old -> $new kept config, device UUID, queued report, cache"
dpkg -r grandstand >/dev/null
[ "$(sha256sum $kept)" = "$before" ] || fail "remove did not keep config, state and cache"
ok "remove kept config, state and cache"
dpkg -P grandstand >/dev/null
for d in /etc/grandstand /var/lib/grandstand /var/cache/grandstand; do [ ! -e $d ] || fail "purge left $d"; done
[ ! -e /etc/systemd/system/multi-user.target.wants/grandstand.service ] || fail "purge left the unit link"
ok "purge wiped config, state, cache and the unit link"
dpkg -i "/tmp/debs/$NEW" >/dev/null
[ -L /etc/systemd/system/multi-user.target.wants/grandstand.service ] || fail "reinstall did not enable the unit"
ok "reinstall enabled the unit again"
'
# Own mount namespace: /proc and /dev vanish with it.
log "lifecycle of $(basename "$prev") -> $(basename "$new") ($arch) in a copy of $src"
root_ns "$work/root" --chroot env PATH=/usr/sbin:/usr/bin:/sbin:/bin \
    APT="$apt" PREV="$(basename "$prev")" NEW="$(basename "$new")" sh -ec "$script"
