#!/usr/bin/env bash
# Makes a dpkg admin directory describing the arm64 sysroot (cross/make-sysroot.sh extracts its
# .debs with dpkg-deb -x, so it has no dpkg database): a status entry, the file list (with the
# sysroot prefix, so `dpkg-query --search` finds the libraries where dpkg-shlibdeps sees them)
# and the shlibs/symbols control files of every .deb. dpkg-shlibdeps --admindir=DIR then
# computes the trixie arm64 Depends exactly as on a trixie arm64 system.
# usage: shlibs-admindir.sh DEBS_DIR SYSROOT OUT_DIR
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 DEBS_DIR SYSROOT OUT_DIR" >&2; exit 2; }
debs=$1 sysroot=${2%/} out=$3
stamp=$out/inputs
want=$(find "$debs" -maxdepth 1 -name "*.deb" -printf "%f %s\n" | sort | sha256sum | cut -c1-16)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then exit 0; fi
rm -rf "$out"
mkdir -p "$out/info" "$out/updates" "$out/triggers"
: > "$out/status"
printf "amd64\narm64\n" > "$out/arch"
echo 1 > "$out/info/format"   # the multiarch layout: PKG:ARCH.list for Multi-Arch: same
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for deb in "$debs"/*.deb; do
    name=$(dpkg-deb -f "$deb" Package)
    arch=$(dpkg-deb -f "$deb" Architecture)
    multi=$(dpkg-deb -f "$deb" Multi-Arch)
    key=$name
    [ "$multi" = same ] && key=$name:$arch
    { dpkg-deb -f "$deb"; echo "Status: install ok installed"; echo; } >> "$out/status"
    dpkg-deb --fsys-tarfile "$deb" | tar -t | sed -e 's|^\./|/|' -e 's|/$||' -e '/^$/d' |
        sed "s|^|$sysroot|" > "$out/info/$key.list"
    rm -rf "$tmp/ctl"
    dpkg-deb -e "$deb" "$tmp/ctl"
    for f in shlibs symbols; do
        [ -f "$tmp/ctl/$f" ] && cp "$tmp/ctl/$f" "$out/info/$key.$f"
    done
done
echo "$want" > "$stamp"
