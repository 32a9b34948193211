import Testing
@testable import GrandstandCore

/// A DTS step longer than the part target (below the 2 s restart threshold) is a hole in the
/// stream's own timeline: the access unit before it keeps the last normal duration, its segment
/// ends there, the hole becomes EXT-X-GAP segments and the stream continues without a keyframe
/// (RFC 8216bis §4.4.4.9: every part ≤ PART-TARGET; §4.4.3.1: EXTINF rounds to ≤ TARGETDURATION).
@Suite struct SegmenterTimestampHoleTests {
    /// One stream: 100 frames of 40 ms, keyframes every 25, DTS + `jump` from frame `at` on.
    struct Case: Sendable, CustomStringConvertible {
        var at: Int
        var jump: Int64
        var partTarget: Double
        var targetDuration: Double = 2
        var description: String { "step \(3600 + jump) before frame \(at), part \(partTarget) s, target \(targetDuration) s" }
    }

    static let cases: [Case] = [
        Case(at: 50, jump: 32_401, partTarget: 0.4),    // 1 tick over the part target
        Case(at: 50, jump: 45_000, partTarget: 0.4),
        Case(at: 37, jump: 45_000, partTarget: 0.4),    // the next frame is not a keyframe
        Case(at: 37, jump: 140_000, partTarget: 0.1),   // the fuzz finding: 1.59 s step with short parts
        Case(at: 37, jump: 176_399, partTarget: 0.2, targetDuration: 0.5),  // just under the restart threshold
        Case(at: 80, jump: 100_000, partTarget: 0.5, targetDuration: 1),
    ]

    @Test(arguments: cases)
    func everyPartAndSegmentStaysWithinItsTargetAndTheTimelineIsKept(_ c: Case) {
        var stream = SyntheticStream()
        stream.jump = (at: c.at, ticks: c.jump)
        let configuration = SegmenterConfiguration(targetDuration: c.targetDuration, partTarget: c.partTarget)
        let (events, s) = segment(stream.packets(), configuration: configuration)
        var media: Int64 = 0, gaps: Int64 = 0
        for event in events {
            switch event {
            case .part(let p):
                #expect(p.durationTicks <= configuration.partTargetTicks, "part \(p.mediaSequence).\(p.index): \(p.durationTicks)")
            case .segmentCompleted(let n, let d):
                #expect(d <= configuration.maximumSegmentTicks, "segment \(n): \(d)")
                media += d
            case .gap(let g):
                #expect(g.durationTicks <= configuration.targetDurationTicks, "gap \(g.mediaSequence): \(g.durationTicks)")
                gaps += g.durationTicks
            case .segmentStarted:
                break
            }
        }
        // Every frame is listed (none dropped, no restart) and media + gaps span the whole DTS range.
        #expect(s.statistics.accessUnitsDropped == 0 && s.statistics.discontinuityCount == 0)
        #expect(s.statistics.timestampHoles == 1)
        #expect(media == 100 * 3600)
        #expect(gaps == c.jump)
    }

    @Test func aStepOfExactlyThePartTargetIsAFrameNotAHole() {
        var stream = SyntheticStream()
        stream.jump = (at: 50, ticks: 32_400)  // frame 49 lasts 36 000 ticks = the 0.4 s part target
        let (events, s) = segment(stream.packets())
        #expect(s.statistics.timestampHoles == 0)
        #expect(!events.contains { if case .gap = $0 { return true } else { return false } })
        // Frame 49 is a part of its own, exactly the part target long.
        let part: Cut = .part(0, 5, 36_000, independent: false)
        #expect(events.map(Cut.init).contains(part))
        #expect(segmentEnds(events) == [212_400, 180_000])
    }

    @Test func holeBeforeAKeyframeEndsTheSegmentWithAGapBetween() {
        var stream = SyntheticStream()
        stream.jump = (at: 50, ticks: 45_000)
        let (events, _) = segment(stream.packets())
        let cuts = events.map(Cut.init).filter { if case .part = $0 { return false } else { return true } }
        let expected: [Cut] = [.start(0, nil, independent: true), .end(0, 180_000), .gap(1, 45_000),
                               .start(2, nil, independent: true), .end(2, 180_000)]
        #expect(cuts == expected, "\(cuts)")
    }

    @Test func holeBeforeAnOrdinaryFrameContinuesWithoutWaitingForAKeyframe() {
        var stream = SyntheticStream()
        stream.jump = (at: 37, ticks: 45_000)
        let (events, s) = segment(stream.packets())
        let cuts = events.map(Cut.init).filter { if case .part = $0 { return false } else { return true } }
        // Frames 37–99 have no keyframe before the maximum segment length (2.5 s) cuts them.
        let expected: [Cut] = [.start(0, nil, independent: true), .end(0, 133_200), .gap(1, 45_000),
                               .start(2, nil, independent: false), .end(2, 223_200),
                               .start(3, nil, independent: false), .end(3, 3600)]
        #expect(cuts == expected, "\(cuts)")
        #expect(s.statistics.accessUnitsDropped == 0)
    }

    @Test func lossInsideAHoleWaitsForAKeyframeAfterAll() {
        var stream = SyntheticStream()
        stream.jump = (at: 37, ticks: 45_000)
        let packets = stream.packets()
        let lossAt = packets.firstIndex { $0.frame == 37 }! + 1
        let (events, s) = segment(packets, gapBefore: [lossAt])
        let cuts = events.map(Cut.init).filter { if case .part = $0 { return false } else { return true } }
        // Frames 37–49 are dropped; the gap runs from frame 36's end to keyframe 50.
        let expected: [Cut] = [.start(0, nil, independent: true), .end(0, 133_200), .gap(1, 91_800),
                               .start(2, nil, independent: true), .end(2, 180_000)]
        #expect(cuts == expected, "\(cuts)")
        #expect(s.statistics.accessUnitsDropped == 13 && s.statistics.timestampHoles == 1)
    }

    @Test func playlistsListTheHoleAsAGapWithinTheTargets() {
        var stream = SyntheticStream()
        stream.jump = (at: 37, ticks: 140_000)
        var packager = HLSPackager(segmenter: SegmenterConfiguration(targetDuration: 1, partTarget: 0.2))
        for p in stream.packets() { _ = packager.ingest(p.bytes[...], timestampNanoseconds: p.capture) }
        _ = packager.finish()
        let lines = packager.window.playlist().split(separator: "\n").map(String.init)
        #expect(lines.contains("#EXT-X-TARGETDURATION:1") && lines.contains("#EXT-X-PART-INF:PART-TARGET=0.20000"))
        #expect(lines.contains("#EXT-X-GAP"))
        for line in lines where line.hasPrefix("#EXT-X-PART:DURATION=") {
            let seconds = Double(line.dropFirst(21).prefix { $0 != "," }) ?? -1
            #expect(seconds > 0 && seconds <= 0.2, "\(line)")
        }
        for line in lines where line.hasPrefix("#EXTINF:") {
            let seconds = Double(line.dropFirst(8).prefix { $0 != "," }) ?? -1
            #expect(seconds > 0 && Int(seconds.rounded()) <= 1, "\(line)")
        }
        #expect(packager.statistics.contains { $0.0 == "hls_timestamp_holes" && $0.1 == 1 })
    }
}
