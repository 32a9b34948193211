#!/usr/bin/env bash
# make bundle BOARD=NAME: a signed RAUC bundle (verity format) of the board's root filesystem,
# the very ext4 the image's slot A holds (tools/image/build.sh leaves it beside the image as
# grandstand-BOARD.rootfs.ext4), and, for a board whose slots have a boot partition each (rpi4:
# slot class boot in its system.conf), slot A's boot partition (grandstand-BOARD.boot.vfat beside
# it). docs/updates.md.
#   bundle.sh [--keys DIR] [--version V] BOARD ROOTFS_EXT4 OUT.raucb
# --keys: a directory with signing.cert.pem, signing.key.pem and ca.cert.pem (default:
# tools/update/keys.sh: the development CA of this cache, or GRANDSTAND_UPDATE_KEYS).
# --version: the bundle's version (default: VERSION). The payload is reproducible
# (SOURCE_DATE_EPOCH for mksquashfs); the CMS signature carries its signing time.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
keys= version=
while [ $# -gt 0 ]; do
    case $1 in
    --keys) keys=$2; shift 2 ;;
    --version) version=$2; shift 2 ;;
    *) break ;;
    esac
done
[ $# -eq 3 ] || { echo "usage: $0 [--keys DIR] [--version V] BOARD ROOTFS_EXT4 OUT.raucb" >&2; exit 2; }
board=$1 rootfs=$2 out=$3
conf=$repo/board/$board/system.conf
[ -f "$conf" ] || { echo "bundle.sh: board $board has no system.conf" >&2; exit 1; }
[ -f "$rootfs" ] || { echo "bundle.sh: no $rootfs (make image BOARD=$board)" >&2; exit 1; }
[ -n "$keys" ] || keys=$("$here/keys.sh")
[ -n "$version" ] || version=$(cat "$repo/VERSION")
compatible=$(sed -n 's/^compatible=//p' "$conf")
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$repo" log -1 --format=%ct)}
work=$(mktemp -d "${TMPDIR:-/var/tmp}/grandstand-bundle.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/content"
# A hard link when the file system allows (1.2 GB), a copy otherwise.
ln "$rootfs" "$work/content/rootfs.ext4" 2>/dev/null || cp --sparse=always "$rootfs" "$work/content/rootfs.ext4"
# The slot hook carries the box's own /etc into the new slot (docs/updates.md "What an update keeps").
install -m 0755 "$here/slot-hook.sh" "$work/content/hook"
boot_image=
if grep -q '^\[slot\.boot\.' "$conf"; then
    boot=${rootfs%.rootfs.ext4}.boot.vfat
    [ -f "$boot" ] || { echo "bundle.sh: no $boot (make image BOARD=$board)" >&2; exit 1; }
    ln "$boot" "$work/content/boot.vfat" 2>/dev/null || cp "$boot" "$work/content/boot.vfat"
    boot_image=$'\n[image.boot]\nfilename=boot.vfat'
fi
cat > "$work/content/manifest.raucm" <<MANIFEST
[update]
compatible=$compatible
version=$version
build=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y%m%d%H%M%S)
description=Grandstand $version for $board

[bundle]
format=verity

[hooks]
filename=hook

[image.rootfs]
filename=rootfs.ext4
hooks=post-install$boot_image
MANIFEST
touch -d "@$SOURCE_DATE_EPOCH" "$work/content" "$work/content/manifest.raucm" "$work/content/hook"
rm -f "$out"
# BUNDLE_MKSQUASHFS_ARGS: extra mksquashfs options (the VM harness: -processors 1).
rauc bundle --cert "$keys/signing.cert.pem" --key "$keys/signing.key.pem" --keyring "$keys/ca.cert.pem" \
    ${BUNDLE_MKSQUASHFS_ARGS:+--mksquashfs-args="$BUNDLE_MKSQUASHFS_ARGS"} "$work/content" "$out" >&2
echo "bundle.sh: $out: $compatible $version, $(du -h --apparent-size "$out" | cut -f1)" >&2
