#!/usr/bin/env python3
"""Seed corpora for the fuzz targets, cut from Tests/Fixtures at build time.

usage: seeds.py FIXTURES OUT   (writes OUT/<target>/<name> files; OUT is an ignored folder)
Classic pcap only (every capture fixture has a .pcap form); frames are decoded just enough to
find UDP payloads (Ethernet/VLAN, IPv4/IPv6 without extension headers).
"""
import hashlib, os, struct, sys

# LINKTYPE_ → index into the harnesses' link table (ethernet, cooked, cooked2, raw, null).
LINKS = {1: 0, 113: 1, 276: 2, 101: 3, 228: 3, 229: 3, 12: 3, 14: 3, 0: 4, 108: 4}
FRAMES_PER_FILE = 48


def read_pcap(path):
    data = open(path, "rb").read()
    magic = data[:4]
    endian = {b"\xd4\xc3\xb2\xa1": "<", b"\x4d\x3c\xb2\xa1": "<", b"\xa1\xb2\xc3\xd4": ">", b"\xa1\xb2\x3c\x4d": ">"}[magic]
    linktype = struct.unpack(endian + "I", data[20:24])[0] & 0x0FFFFFFF
    frames, offset = [], 24
    while offset + 16 <= len(data):
        _, _, caplen, _ = struct.unpack(endian + "IIII", data[offset:offset + 16])
        frames.append(data[offset + 16:offset + 16 + caplen])
        offset += 16 + caplen
    return linktype, frames


def udp_of(linktype, frame):
    """(destination port, payload) or None (the fixtures include malformed frames)."""
    try:
        return decode_udp(linktype, frame)
    except (struct.error, IndexError):
        return None


def decode_udp(linktype, frame):
    if linktype == 1:
        offset, ethertype = 14, struct.unpack(">H", frame[12:14])[0]
        while ethertype in (0x8100, 0x88A8):
            ethertype = struct.unpack(">H", frame[offset + 2:offset + 4])[0]
            offset += 4
        ip = frame[offset:]
    elif linktype == 113:
        ip = frame[16:]
    elif linktype == 276:
        ip = frame[20:]
    elif linktype in (0, 108):
        ip = frame[4:]
    else:
        ip = frame
    if not ip:
        return None
    if ip[0] >> 4 == 4:
        if ip[9] != 17:
            return None
        udp = ip[(ip[0] & 0x0F) * 4:]
    elif ip[0] >> 4 == 6:
        if ip[6] != 17:
            return None
        udp = ip[40:]
    else:
        return None
    if len(udp) < 8:
        return None
    port, length = struct.unpack(">H", udp[2:4])[0], struct.unpack(">H", udp[4:6])[0]
    return port, udp[8:length]


class Out:
    def __init__(self, root):
        self.root = root

    def put(self, target, data):
        folder = os.path.join(self.root, target)
        os.makedirs(folder, exist_ok=True)
        name = hashlib.sha1(data).hexdigest()
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)


def u16(n):
    return struct.pack(">H", n)


def main(fixtures, root):
    out = Out(root)
    walk = sorted(os.path.join(d, f) for d, _, fs in os.walk(fixtures) for f in fs)
    for path in walk:
        name = os.path.basename(path)
        data = open(path, "rb").read()
        if name.endswith(".pcap"):
            linktype, frames = read_pcap(path)
            link = LINKS.get(linktype, 3)
            script = bytearray()
            for i, frame in enumerate(frames):
                if i < FRAMES_PER_FILE:
                    out.put("frame", bytes([link]) + frame)
                udp = udp_of(linktype, frame)
                if udp and i < 4 * FRAMES_PER_FILE:
                    port, payload = udp
                    if port == 9875:
                        out.put("sap", payload)
                    elif "fec" in path:
                        out.put("fec_headers", payload)
                        if port == 5000:
                            out.put("rtp", payload)
                    elif i < FRAMES_PER_FILE:
                        out.put("rtp", payload)
                # ingest script: the frame as captured, a tick every 32 frames
                if len(script) < 48_000:
                    script += bytes([0, link]) + u16(len(frame)) + frame
                    if i % 32 == 31:
                        script += bytes([4]) + u16(100)
                    if "fec" in path and udp:
                        # the same payload straight to the SMPTE 2022-1 channel (index 1)
                        port, payload = udp
                        if port == 5000:
                            script += bytes([2, 1]) + u16(len(payload)) + payload
                        elif port in (5002, 5004):
                            script += bytes([3, 1, port - 5000]) + u16(len(payload)) + payload
            out.put("ingest", bytes(script))
        elif name.endswith(".bin") and name.startswith("sap-"):
            out.put("sap", data)
        elif name.endswith(".sdp"):
            out.put("sdp", data)
        elif name.endswith(".zz"):
            out.put("inflate", b"\x00" + data)
            out.put("inflate", b"\x01" + data[2:-4])
        elif name.endswith(".json") or name.endswith(".jsonl"):
            out.put("config", data[:16_000])
            if name == "feed.json":  # catalog: a query line, then the feed
                out.put("catalog", b"q=name:like:derby&q1=season:>=:2025&sort=-startDate&limit=5\n" + data[:16_000])
                out.put("catalog", b"q=startDate:>:2025-08-01T12:00:00+01:00&dateField=end&dateTo=2025-09-01\n" + data[:8_000])
            if name == "streamplay.json":  # catalog: StreamPlay's query syntax, then its shape of feed
                out.put("catalog", b"q=(name:*harbour* AND season.id:>=12)&q=(mediaData.drm:true)&:from=2025-08-01&name:sort=name:asc&partner=3001343\n" + data)
                out.put("catalog", b"q=(( homeTeam.id:101 OR awayTeam.id:101) AND _exists_:location.id)&sport=football&offset=1&limit=2\n" + data)
                out.put("catalog", b"5001,7001,6001\n" + data)
        elif name.endswith(".mp4"):
            out.put("mp4", data)   # MP4 clips: ffmpeg's progressive MP4s, moov last and first
        elif name.endswith(".m3u8"):
            for shape in (0, 1, 2, 3, 0x64):   # vod_playlist: byte 0 picks the quality choice
                out.put("vod_playlist", bytes([shape]) + data[:16_000])
        elif name.endswith(".ts"):
            packets = data[:len(data) // 188 * 188]
            # 48-packet pieces (small inputs fuzz faster): the start (PAT, PMT, first keyframe)
            # in several feeding modes, then later pieces
            for mode, gap in ((0, 0), (0x80, 0), (3, 0), (1, 9)):
                out.put("ts", bytes([mode, gap]) + packets[:9_024])
            for start in range(9_024, len(packets), 9_024 * 3):
                out.put("ts", bytes([2, 0]) + packets[start:start + 9_024])
            # programs: the stream's start in each program choice and batch size
            for mode, gap in ((0, 0), (1, 0), (2 | 4, 0), (3 | 8, 0), (12, 5)):
                out.put("programs", bytes([mode, gap]) + packets[:9_024])
            # hls script: 7-packet chunks at 25 fps-ish spacing (40 ms), a gap and a read-back
            script = bytearray([0x21])
            for n, start in enumerate(range(0, min(len(packets), 40_000), 1316)):
                chunk = packets[start:start + 1316]
                script += bytes([0]) + u16(len(chunk)) + chunk + bytes([2]) + u16(40)
                if n == 12:
                    script += bytes([1, 5, 2]) + u16(400)
                if n % 10 == 9:
                    script += bytes([3, 0xF6, n, 1])
            out.put("hls", bytes(script))
    # board descriptions and the default config live outside Tests/Fixtures
    repo = os.path.dirname(os.path.dirname(os.path.abspath(fixtures)))
    for extra in ("board/qemu-virt/board.json", "board/rpi4/board.json", "rootfs-overlay/etc/grandstand/config.json"):
        path = os.path.join(repo, extra)
        if os.path.exists(path):
            out.put("config", open(path, "rb").read())
    synthetic_seeds(out)
    fuzz_inputs = os.path.join(fixtures, "fuzz")
    if os.path.isdir(fuzz_inputs):  # regression inputs: Tests/Fixtures/fuzz/<target>-<name>
        for name in sorted(os.listdir(fuzz_inputs)):
            if name.endswith(".md"):
                continue
            target = name.split("-", 1)[0]
            out.put(target, open(os.path.join(fuzz_inputs, name), "rb").read())


def synthetic_seeds(out):
    """Scripts for the harnesses that build their own media or take query text (no fixture has
    their form): playlist (tools/fuzz/targets/playlist.swift ops) and query (selector + text)."""
    def frames(count, gop=25, jitter=0):
        script = bytearray()
        for f in range(count):
            script += bytes([0x01 if f % gop == 0 else 0x00, jitter & 0xFF])
        return script
    steady = frames(150)
    out.put("playlist", bytes([0x12]) + steady)                       # 1.5 s targets, 0.2 s parts
    out.put("playlist", bytes([0x00]) + frames(80, gop=10, jitter=3))  # short segments, jittery clock
    with_gap = frames(60) + bytes([6, 40, 25]) + frames(60)            # 41 packets lost, 0.5 s
    out.put("playlist", bytes([0x23]) + with_gap)
    restart = frames(60) + bytes([0xA1]) + struct.pack(">I", 0x10000) + bytes([40]) + frames(60)
    out.put("playlist", bytes([0x4A]) + restart)                      # DTS restart
    long_gop = frames(40, gop=40) + bytes([0x80, 0x27, 0x10, 0, 40]) + frames(50, gop=50)
    out.put("playlist", bytes([0x08]) + long_gop)                      # keyframes far apart, a DTS jump
    damaged = frames(30) + bytes([0xE1, 0xE2, 0xE7]) + frames(30)
    out.put("playlist", bytes([0xC4]) + damaged)                       # CC errors, discontinuity_indicator
    for selector, text in ((0, "_HLS_msn=3&_HLS_part=1"), (0, "_HLS_msn=9&_HLS_part=0&_HLS_skip=YES"),
                           (1, "offset=-20"), (1, "at=1700000002000"), (2, "since=-15m&priority=warning&limit=50"),
                           (2, "since=2026-11-21T06:20:00.123456Z&until=now&messageId=0123456789abcdef0123456789abcdef&follow=1"),
                           (3, "12345678"), (4, "http://collector.example:8080/v1/stats?box=1"),
                           (4, "http://[fd00::1]:80/"), (5, "239.255.20.1"), (5, "ff0e::2:7ffe"), (5, "::ffff:10.0.0.1"),
                           (6, "venueName=Demo%20Stadium;contentOwner=Grandstand;appDeveloper=Grandstand"),
                           (7, "every:10"), (7, "0,5,10-12"), (7, "smpte2022-1:L=5,D=4,row=no"), (7, "reed-solomon:k=20,m=4,port=5002")):
        out.put("query", bytes([selector]) + text.encode())
    # sdt: whole SDT sections (ETSI EN 300 468 §5.2.3), one and two services, UTF-8 and default text.
    def crc32_mpeg2(data):
        crc = 0xFFFFFFFF
        for byte in data:
            crc ^= byte << 24
            for _ in range(8):
                crc = (crc << 1) ^ 0x04C11DB7 if crc & 0x80000000 else crc << 1
                crc &= 0xFFFFFFFF
        return crc

    def sdt_service(sid, provider, name, stype=1):
        descriptor = bytes([0x48, 3 + len(provider) + len(name), stype, len(provider)]) + provider + bytes([len(name)]) + name
        return struct.pack(">H", sid) + bytes([0xFC, 0x80 | len(descriptor) >> 8, len(descriptor) & 0xFF]) + descriptor

    for services in ([sdt_service(1, b"FFmpeg", b"Service01")],
                     [sdt_service(1, b"Venue", b"Main Bowl"), sdt_service(2, b"", b"\x15Trib\xc3\xbcne", stype=2)]):
        body = b"\x20\x85\xff" + b"".join(services)
        length = 5 + len(body) + 4
        section = bytes([0x42, 0xF0 | length >> 8, length & 0xFF, 0x04, 0x01, 0xC1, 0, 0]) + body
        out.put("sdt", section + struct.pack(">I", crc32_mpeg2(section)))
    # cmaf: a split byte, the SPS body (after its NAL header) and what follows: the fixtures'
    # H.264 and HEVC parameter sets, an ADTS frame, and a muxed chunk pair for TrackExtraction.
    sps264 = bytes([0x64, 0x00, 0x0B, 0xAC, 0xD9, 0x42, 0x8D, 0xF9, 0x30, 0x11, 0x00, 0x00, 0x03, 0x00, 0x01,
                    0x00, 0x00, 0x03, 0x00, 0x32, 0x0F, 0x14, 0x29, 0x96])
    adts = bytes([0xFF, 0xF1, 0x4C, 0x40, 0x01, 0x5F, 0xFC, 1, 2, 3])
    out.put("cmaf", bytes([len(sps264)]) + sps264 + bytes([0xEF, 0x84, 0x72, 0xC0]))
    out.put("cmaf", bytes([0]) + adts * 3)
    def box(kind, body):
        return struct.pack(">I", 8 + len(body)) + kind + body
    def full(kind, version, flags, body):
        return box(kind, bytes([version]) + flags.to_bytes(3, "big") + body)
    def traf(track, offset, sizes):
        trun = struct.pack(">Ii", len(sizes), offset) + b"".join(struct.pack(">IIIi", 3600, n, 0x02000000, 0) for n in sizes)
        return box(b"traf", full(b"tfhd", 0, 0x020000, struct.pack(">I", track)) + full(b"tfdt", 1, 0, struct.pack(">Q", 9000))
                   + full(b"trun", 1, 0xF01, trun))
    def moof(offset):
        return box(b"moof", full(b"mfhd", 0, 0, struct.pack(">I", 1)) + traf(1, offset + 8, [4]) + traf(2, offset + 12, [2]))
    out.put("cmaf", bytes([1]) + moof(len(moof(0))) + box(b"mdat", b"\0\0\0\0ab"))
    # http1: a split selector, then what a client sent (one request, pipelined ones, bad ones).
    for selector, text in ((0x40, b"GET /channels/cam/live.m3u8?_HLS_msn=3&_HLS_part=1 HTTP/1.1\r\nHost: gw\r\n\r\n"),
                           (0x10, b"HEAD / HTTP/1.0\r\n\r\nGET /channels.json HTTP/1.1\r\nHost: gw\r\nConnection: close\r\n\r\n"),
                           (0x7F, b"\r\nGET /channels/cam/seg3.ts HTTP/1.1\nHost: gw\nRange: bytes=0-99\n\n"),
                           (0x20, b"POST /api HTTP/1.1\r\nHost: gw\r\nContent-Length: 5\r\n\r\nhello"),
                           (0x30, b"GET /x HTTP/1.1\r\nHost: gw\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"),
                           (0xC0, b"GET /" + b"a" * 80 + b" HTTP/1.1\r\nHost: gw\r\n\r\n"),
                           (0x05, b"GET /files/../state/token HTTP/1.1\r\nHost: gw\r\n\r\n"),
                           (0x50, b"GET /%2e%2e/x%00 HTTP/1.1\r\nHost: gw\r\n folded\r\n\r\n")):
        out.put("http1", bytes([selector]) + text)
    # router: a method selector (or 0xF0+: "METHOD path"), then the path.
    for selector, text in ((0, b"/channels/cam/live.m3u8"), (1, b"/channels/cam/seg3.ts"), (2, b"/api/v1/config"),
                           (6, b"/api/v1/records"), (6, b"*"), (5, b"/api/v1/items/goal"), (0, b"/files/venue/maps/a.pdf"),
                           (0, b"/channels//live.m3u8"), (3, b"/channels/cam/live.m3u8/"), (0xF0, b"BREW /api/v1/leds/locate")):
        out.put("router", bytes([selector]) + text)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
