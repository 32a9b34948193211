import Testing
@testable import GrandstandCore

/// EXT-X-PRELOAD-HINT names a part that will exist: once the open segment holds its target
/// duration, the next keyframe starts the next segment, so the hint names that segment's first part.
@Suite struct PlaylistPreloadHintTests {
    static func hint(_ w: MediaWindow) -> String? {
        w.playlist().split(separator: "\n").first { $0.hasPrefix("#EXT-X-PRELOAD-HINT:") }.map(String.init)
    }

    @Test func underTheTargetTheHintNamesTheOpenSegmentsNextPart() {
        let w = window(complete: 3, openParts: 4)   // 1.6 s of a 2 s target
        #expect(Self.hint(w) == "#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"seg3.4.ts\"")
        #expect(w.resource(named: "seg3.4.ts") == .notYetAvailable)
    }

    @Test func atTheTargetTheHintNamesTheNextSegmentsFirstPart() {
        var w = window(complete: 3, openParts: 5)   // 2.0 s: the next keyframe cuts
        #expect(Self.hint(w) == "#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"seg4.0.ts\"")
        #expect(w.resource(named: "seg4.0.ts") == .notYetAvailable)
        #expect(w.resource(named: "seg3.5.ts") == .notYetAvailable)   // an older playlist's hint still waits
        #expect(w.reloadDecision(msn: 4, part: 0) == .wait)

        var held = BlockedRequests<Int>()
        held.add(1, .resource(name: "seg4.0.ts"), window: w, nowNanoseconds: 0)
        held.add(2, .resource(name: "seg3.5.ts"), window: w, nowNanoseconds: 0)
        // The keyframe arrives: segment 3 completes with 5 parts and segment 4 starts.
        w.apply(.segmentCompleted(mediaSequence: 3, durationTicks: 180_000))
        w.apply(.segmentStarted(SegmentStart(mediaSequence: 4, discontinuity: nil,
                                             programDateTimeNanoseconds: TSFixture.epoch + 8_000_000_000,
                                             independent: true, startTicks: 720_000)))
        let between = held.resolve(window: w).sorted { $0.0 < $1.0 }
        #expect(between.count == 1 && between.first?.0 == 2 && between.first?.1 == .notFound)
        w.apply(.part(PartOutput(mediaSequence: 4, index: 0, durationTicks: 36_000, independent: true, bytes: [9])))
        let ready = held.resolve(window: w)
        #expect(ready.count == 1 && ready.first?.0 == 1 && ready.first?.1 == .ready)
        #expect(w.resource(named: "seg4.0.ts") == .media([9]))
        #expect(Self.hint(w) == "#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"seg4.1.ts\"")
    }

    @Test func aLateKeyframeContinuesTheSegmentAndTheHintedRequestKeepsWaiting() {
        var w = window(complete: 3, openParts: 5)
        var held = BlockedRequests<Int>()
        held.add(1, .resource(name: "seg4.0.ts"), window: w, nowNanoseconds: 0)
        // No keyframe: the segmenter continues segment 3 (up to its maximum duration).
        w.apply(.part(PartOutput(mediaSequence: 3, index: 5, durationTicks: 36_000, independent: false, bytes: [5])))
        #expect(held.resolve(window: w).isEmpty)
        #expect(held.count == 1)
        #expect(Self.hint(w) == "#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"seg4.0.ts\"")
        #expect(w.resource(named: "seg3.5.ts") == .media([5]))
    }

    @Test func onlyTheNextSegmentsFirstPartIsHeld() {
        let w = window(complete: 3, openParts: 5)
        #expect(w.resource(named: "seg4.1.ts") == .notFound)
        #expect(w.resource(named: "seg5.0.ts") == .notFound)
        #expect(w.resource(named: "seg4.ts") == .notFound)
    }
}
