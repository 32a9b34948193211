#!/usr/bin/env bash
# shellcheck disable=SC2015 # `test && ok || bad`: ok only echoes
# The rpi4 image's RAUC backend (board/rpi4/overlay/usr/libexec/grandstand-image/rauc-tryboot)
# against a simulated firmware: a directory as the autoboot partition, one per slot's boot
# partition, a fake /proc/cmdline and tryboot cell. Each "boot" sets what the firmware would:
# the slot autoboot.txt names ([all], or [tryboot] when the reboot asked for it), that slot's
# cmdline.txt as /proc/cmdline, the tryboot flag, and an empty /run. Run by `make image-check`.
# usage: test-rauc-tryboot.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
backend=$here/../../board/rpi4/overlay/usr/libexec/grandstand-image/rauc-tryboot
tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/grandstand-tryboot.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "tryboot-test: ok   $*"; }
bad() { echo "tryboot-test: FAIL $*" >&2; fails=$((fails + 1)); }
export RAUC_TRYBOOT_AUTOBOOT=$tmp/autoboot RAUC_TRYBOOT_CMDLINE=$tmp/cmdline RAUC_TRYBOOT_DT=$tmp/tryboot \
    RAUC_TRYBOOT_RUN=$tmp/run RAUC_TRYBOOT_BOOT_A=$tmp/boot.A RAUC_TRYBOOT_BOOT_B=$tmp/boot.B
disk=1a2b3c4d
mkdir -p "$tmp/autoboot" "$tmp/boot.A" "$tmp/boot.B"
# As the image is flashed (board/rpi4/layout.sh): A committed, B empty.
printf '[all]\ntryboot_a_b=1\nboot_partition=2\n[tryboot]\nboot_partition=2\n' > "$tmp/autoboot/autoboot.txt"
echo "console=tty0 root=PARTUUID=$disk-05 rootfstype=ext4 rootwait ro rauc.slot=A" > "$tmp/boot.A/cmdline.txt"

rt() { "$backend" "$@"; }
# expect WHAT WANT CMD...: CMD's output is WANT.
expect() {
    local what=$1 want=$2 got
    shift 2
    got=$("$@" 2>&1) || got="exit $?: $got"
    [ "$got" = "$want" ] && ok "$what: ${want//$'\n'/ | }" || bad "$what: want '${want//$'\n'/ | }', got '${got//$'\n'/ | }'"
}
# boot tryboot|normal: the firmware's choice, as on a Pi (board/rpi4/README.md).
boot() {
    local section=all flag=0 part slot
    [ "$1" = tryboot ] && { section=tryboot; flag=1; }
    part=$(awk -v want="[$section]" '/^\[/ { s = $0 } s == want && /^boot_partition=/ { sub(/^boot_partition=/, ""); print }' "$tmp/autoboot/autoboot.txt")
    case $part in 2) slot=A ;; 3) slot=B ;; *) bad "autoboot.txt [$section] boot_partition=$part"; return ;; esac
    cp "$tmp/boot.$slot/cmdline.txt" "$tmp/cmdline"
    if [ "$flag" = 1 ]; then printf '\0\0\0\1'; else printf '\0\0\0\0'; fi > "$tmp/tryboot"
    rm -rf "$tmp/run"
}
# An install as RAUC does it (install.c): the target marked bad, its images written, set-primary.
install_b() {
    rt set-state B bad
    echo "console=tty0 root=PARTUUID=0badc0de-05 rootfstype=ext4 rootwait ro rauc.slot=A" > "$tmp/boot.B/cmdline.txt"
    rt set-primary B
}

echo "== fresh image, normal boot of A"
boot normal
expect "get-current" A rt get-current
expect "get-primary" A rt get-primary
expect "state of A" good rt get-state A
expect "state of B (never written)" bad rt get-state B
expect "mark-good of the committed slot" "" rt set-state A good

echo "== install into B, then the trial boot commits it"
install_b
expect "B's cmdline.txt: its root on this card, rauc.slot=B" \
    "console=tty0 root=PARTUUID=$disk-06 rootfstype=ext4 rootwait ro rauc.slot=B" cat "$tmp/boot.B/cmdline.txt"
expect "autoboot.txt armed" "$(printf '[all]\ntryboot_a_b=1\nboot_partition=2\n[tryboot]\nboot_partition=3')" cat "$tmp/autoboot/autoboot.txt"
expect "reboot flag for grandstand-update-reboot" yes bash -c "[ -e '$tmp/run/tryboot' ] && echo yes"
expect "get-primary after install" B rt get-primary
expect "state of B after install" good rt get-state B
boot tryboot
expect "trial boot: get-current" B rt get-current
expect "trial boot: state of B (not committed: the daemon commits it)" bad rt get-state B
expect "trial boot: state of A (the fallback)" good rt get-state A
expect "trial boot: get-primary (a reset returns to A)" A rt get-primary
expect "no temp file left" "" bash -c "ls '$tmp/autoboot' | grep -v '^autoboot.txt$' || true"
rt set-state B good
expect "mark-good B commits it" "$(printf '[all]\ntryboot_a_b=1\nboot_partition=3\n[tryboot]\nboot_partition=3')" cat "$tmp/autoboot/autoboot.txt"
expect "committed: get-primary" B rt get-primary
boot normal
expect "normal boot after commit: get-current" B rt get-current
expect "state of B" good rt get-state B
expect "state of A (not armed)" bad rt get-state A

echo "== install into A, trial boot not committed, normal reboot returns to B"
rt set-state A bad
rt set-primary A
expect "A's cmdline.txt rewritten" "console=tty0 root=PARTUUID=$disk-05 rootfstype=ext4 rootwait ro rauc.slot=A" cat "$tmp/boot.A/cmdline.txt"
boot tryboot
expect "trial boot: get-current" A rt get-current
expect "trial boot: state of A (not committed)" bad rt get-state A
expect "trial boot: state of B (the fallback)" good rt get-state B
boot normal   # the daemon gave up, a hang, a power cut: no write
expect "after the failed trial: get-current" B rt get-current
expect "after the failed trial: state of A" bad rt get-state A
expect "after the failed trial: get-primary" B rt get-primary

echo "== the daemon's rollback: mark-bad of the trial slot"
rt set-primary A
boot tryboot
expect "trial of A" A rt get-current
rt set-state A bad
expect "mark-bad disarms" "$(printf '[all]\ntryboot_a_b=1\nboot_partition=3\n[tryboot]\nboot_partition=3')" cat "$tmp/autoboot/autoboot.txt"
expect "state of A after mark-bad" bad rt get-state A
boot tryboot
expect "even a tryboot reboot now boots the committed slot" B rt get-current

echo "== refusals"
expect "mark-bad of the committed slot" "exit 1: rauc-tryboot: slot B is the committed slot, the firmware's fallback: commit or end the trial of A first" rt set-state B bad
expect "mark-good of a slot not on trial" "exit 1: rauc-tryboot: slot A is neither committed nor the trial slot booted now: set-primary A arms it" rt set-state A good
for args in "" "get-state" "get-state C" "set-state A maybe" "set-primary" "frobnicate" "get-primary extra"; do
    # shellcheck disable=SC2086 # the words are the arguments
    if out=$(rt $args 2>&1); then bad "'$args' succeeded: $out"
    elif [ -n "$out" ]; then ok "'$args' refused: ${out%%$'\n'*}"
    else bad "'$args' refused without a message"
    fi
done
printf 'boot_partition=2\n' > "$tmp/autoboot/autoboot.txt"
expect "autoboot.txt without [all]" "exit 1: rauc-tryboot: autoboot.txt: [all] boot_partition is not 2 or 3" rt get-primary
rm "$tmp/autoboot/autoboot.txt"
expect "no autoboot.txt" "exit 1: rauc-tryboot: no $tmp/autoboot/autoboot.txt (is the autoboot partition mounted?)" rt get-primary
echo "console=tty0" > "$tmp/cmdline"
expect "no rauc.slot= on the command line" "exit 1: rauc-tryboot: no rauc.slot=A|B in $tmp/cmdline" rt get-current

if [ "$fails" -gt 0 ]; then echo "tryboot-test: $fails check(s) failed" >&2; exit 1; fi
echo "tryboot-test: all checks passed"
