import GrandstandCore
import Testing
import TestSupport
@testable import MediaCodec

/// TS packets of a fixture, grouped by where each video PES starts (decode order).
struct VideoPackets {
    static let videoPID: UInt16 = 0x100
    var packets: [[UInt8]]
    /// Index into `packets` of each video PES's first packet.
    var pesStarts: [Int]

    init(_ ts: [UInt8]) {
        let all = stride(from: 0, to: ts.count - 187, by: 188).map { Array(ts[$0..<($0 + 188)]) }
        packets = all
        pesStarts = all.indices.filter { i in
            (UInt16(all[i][1] & 0x1F) << 8 | UInt16(all[i][2])) == Self.videoPID && all[i][1] & 0x40 != 0
        }
    }

    /// Indices of the video packets of PES number `n` (up to the next video PES start).
    func pes(_ n: Int) -> [Int] {
        let end = n + 1 < pesStarts.count ? pesStarts[n + 1] : packets.count
        return (pesStarts[n]..<end).filter { i in
            (UInt16(packets[i][1] & 0x1F) << 8 | UInt16(packets[i][2])) == Self.videoPID
        }
    }

    func bytes(removing removed: Set<Int>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(packets.count * 188)
        for (i, p) in packets.enumerated() where !removed.contains(i) { out.append(contentsOf: p) }
        return out
    }
}

/// Runs `ts` through a monitor in datagram-sized chunks (7 TS packets) and finishes it.
func health(_ ts: [UInt8], chunk: Int = 7 * 188) -> VideoHealthMonitor {
    MediaCodecLibrary.quietLogging()   // damaged input on purpose, as the daemon does
    let monitor = VideoHealthMonitor()
    var offset = 0
    while offset < ts.count {
        let end = min(ts.count, offset + chunk)
        monitor.ingest(ts[offset..<end])
        offset = end
    }
    monitor.finish()
    return monitor
}

@Suite struct VideoHealthTests {
    static let sample = "../../tools/samples/clean.ts"

    /// The sample's first 100 pictures (4 s, keyframes at 0, 25, 50, 75): enough for every damage
    /// case while keeping the decoding cheap under qemu-user.
    static func samplePrefix() throws -> VideoPackets {
        let full = VideoPackets(try Fixtures.bytes(sample))
        return VideoPackets(full.bytes(removing: Set(full.pesStarts[100]..<full.packets.count)))
    }

    /// Clean streams: every picture decodes, nothing is dropped (H.264 with B-frames, HEVC, the
    /// 640×360 sample), whatever the split.
    @Test(arguments: [("media/testsrc-160x90-25fps-4s-h264.ts", 100), ("media/testsrc-160x90-25fps-4s-hevc.ts", 100),
                      ("media/testsrc-160x90-25fps-4s-h264-aac.ts", 100), (sample, 500)])
    func cleanStreamDropsNothing(fixture: String, frames: Int) throws {
        let ts = try Fixtures.bytes(fixture)
        // Every split for the small fixtures; the 640×360 sample (slow to decode under qemu) once.
        for chunk in fixture == Self.sample ? [7 * 188] : [188, 7 * 188, 5000] {
            let c = health(ts, chunk: chunk).counters
            #expect(c.accessUnits == frames)
            #expect(c.picturesDecoded == frames)
            #expect(c.droppedFrames == 0)
            #expect(c.decodeErrors == 0)
            #expect(c.beforeFirstKeyframe == 0)
        }
    }

    /// Packets removed from the middle of a P picture (frame 10 of the first 25-frame GOP of the
    /// sample): that picture arrives damaged and decodes with errors; the 14 after it up to the
    /// next keyframe reference it and are counted, not decoded.
    @Test func packetsRemovedMidGOPDamageAPictureAndTheRestOfTheGOP() throws {
        let video = try Self.samplePrefix()
        let frame10 = video.pes(10)
        try #require(frame10.count > 8)
        let removed = Set(frame10[3..<6])
        let c = health(video.bytes(removing: removed)).counters
        #expect(c.accessUnits == 100)
        #expect(c.lost == 0)
        #expect(c.damaged >= 1)
        #expect(c.missingReference + c.damaged == 15)
        #expect(c.droppedFrames == 15)
        #expect(c.decodeErrors > 0)
        #expect(c.picturesDecoded == 100 - c.missingReference)
    }

    /// A whole picture's packets removed: it is lost (seen from the DTS step), the rest of its GOP
    /// has a missing reference; the next GOP decodes cleanly.
    @Test func wholePictureRemovedIsLostAndTheRestOfTheGOPMissesItsReference() throws {
        let video = try Self.samplePrefix()
        let c = health(video.bytes(removing: Set(video.pes(30)))).counters
        #expect(c.accessUnits == 99)
        #expect(c.lost == 1)
        #expect(c.damaged == 0)
        #expect(c.missingReference == 19)   // frames 31…49, keyframe at 50
        #expect(c.droppedFrames == 20)
        #expect(c.decodeErrors == 0)
        #expect(c.picturesDecoded == 80)
    }

    /// A gap marker where whole pictures went missing counts them lost; a skip counts them skipped.
    @Test func gapAndSkipCountWhatIsMissingByCause() throws {
        let video = try Self.samplePrefix()
        // Every packet from frame 60's first to frame 63's first: frames 60–62 (and audio) missing.
        let before = video.bytes(removing: Set(video.pesStarts[60]..<video.packets.count))
        let after = video.bytes(removing: Set(0..<video.pesStarts[63]))
        MediaCodecLibrary.quietLogging()
        let lost = VideoHealthMonitor(), skipped = VideoHealthMonitor()
        lost.ingest(before[...]); lost.gap(); lost.ingest(after[...]); lost.finish()
        skipped.ingest(before[...]); skipped.skip(); skipped.ingest(after[...]); skipped.finish()
        #expect(lost.counters.lost == 3)
        #expect(lost.counters.missingReference == 12)   // 63…74, keyframe at 75
        // The skip also drops the PES in progress (frame 59: its tail may have been skipped).
        #expect(skipped.counters.skipped == 16)
        #expect(skipped.counters.lost == 0)
        #expect(skipped.counters.droppedFrames == 16)
        #expect(lost.counters.droppedFrames == 15)
    }

    /// Joining mid-GOP is not a drop: pictures before the first keyframe are counted apart.
    @Test func joiningMidGOPCountsPicturesBeforeTheFirstKeyframeApart() throws {
        let video = try Self.samplePrefix()
        let c = health(video.bytes(removing: Set(0..<video.pesStarts[5]))).counters
        // Frames 5…24 precede the next keyframe; those before the next PMT are not even seen.
        #expect(c.beforeFirstKeyframe > 0 && c.beforeFirstKeyframe <= 20)
        #expect(c.accessUnits == c.beforeFirstKeyframe + 75)
        #expect(c.droppedFrames == 0)
        #expect(c.decodeErrors == 0)
        #expect(c.picturesDecoded == 75)
    }

    enum Garbage: String, CaseIterable {
        case randomBytes, syncBytesRandomPayload, videoPIDRandomPayload, flippedBits, truncatedEverywhere, zeros, repeatedHeaders
    }

    /// Garbage never crashes the monitor, and the counters stay consistent.
    @Test(arguments: Garbage.allCases)
    func garbageNeverCrashes(kind: Garbage) throws {
        let clean = try Fixtures.bytes("media/testsrc-160x90-25fps-4s-h264.ts")
        var random = SplitMix(seed: UInt64(kind.rawValue.utf8.count))
        var ts: [UInt8]
        switch kind {
        case .randomBytes:
            ts = (0..<100_000).map { _ in random.byte() }
        case .syncBytesRandomPayload:
            ts = []
            for _ in 0..<500 { ts.append(0x47); for _ in 0..<187 { ts.append(random.byte()) } }
        case .videoPIDRandomPayload:
            // The fixture's PAT and PMT, then video packets full of noise (some with PES starts).
            ts = Array(clean[0..<(2 * 188)])
            for i in 0..<1000 {
                var p = [0x47, UInt8(i % 5 == 0 ? 0x41 : 0x01), 0x00, UInt8(0x10 | (i & 0x0F))]
                if i % 5 == 0 { p += [0, 0, 1, 0xE0, 0, 0, 0x80, 0x80, 5, 0x21, 0, UInt8(2 * i & 0xFF) | 1, 0, 1] }
                while p.count < 188 { p.append(random.byte()) }
                ts += p
            }
        case .flippedBits:
            ts = clean
            for i in stride(from: 3 * 188, to: ts.count, by: 97) where ts[i - i % 188 + 1] & 0x1F == 0x01 && i % 188 > 20 {
                ts[i] ^= UInt8(1 << (i % 8))
            }
        case .truncatedEverywhere:
            ts = []
            for offset in stride(from: 0, to: clean.count - 188, by: 188) {
                ts += clean[offset..<(offset + 188 - (offset / 188) % 40)]
            }
        case .zeros:
            ts = Array(clean[0..<(2 * 188)]) + [UInt8](repeating: 0, count: 50_000)
        case .repeatedHeaders:
            ts = []
            for _ in 0..<300 { ts += clean[(2 * 188)..<(3 * 188)] }
        }
        let monitor = health(ts)
        let c = monitor.counters
        #expect(c.picturesDecoded <= c.accessUnits)
        #expect(c.damaged + c.missingReference + c.skipped + c.beforeFirstKeyframe <= c.accessUnits)
        #expect(c.droppedFrames >= 0 && c.decodeErrors >= 0)
        if kind == .flippedBits { #expect(c.droppedFrames > 0) }
    }
}

/// A small deterministic generator for the garbage cases.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }
}
