#!/usr/bin/env python3
"""An independent FLUTE sender for tests: ypo/flute's Python binding (PyPI flute-alc, installed by
tools/pydeps.sh) builds the ALC/LCT packets and the FDT; this script only puts them on UDP
multicast, drops a seeded fraction on purpose, repeats the carousel, and can announce the session
by SAP the way FLUTE senders do (RFC 6726 §7: m=application PORT FLUTE/UDP 0, a=flute-tsi,
a=source-filter), with none of Grandstand's own attributes.

usage: flute-alc-send.py --group G --port P --tsi T --source ADDR DIR
         [--fec nocode|rs] [--symbol 1200] [--block 32] [--parity 8] [--loss 0.05] [--seed 1]
         [--rounds 3] [--interval 0.0005] [--sap NAME]
"""
import argparse, os, random, socket, struct, sys, threading, time

from flute import sender


def sap_packet(origin: str, sdp: str, version: int) -> bytes:
    # SAP v1 (RFC 2974 §3): announcement, IPv4 origin, no authentication, not compressed.
    header = struct.pack("!BBH", 0x20, 0, version & 0xFFFF) + socket.inet_aton(origin)
    return header + b"application/sdp\0" + sdp.encode()


def announce(args, stop: threading.Event):
    sdp = "\r\n".join([
        "v=0", f"o=- {args.tsi} 1 IN IP4 {args.source}", f"s={args.sap}", "t=0 0",
        f"a=source-filter: incl IN IP4 * {args.source}", f"a=flute-tsi:{args.tsi}",
        f"m=application {args.port} FLUTE/UDP 0", f"c=IN IP4 {args.group}/1", ""])
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(args.source))
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
    packet = sap_packet(args.source, sdp, args.tsi)
    while not stop.is_set():
        sock.sendto(packet, ("239.255.255.255", 9875))
        stop.wait(0.5)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--group", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--tsi", type=int, required=True)
    parser.add_argument("--source", required=True, help="this host's address on the sending interface")
    parser.add_argument("--fec", choices=["nocode", "rs"], default="nocode")
    parser.add_argument("--symbol", type=int, default=1200)
    parser.add_argument("--block", type=int, default=32)
    parser.add_argument("--parity", type=int, default=8)
    parser.add_argument("--loss", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--interval", type=float, default=0.0005)
    parser.add_argument("--sap", help="announce the session by SAP under this name")
    parser.add_argument("directory")
    args = parser.parse_args()

    names = sorted(n for n in os.listdir(args.directory) if os.path.isfile(os.path.join(args.directory, n)))
    stop = threading.Event()
    if args.sap:
        threading.Thread(target=announce, args=(args, stop), daemon=True).start()
        time.sleep(1.5)   # receivers learn the session before its first packet
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(args.source))
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
    rng = random.Random(args.seed)
    sent = dropped = 0
    for _ in range(args.rounds):
        if args.fec == "rs":
            oti = sender.Oti.new_reed_solomon_rs28(args.symbol, args.block, args.parity)
        else:
            oti = sender.Oti.new_no_code(args.symbol, args.block)
        flute = sender.Sender(args.tsi, oti, sender.Config())
        for name in names:
            with open(os.path.join(args.directory, name), "rb") as f:
                content = f.read()
            flute.add_object_from_buffer(content, "application/octet-stream", f"file:///{name}", None)
        flute.publish()
        while True:
            packet = flute.read()
            if packet is None:
                break
            if rng.random() < args.loss:
                dropped += 1
            else:
                sock.sendto(bytes(packet), (args.group, args.port))
                sent += 1
            time.sleep(args.interval)
    stop.set()
    print(f"flute-alc-send: {len(names)} files, {sent} packets sent, {dropped} dropped on purpose", flush=True)


if __name__ == "__main__":
    sys.exit(main())
