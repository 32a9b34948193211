#!/usr/bin/env python3
"""A lossy UDP relay for SRT tests (no netem on this kernel): datagrams to --listen go to --to and
the answers back to the last sender, each dropped with probability --loss and held --delay-ms,
in both directions. Loopback only; stops by itself after --seconds. Prints the counts at exit.

usage: lossy-relay.py --listen PORT --to PORT [--loss 0.05] [--delay-ms 10] [--seconds 60] [--seed 1]
"""
import argparse
import heapq
import random
import select
import socket
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--listen", type=int, required=True)
    parser.add_argument("--to", type=int, required=True)
    parser.add_argument("--loss", type=float, default=0.05)
    parser.add_argument("--delay-ms", type=float, default=10.0)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    front = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    front.bind(("127.0.0.1", args.listen))
    back = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    back.connect(("127.0.0.1", args.to))
    client = None
    queue = []   # (due, order, socket-name, payload)
    order = 0
    counts = {"forward": 0, "backward": 0, "dropped_forward": 0, "dropped_backward": 0}
    end = time.monotonic() + args.seconds
    print(f"relay 127.0.0.1:{args.listen} -> 127.0.0.1:{args.to} loss {args.loss} delay {args.delay_ms} ms", flush=True)
    while time.monotonic() < end:
        now = time.monotonic()
        timeout = max(0.0, min(queue[0][0] - now, end - now)) if queue else max(0.0, end - now)
        readable, _, _ = select.select([front, back], [], [], min(timeout, 0.5))
        now = time.monotonic()
        for sock in readable:
            payload, sender = sock.recvfrom(65536)
            direction = "forward" if sock is front else "backward"
            if sock is front:
                client = sender
            counts[direction] += 1
            if rng.random() < args.loss:
                counts["dropped_" + direction] += 1
                continue
            order += 1
            heapq.heappush(queue, (now + args.delay_ms / 1000.0, order, direction, payload))
        while queue and queue[0][0] <= time.monotonic():
            _, _, direction, payload = heapq.heappop(queue)
            if direction == "forward":
                back.send(payload)
            elif client is not None:
                front.sendto(payload, client)
    print(" ".join(f"{k}={v}" for k, v in counts.items()), flush=True)


if __name__ == "__main__":
    main()
