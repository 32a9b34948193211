#!/usr/bin/env bash
# A bundle read back with `rauc info` (signature checked against the keyring, as a box does): its
# compatible is the board's system.conf's, and it carries one image per slot class the board
# updates (rootfs; boot too where system.conf has boot slots: rpi4), the rootfs one with the slot
# hook that keeps the box's /etc. Run by `make image-check`.
# usage: check-bundle.sh BOARD BUNDLE.raucb
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 BOARD BUNDLE.raucb" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
board=$1 bundle=$2
conf=$here/../../board/$board/system.conf
keys=$("$here/keys.sh")
info=$(rauc info --keyring "$keys/ca.cert.pem" --output-format=shell "$bundle" 2>/dev/null) ||
    { echo "bundle-check: FAIL rauc info refused $bundle" >&2; exit 1; }
want_compatible=$(sed -n 's/^compatible=//p' "$conf")
want_classes=$(sed -n -E 's/^\[slot\.([^.]+)\.[0-9]+\]$/\1/p' "$conf" | sort -u | xargs)
compatible=$(sed -n -E "s/^RAUC_MF_COMPATIBLE='?([^']*)'?$/\1/p" <<< "$info")
classes=$(sed -n -E "s/^RAUC_IMAGE_CLASS_[0-9]+='?([^']*)'?$/\1/p" <<< "$info" | sort -u | xargs)
# The rootfs image runs the slot hook (tools/update/slot-hook.sh: what an update keeps of the box).
rootfs_index=$(sed -n -E "s/^RAUC_IMAGE_CLASS_([0-9]+)='?rootfs'?$/\1/p" <<< "$info")
rootfs_hooks=$(sed -n -E "s/^RAUC_IMAGE_HOOKS_${rootfs_index:-x}='?([^']*)'?$/\1/p" <<< "$info")
# (rauc 1.8's shell output has no format: the text output names it)
format=$(rauc info --keyring "$keys/ca.cert.pem" "$bundle" 2>/dev/null | sed -n -E 's/^Bundle Format:[[:space:]]*([a-z]+).*/\1/p')
fails=0
check() { if [ "$2" = "$3" ]; then echo "bundle-check: ok   $1: $2"; else echo "bundle-check: FAIL $1: '$2', want '$3'" >&2; fails=$((fails + 1)); fi; }
check "compatible" "$compatible" "$want_compatible"
check "images for the slot classes" "$classes" "$want_classes"
check "format" "$format" verity
check "rootfs image hooks" "$rootfs_hooks" post-install
[ "$fails" -eq 0 ] || exit 1
echo "bundle-check: $bundle: signature verified, $(du -h --apparent-size "$bundle" | cut -f1)"
