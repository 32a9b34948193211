#!/usr/bin/env python3
"""The venue's multicast segment for booted-VM checks (docs/qemu.md, "Venue segment").

Runs inside a private network namespace: reads every multicast frame a headend (`grandstand send`)
puts on the veth interface IFACE and hands it to each VM's venue NIC, a QEMU `-netdev dgram`
bound to a unix datagram socket. Each VM loses each frame independently with probability LOSS
(seeded), so one transmission reaches every box with its own loss pattern, as on a venue's Wi-Fi.
Frames the VMs send (IGMP reports, neighbour discovery) are read and dropped. On SIGTERM it writes
its counts as JSON to --stats and exits.

    venue-relay.py --iface gsvh1 --socket DIR/relay.sock --vm DIR/vm0.sock --vm DIR/vm1.sock \
        --loss 0.05 --seed 1 --stats DIR/relay.json
"""
import argparse
import json
import os
import random
import select
import signal
import socket
import sys

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iface", required=True, help="the relay's side of the headend's veth pair")
    parser.add_argument("--socket", required=True, help="the relay's unix datagram socket (QEMU's remote)")
    parser.add_argument("--vm", action="append", default=[], help="a VM's unix datagram socket (QEMU's local)")
    parser.add_argument("--loss", type=float, default=0.0, help="per-VM, per-frame drop probability")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--stats", required=True, help="where the counts go on SIGTERM")
    args = parser.parse_args()
    if not 0 <= args.loss < 1:
        parser.error(f"--loss {args.loss}: must be in [0, 1)")

    capture = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    capture.bind((args.iface, 0))
    capture.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    if os.path.exists(args.socket):
        os.unlink(args.socket)
    bus = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    bus.bind(args.socket)
    os.chmod(args.socket, 0o666)
    bus.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8 << 20)

    losses = [random.Random(args.seed * 1000 + i) for i in range(len(args.vm))]
    stats = {"frames": 0, "bytes": 0, "from_vms": 0,
             "vms": [{"socket": path, "delivered": 0, "dropped": 0, "undeliverable": 0} for path in args.vm]}

    def finish(*_):
        with open(args.stats + ".tmp", "w") as out:
            json.dump(stats, out)
        os.replace(args.stats + ".tmp", args.stats)
        sys.exit(0)

    signal.signal(signal.SIGTERM, finish)
    signal.signal(signal.SIGINT, finish)
    print(f"venue-relay: {args.iface} -> {len(args.vm)} VMs, loss {args.loss}", flush=True)
    while True:
        readable, _, _ = select.select([capture, bus], [], [])
        if bus in readable:
            bus.recv(65536)
            stats["from_vms"] += 1
        if capture not in readable:
            continue
        frame, address = capture.recvfrom(65536)
        # Only what the headend sent, and only multicast (the group's MAC has the I/G bit set).
        if address[2] == PACKET_OUTGOING or len(frame) < 14 or not frame[0] & 1:
            continue
        stats["frames"] += 1
        stats["bytes"] += len(frame)
        for vm, loss in zip(stats["vms"], losses):
            if loss.random() < args.loss:
                vm["dropped"] += 1
                continue
            try:
                bus.sendto(frame, vm["socket"])
                vm["delivered"] += 1
            except OSError:  # that VM is not running (rebooting): the frame is lost for it
                vm["undeliverable"] += 1


if __name__ == "__main__":
    main()
