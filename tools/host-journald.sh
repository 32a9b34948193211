#!/bin/sh
# Makes sure a journald listens on this host, for the journal tests. On a systemd host it already
# does; in a container without systemd as PID 1, start systemd-journald by hand (root only).
# A socket file left behind by a journald that has gone (a reused /run) counts as none.
set -eu
socket=/run/systemd/journal/socket

listening() {
    [ -S "$socket" ] && python3 - "$socket" <<'PY' 2>/dev/null
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.connect(sys.argv[1])
PY
}

listening && exit 0
journald=/lib/systemd/systemd-journald
[ -x "$journald" ] || { echo "host-journald: $journald missing (apt-get install systemd)" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "host-journald: no journald listens on $socket and not root to start one" >&2; exit 1; }
rm -f "$socket" /run/systemd/journal/stdout /run/systemd/journal/dev-log /run/systemd/journal/io.systemd.journal
mkdir -p /run/systemd/journal
nohup "$journald" >/dev/null 2>&1 &
for _ in 1 2 3 4 5 6 7 8 9 10; do listening && exit 0; sleep 0.5; done
echo "host-journald: systemd-journald did not start listening on $socket" >&2
exit 1
