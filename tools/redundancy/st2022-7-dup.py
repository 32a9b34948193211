#!/usr/bin/env python3
"""Stands in for an SMPTE ST 2022-7 sender's two outputs: every RTP datagram received on a local
UDP port (from a real sender such as FFmpeg's rtp_mpegts muxer) is sent unchanged to two
multicast destinations, the primary and the secondary path, so both carry the same SSRC,
sequence numbers and bytes. Each path can lose its own packets (by sequence number), the
secondary can lag, and the primary can go silent for a span (the secondary then loses
nothing): what a pair of paths does in a venue. Prints one summary line on exit (SIGTERM or end of input after --idle seconds).

usage: st2022-7-dup.py --listen PORT --primary GROUP:PORT --secondary GROUP:PORT
                       [--drop-primary MOD:REM] [--drop-secondary MOD:REM]
                       [--lag-ms N] [--primary-off FROM:TO] [--idle SECONDS]
                       [--primary-interface ADDR] [--secondary-interface ADDR]
--primary-off is in seconds since the first datagram. --primary-interface/--secondary-interface
send that path out of the interface holding local IPv4 address ADDR (IP_MULTICAST_IF): two paths
on two networks, which may then use the same group and port. A send that fails (its link is
down) is counted, not fatal. Standard library only.
"""
import argparse, heapq, select, signal, socket, struct, sys, time


def endpoint(text):
    host, port = text.rsplit(":", 1)
    return host, int(port)


def pattern(text):
    if not text:
        return None
    mod, rem = (int(x) for x in text.split(":"))
    return mod, rem


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--listen", type=int, required=True)
    ap.add_argument("--primary", type=endpoint, required=True)
    ap.add_argument("--secondary", type=endpoint, required=True)
    ap.add_argument("--drop-primary", type=pattern)
    ap.add_argument("--drop-secondary", type=pattern)
    ap.add_argument("--lag-ms", type=float, default=0.0)
    ap.add_argument("--primary-off")
    ap.add_argument("--idle", type=float, default=3.0)
    ap.add_argument("--primary-interface")
    ap.add_argument("--secondary-interface")
    args = ap.parse_args()
    off = tuple(float(x) for x in args.primary_off.split(":")) if args.primary_off else None

    rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rx.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    rx.bind(("127.0.0.1", args.listen))
    def sender(interface):
        tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        tx.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 8)
        if interface:
            tx.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(interface))
        return tx
    txs = {"primary": sender(args.primary_interface), "secondary": sender(args.secondary_interface)}

    counts = {"received": 0, "primary": 0, "secondary": 0, "primary_dropped": 0, "secondary_dropped": 0, "primary_off": 0,
              "primary_send_errors": 0, "secondary_send_errors": 0}

    def send(path, data):
        try:
            txs[path].sendto(data, args.primary if path == "primary" else args.secondary)
            counts[path] += 1
        except OSError:
            counts[path + "_send_errors"] += 1
    pending = []   # (due, order, payload) for the lagging secondary
    order = 0
    start = None
    last = time.monotonic()
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))

    def lost(rule, seq):
        return rule is not None and seq % rule[0] == rule[1]

    while not stop:
        now = time.monotonic()
        while pending and pending[0][0] <= now:
            _, _, data = heapq.heappop(pending)
            send("secondary", data)
        timeout = max(0.0, min(0.05, pending[0][0] - now)) if pending else 0.05
        ready, _, _ = select.select([rx], [], [], timeout)
        if not ready:
            if start is not None and not pending and time.monotonic() - last > args.idle:
                break
            continue
        data = rx.recv(65536)
        now = time.monotonic()
        last = now
        if start is None:
            start = now
        counts["received"] += 1
        if len(data) < 12:
            continue
        seq = struct.unpack("!H", data[2:4])[0]
        outage = off is not None and off[0] <= now - start < off[1]
        if outage:
            counts["primary_off"] += 1
        elif lost(args.drop_primary, seq):
            counts["primary_dropped"] += 1
        else:
            send("primary", data)
        # While the primary is off the secondary is the only copy: its losses would be real loss,
        # so it loses nothing then (the test is of protection, not of double failure).
        if not outage and lost(args.drop_secondary, seq):
            counts["secondary_dropped"] += 1
        else:
            order += 1
            heapq.heappush(pending, (now + args.lag_ms / 1000.0, order, data))
    for _, _, data in sorted(pending):
        send("secondary", data)
    print("st2022-7-dup: " + " ".join(f"{k}={v}" for k, v in counts.items()), flush=True)


if __name__ == "__main__":
    sys.exit(main())
