#!/usr/bin/env python3
"""Writes the ingest benchmark's venue capture: a large, deterministic classic pcap (nanosecond
timestamps, Ethernet) plus the configuration replay uses. Standard library only.

Content (streamer 10.1.2.3, licence Bench Arena / Grandstand / Grandstand):
  SAP (239.255.255.255:9875) announcing 3 licensed video channels 239.255.40.1..3:5000
  (RTP/AVP 33) and 1 data channel 239.255.40.9:5100 (RTP/AVP 98), at 0 s and every 5 s.
  PACKETS RTP packets (default 200000) of 7 x 188-byte TS each, 50 us apart, round-robin over
  the video channels: PIDs 0x0 (PAT), 0x1000 (PMT), 0x100 (video), 0x101 (audio), continuity
  counters +1 per PID, a PCR adaptation field on every 40th packet's first TS packet.
  Every 100th slot a data-channel message; every 500th UDP to an unknown group (filtered out by
  the BPF filter); every 700th a TCP segment; every 1000th an ARP request.

Usage: make-bench-capture.py OUTDIR [PACKETS]
Writes OUTDIR/bench.pcap and OUTDIR/config.json.
"""
import json
import struct
import sys

BASE_NS = 1_750_000_000 * 1_000_000_000
STREAMER = "10.1.2.3"
LICENSE = "venueName=Bench Arena;contentOwner=Grandstand;appDeveloper=Grandstand"
VIDEO = [("Bench Cam %d" % (i + 1), "239.255.40.%d" % (i + 1), 5000) for i in range(3)]
DATA = ("Bench Scores", "239.255.40.9", 5100)
CONFIG = {
    "license": {"venueName": "Bench Arena", "contentOwner": "Grandstand", "appDeveloper": "Grandstand"},
    "management": {"token": "bench"},
    "streamers": {"allow": ["10.1.2.0/24"]},
}


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    total = (total >> 16) + (total & 0xFFFF)
    total += total >> 16
    return ~total & 0xFFFF


def addr(ip):
    return bytes(int(x) for x in ip.split("."))


def ethernet(dst_ip, payload, ethertype=0x0800):
    a = addr(dst_ip)
    dmac = bytes([0x01, 0x00, 0x5E, a[1] & 0x7F, a[2], a[3]]) if a[0] >= 224 else bytes.fromhex("020000000002")
    return dmac + bytes.fromhex("020000000001") + struct.pack("!H", ethertype) + payload


class IP:
    ident = 0

    @classmethod
    def v4(cls, src, dst, payload, proto=17):
        cls.ident = (cls.ident + 1) & 0xFFFF
        header = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), cls.ident, 0x4000, 16, proto, 0, addr(src), addr(dst))
        return header[:10] + struct.pack("!H", checksum(header)) + header[12:] + payload


def udp_frame(src, dst, sport, dport, payload):
    return ethernet(dst, IP.v4(src, dst, struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload))


def sdp(name, session, group, media):
    lines = ["v=0", f"o=bench {session} 1 IN IP4 {STREAMER}", f"s={name}", f"c=IN IP4 {group}/16", "t=0 0",
             f"a=x-grandstand-license:{LICENSE}"] + media
    return "\r\n".join(lines) + "\r\n"


def sap_frames():
    out = []
    for i, (name, group, port) in enumerate(VIDEO):
        body = sdp(name, 5000 + i, group, [f"m=video {port} RTP/AVP 33", "a=rtpmap:33 MP2T/90000"])
        out.append((0x2000 + i, body))
    name, group, port = DATA
    out.append((0x2100, sdp(name, 5100, group, [f"m=application {port} RTP/AVP 98", "a=rtpmap:98 x-grandstand-data/90000",
                                                "a=x-grandstand-kind:data"])))
    frames = []
    for msg_hash, body in out:
        packet = struct.pack("!BBH", 1 << 5, 0, msg_hash) + addr(STREAMER) + b"application/sdp\0" + body.encode()
        frames.append(udp_frame(STREAMER, "239.255.255.255", 9875, 9875, packet))
    return frames


# 64 deterministic 184-byte TS payload bodies (a linear congruential sequence).
BODIES = []
_x = 12345
for _ in range(64):
    body = bytearray(184)
    for j in range(184):
        _x = (_x * 1103515245 + 12345) & 0x7FFFFFFF
        body[j] = (_x >> 16) & 0xFF
    BODIES.append(bytes(body))


class VideoChannel:
    def __init__(self, group, port, ssrc):
        self.group, self.port, self.ssrc = group, port, ssrc
        self.seq, self.counters, self.sent = 0, {}, 0

    def ts(self, pid, index, pcr=False, start=False):
        cc = self.counters.get(pid, 15)
        cc = (cc + 1) & 0x0F
        self.counters[pid] = cc
        b1 = (0x40 if start else 0) | (pid >> 8)
        if pcr:
            # Adaptation field (7 bytes: flags + 6-byte PCR) followed by payload.
            base = (self.sent * 3000) & 0x1FFFFFFFF
            field = bytes([7, 0x10]) + struct.pack("!IH", base >> 1, ((base & 1) << 15) | 0x7E00)
            return bytes([0x47, b1, pid & 0xFF, 0x30 | cc]) + field + BODIES[index % 64][:184 - len(field)]
        return bytes([0x47, b1, pid & 0xFF, 0x10 | cc]) + BODIES[index % 64]

    def packet(self):
        n = self.sent
        pids = [0x100] * 7
        pids[3] = 0x101
        if n % 20 == 0:
            pids[0], pids[1] = 0x0000, 0x1000
        chunks = [self.ts(pid, n + k, pcr=(n % 40 == 0 and k == 2), start=(k == 2 and n % 10 == 0))
                  for k, pid in enumerate(pids)]
        header = struct.pack("!BBHII", 0x80, 33 | (0x80 if n % 10 == 9 else 0), self.seq, (n * 3000) & 0xFFFFFFFF, self.ssrc)
        self.seq = (self.seq + 1) & 0xFFFF
        self.sent += 1
        return udp_frame(STREAMER, self.group, 40000, self.port, header + b"".join(chunks))


def build(count):
    channels = [VideoChannel(group, port, 0x0B0E0000 + i) for i, (_, group, port) in enumerate(VIDEO)]
    saps = sap_frames()
    arp = b"\xff" * 6 + bytes.fromhex("020000000001") + b"\x08\x06" + struct.pack(
        "!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 1, bytes.fromhex("020000000001"), addr(STREAMER), bytes(6), addr("10.1.2.1"))
    tcp = struct.pack("!HHIIBBHHH", 40000, 80, 1, 0, 0x50, 0x02, 65535, 0, 0)
    data_seq = 0
    slot = 0
    video = 0
    while video < count:
        ns = BASE_NS + slot * 50_000
        if slot % 100_000 == 0:
            for frame in saps:
                yield ns, frame
        if slot % 1000 == 999:
            yield ns, arp
        elif slot % 700 == 699:
            yield ns, ethernet("10.1.2.1", IP.v4(STREAMER, "10.1.2.1", tcp, proto=6))
        elif slot % 500 == 499:
            yield ns, udp_frame(STREAMER, "239.255.99.99", 40000, 7000, b"not ours %d" % slot)
        elif slot % 100 == 99:
            message = b'{"score":"%d-%d","slot":%d}' % (data_seq // 7, data_seq % 7, slot)
            header = struct.pack("!BBHII", 0x80, 98, data_seq & 0xFFFF, slot * 4500 & 0xFFFFFFFF, 0x0B0D0001)
            data_seq += 1
            yield ns, udp_frame(STREAMER, DATA[1], 40001, DATA[2], header + message)
        else:
            yield ns, channels[video % len(channels)].packet()
            video += 1
        slot += 1


def main():
    outdir = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 200_000
    frames = 0
    with open(outdir + "/bench.pcap", "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 1))   # nanosecond pcap, Ethernet
        for ns, data in build(count):
            f.write(struct.pack("<IIII", ns // 1_000_000_000, ns % 1_000_000_000, len(data), len(data)))
            f.write(data)
            frames += 1
    with open(outdir + "/config.json", "w") as f:
        json.dump(CONFIG, f, indent=2)
        f.write("\n")
    print(f"{outdir}/bench.pcap: {frames} frames ({count} video RTP packets)")


if __name__ == "__main__":
    main()
