#!/usr/bin/env bash
# make deb-check: lintian reports no errors on each package (warnings are printed and listed in
# docs/flashing.md), and each package holds what the product needs: the binary for its
# architecture, the unit, the conffile, udev/sysusers/tmpfiles files, the man page, maintainer
# scripts, and Depends on the libraries it links (trixie names for arm64).
# usage: check-deb.sh DEB...
set -euo pipefail
fail=0
bad() { echo "deb-check: FAIL $deb: $*" >&2; fail=1; }
for deb in "$@"; do
    [ -f "$deb" ] || { echo "deb-check: no $deb" >&2; exit 1; }
    arch=$(dpkg-deb -f "$deb" Architecture)
    files=$(dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|')
    for f in /usr/bin/grandstand /usr/lib/systemd/system/grandstand.service /etc/grandstand/config.json \
             /usr/lib/udev/rules.d/60-grandstand-gpio.rules /usr/lib/sysusers.d/grandstand.conf \
             /usr/lib/tmpfiles.d/grandstand.conf /usr/share/man/man8/grandstand.8.gz \
             /usr/share/doc/grandstand/copyright /usr/share/doc/grandstand/changelog.gz \
             /usr/share/grandstand/boards/rpi4.json /usr/lib/grandstand/fleet-journal-upload \
             /usr/lib/systemd/system/systemd-journal-upload.service.d/grandstand.conf; do
        grep -qx "$f" <<< "$files" || bad "missing $f"
    done
    ctl=$(mktemp -d)
    dpkg-deb -e "$deb" "$ctl"
    grep -qx /etc/grandstand/config.json "$ctl/conffiles" || bad "config.json is not a conffile"
    for s in postinst prerm postrm; do [ -x "$ctl/$s" ] || bad "no $s"; done
    rm -rf "$ctl"
    depends=$(dpkg-deb -f "$deb" Depends)
    case $arch in
        arm64) libs="libc6 libpcap0.8t64 libgpiod3 libsystemd0 libavcodec61 libisal2 libnl-genl-3-200 libsrt1.5-openssl libcurl4t64" ;;
        amd64) libs="libc6 libsystemd0 libisal2 libnl-genl-3-200 libsrt1.5-openssl libcurl4" ;;
        *) libs=; bad "unexpected architecture $arch" ;;
    esac
    for l in $libs; do grep -qE "(^|, )$l( |,|$)" <<< "$depends" || bad "Depends lacks $l: $depends"; done
    # libmicrohttpd left the package (issue 19): a Depends on it means a stale link.
    if grep -q libmicrohttpd <<< "$depends"; then bad "Depends still names libmicrohttpd: $depends"; fi
    tree=$(mktemp -d)
    dpkg-deb -x "$deb" "$tree"
    machine=$(od -An -tu2 -j18 -N2 "$tree/usr/bin/grandstand" | tr -d ' ')
    case $arch:$machine in arm64:183|amd64:62) ;; *) bad "binary is ELF machine $machine, not $arch" ;; esac
    zgrep -q '^\.SS run' "$tree/usr/share/man/man8/grandstand.8.gz" || bad "man page lacks the subcommand sections"
    rm -rf "$tree"
    report=$(lintian --tag-display-limit 0 "$deb" 2>&1 | grep -v 'running with root privileges' || true)
    echo "deb-check: lintian $deb:"
    sed 's/^/  /' <<< "$report"
    if grep -q '^E:' <<< "$report"; then bad "lintian errors"; fi
    [ "$fail" -eq 0 ] && echo "deb-check: ok $deb ($(stat -c %s "$deb") bytes; Depends: $depends)"
done
exit "$fail"
