#!/usr/bin/env bash
# Installs grandstand into a root tree the way the product image does: the binary, the
# rootfs-overlay/ files (unit, default config, udev rule, journald and sysusers settings),
# the board description, and the enabled unit. Runs on the build host (no target code runs).
# usage: install-product.sh ROOT BINARY BOARD_JSON
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 ROOT BINARY BOARD_JSON" >&2; exit 2; }
root=$1 binary=$2 board=$3
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
[ -d "$root/etc" ] || { echo "install-product: $root is not a root tree" >&2; exit 1; }

install -D -m 0755 "$binary" "$root/usr/bin/grandstand"
# Copies modes, not the checkout's owner: the files belong to root in the image.
cp -r --preserve=mode "$repo/rootfs-overlay/." "$root/"
install -D -m 0644 "$board" "$root/usr/share/grandstand/board.json"
# Start after the board's GPIO chips are set up by udev (group gpio), not merely present.
chips=$(grep -o '"chip"[[:space:]]*:[[:space:]]*"[^"]*"' "$board" | sed -E 's/.*"([^"]*)"$/\1/' | sort -u)
dropin=$root/etc/systemd/system/grandstand.service.d/board.conf
mkdir -p "$(dirname "$dropin")"
{
    echo "# Written by install-product.sh from the board file: its GPIO chips."
    echo "[Unit]"
    for chip in $chips; do
        echo "Wants=dev-$chip.device"
        echo "After=dev-$chip.device"
    done
} > "$dropin"
# The system user and gpio group now (the image's /etc is current, so sysusers does not run
# at boot), so the unit's User= and the udev rule's GROUP= resolve from the first boot.
systemd-sysusers --root="$root" grandstand.conf
systemctl --root="$root" --quiet enable grandstand.service
