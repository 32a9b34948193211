#!/bin/sh
# Makes sure a journald listens on this host, for the journal tests. On a systemd host it already
# does; in a container without systemd as PID 1, start systemd-journald by hand (root only).
set -eu
socket=/run/systemd/journal/socket
[ -S "$socket" ] && exit 0
journald=/lib/systemd/systemd-journald
[ -x "$journald" ] || { echo "host-journald: $journald missing (apt-get install systemd)" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "host-journald: no journald running and not root to start one" >&2; exit 1; }
mkdir -p /run/systemd/journal
nohup "$journald" >/dev/null 2>&1 &
for _ in 1 2 3 4 5 6 7 8 9 10; do [ -S "$socket" ] && exit 0; sleep 0.5; done
echo "host-journald: systemd-journald did not create $socket" >&2
exit 1
