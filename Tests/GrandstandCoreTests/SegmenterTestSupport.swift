@testable import GrandstandCore

/// A synthetic one-program stream: per frame one video PES (PUSI packet + one more packet) with
/// an AUD and an IDR (nal 5) or non-IDR (nal 1) slice, PAT/PMT before every keyframe, PCR on its
/// own PID only when asked. Frame f is captured at epoch + f × 40 ms unless shifted.
struct SyntheticStream {
    static let pmtPID: UInt16 = 0x1000, videoPID: UInt16 = 0x100, pcrPID: UInt16 = 0x1FF
    var frames = 100
    var gop = 25
    var frameTicks: Int64 = 3600
    var firstDTS: Int64 = 900_000
    /// DTS added from frame `at` on (a restart of the timeline).
    var jump: (at: Int, ticks: Int64)?
    /// Capture time added from frame `at` on.
    var captureShift: (at: Int, nanoseconds: Int64)?
    /// Frames whose first packet carries discontinuity_indicator.
    var discontinuityAt: Set<Int> = []
    /// Keyframes only at these frames (overrides `gop`).
    var keyframes: Set<Int>?
    var epoch: Int64 = TSFixture.epoch

    struct Packet {
        var bytes: [UInt8]
        var frame: Int
        var capture: Int64
    }

    func isKeyframe(_ f: Int) -> Bool { keyframes.map { $0.contains(f) } ?? (f % gop == 0) }

    func dts(_ f: Int) -> Int64 {
        var v = firstDTS + Int64(f) * frameTicks
        if let jump, f >= jump.at { v += jump.ticks }
        return v & 0x1_FFFF_FFFF
    }

    func packets() -> [Packet] {
        var out: [Packet] = []
        var cc: [UInt16: Int] = [:]
        func next(_ pid: UInt16) -> Int { defer { cc[pid, default: 0] += 1 }; return cc[pid, default: 0] }
        let pat = TSBuilder.pat(pmtPID: Self.pmtPID)
        let pmt = TSBuilder.pmt(pcrPID: Self.videoPID, streams: [(.h264, Self.videoPID, [])])
        for f in 0..<frames {
            var capture = epoch + Int64(f) * MediaClock.nanoseconds(ticks: frameTicks)
            if let shift = captureShift, f >= shift.at { capture += shift.nanoseconds }
            if isKeyframe(f) {
                out.append(Packet(bytes: TSBuilder.psiPackets(pid: 0, section: pat, firstCC: next(0))[0], frame: f, capture: capture))
                out.append(Packet(bytes: TSBuilder.psiPackets(pid: Self.pmtPID, section: pmt, firstCC: next(Self.pmtPID))[0],
                                  frame: f, capture: capture))
            }
            let d = dts(f)
            var es: [UInt8] = [0, 0, 0, 1, 0x09, 0xF0, 0, 0, 0, 1, isKeyframe(f) ? 0x65 : 0x41]
            es += (0..<250).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ f) | 0x10 }
            let pes = TSBuilder.pesHeader(pts: (d + 7200) & 0x1_FFFF_FFFF, dts: d) + es
            out.append(Packet(bytes: TSBuilder.packet(pid: Self.videoPID, cc: next(Self.videoPID), pusi: true,
                                                      payload: Array(pes.prefix(170)),
                                                      discontinuity: discontinuityAt.contains(f)),
                              frame: f, capture: capture))
            out.append(Packet(bytes: TSBuilder.packet(pid: Self.videoPID, cc: next(Self.videoPID), payload: Array(pes.dropFirst(170))),
                              frame: f, capture: capture))
        }
        return out
    }
}

/// Runs packets through a segmenter one by one (each with its capture time), then finishes.
func segment(_ packets: [SyntheticStream.Packet], configuration: SegmenterConfiguration = SegmenterConfiguration(),
             detector: any KeyframeDetector = NALUnitKeyframeDetector(), finish: Bool = true,
             gapBefore: Set<Int> = []) -> ([SegmenterEvent], Segmenter) {
    var segmenter = Segmenter(configuration: configuration, keyframeDetector: detector)
    var events: [SegmenterEvent] = []
    for (i, p) in packets.enumerated() {
        if gapBefore.contains(i) { events += segmenter.gap(lostPackets: 1, timestampNanoseconds: p.capture) }
        events += segmenter.ingest(p.bytes[...], timestampNanoseconds: p.capture)
    }
    if finish { events += segmenter.finish() }
    return (events, segmenter)
}

/// Compact view of segmenter events for table-style expectations.
enum Cut: Equatable, CustomStringConvertible {
    case start(Int, DiscontinuityReason?, independent: Bool)
    case part(Int, Int, Int64, independent: Bool)
    case end(Int, Int64)
    case gap(Int, Int64)

    init(_ e: SegmenterEvent) {
        switch e {
        case .segmentStarted(let s): self = .start(s.mediaSequence, s.discontinuity, independent: s.independent)
        case .part(let p): self = .part(p.mediaSequence, p.index, p.durationTicks, independent: p.independent)
        case .segmentCompleted(let n, let d): self = .end(n, d)
        case .gap(let g): self = .gap(g.mediaSequence, g.durationTicks)
        }
    }

    var description: String {
        switch self {
        case .start(let n, let r, let i): "start(\(n),\(r.map(\.rawValue) ?? "-"),\(i ? "I" : "_"))"
        case .part(let n, let i, let d, let ind): "part(\(n).\(i),\(d)\(ind ? ",I" : ""))"
        case .end(let n, let d): "end(\(n),\(d))"
        case .gap(let n, let d): "gap(\(n),\(d))"
        }
    }
}

func segmentEnds(_ events: [SegmenterEvent]) -> [Int64] {
    events.compactMap { if case .segmentCompleted(_, let d) = $0 { return d } else { return nil } }
}

/// The fixture's packets with a capture clock that follows its DTS (as a real-time sender would).
func timedFixturePackets() throws -> [SyntheticStream.Packet] {
    let ts = try TSFixture.bytes()
    var out: [SyntheticStream.Packet] = []
    var clock = TSFixture.epoch
    var frame = -1
    for offset in stride(from: 0, to: ts.count, by: 188) {
        let p = Array(ts[offset..<(offset + 188)])
        let pid = UInt16(p[1] & 0x1F) << 8 | UInt16(p[2])
        if pid == TSFixture.videoPID, p[1] & 0x40 != 0, case .success(let packet) = TSPacket.parse(p[...]),
           case .header(let h) = PESHeader.parse(packet.payload), let dts = h.dts ?? h.pts {
            frame += 1
            clock = TSFixture.epoch + MediaClock.nanoseconds(ticks: dts - TSFixture.firstDTS)
        }
        out.append(SyntheticStream.Packet(bytes: p, frame: frame, capture: clock))
    }
    return out
}
