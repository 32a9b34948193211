import Testing
@testable import GrandstandCore

@Suite struct SegmenterTests {
    @Test func fixtureIsCutOnKeyframesIntoExactTwoSecondSegmentsOfFivePartsEach() throws {
        let (events, segmenter) = segment(try timedFixturePackets())
        let cuts = events.map(Cut.init)
        var expected: [Cut] = []
        for n in 0..<2 {
            expected.append(.start(n, nil, independent: true))
            for i in 0..<5 { expected.append(.part(n, i, 36_000, independent: i == 0)) }
            expected.append(.end(n, 180_000))
        }
        #expect(cuts == expected, "\(cuts)")
        #expect(segmenter.statistics.accessUnits == TSFixture.frames)
        #expect(segmenter.statistics.accessUnitsDropped == 0 && segmenter.statistics.discontinuityCount == 0)
        // The first segment's date-time is the capture time of its first frame.
        if case .segmentStarted(let s)? = events.first { #expect(s.programDateTimeNanoseconds == TSFixture.epoch) }
    }

    /// Live-edge latency at real-time pace: a part is published when the first packet of the
    /// frame after it arrives, so one frame after its last media arrived and within part duration
    /// + 50 ms of its first (the target; p100 here, not only p99).
    @Test func partsArePublishedOneFrameAfterTheirLastMedia() throws {
        var segmenter = Segmenter()
        var segmentStart: Int64 = 0, partStart: Int64 = 0
        var checked = 0
        for packet in try timedFixturePackets() {
            for event in segmenter.ingest(packet.bytes[...], timestampNanoseconds: packet.capture) {
                switch event {
                case .segmentStarted(let start):
                    segmentStart = start.startTicks
                    partStart = segmentStart
                case .part(let part):
                    let firstArrival = TSFixture.epoch + MediaClock.nanoseconds(ticks: partStart - TSFixture.firstDTS)
                    let lastMediaEnd = firstArrival + MediaClock.nanoseconds(ticks: part.durationTicks)
                    #expect(packet.capture - firstArrival <= MediaClock.nanoseconds(ticks: part.durationTicks) + 50_000_000)
                    #expect(packet.capture - lastMediaEnd <= 40_000_000)
                    partStart += part.durationTicks
                    checked += 1
                default:
                    break
                }
            }
        }
        #expect(checked == 9)  // the tenth part is completed by finish()
    }

    @Test func oneSecondTargetGivesFourSegmentsWithAShortFinalPart() throws {
        let (events, _) = segment(try timedFixturePackets(), configuration: SegmenterConfiguration(targetDuration: 1))
        #expect(segmentEnds(events) == [90_000, 90_000, 90_000, 90_000])
        let parts = events.compactMap { if case .part(let p) = $0 { return p.durationTicks } else { return nil } }
        #expect(parts == Array(repeating: [36_000, 36_000, 18_000], count: 4).flatMap { $0 })
    }

    @Test func segmentsAreWholeProgramPacketsOpeningWithPATAndPMT() throws {
        let ts = try TSFixture.bytes()
        let (events, _) = segment(try timedFixturePackets())
        var segments: [[UInt8]] = []
        for e in events {
            if case .segmentStarted = e { segments.append([]) }
            if case .part(let p) = e { segments[segments.count - 1] += p.bytes }
        }
        #expect(segments.count == 2)
        func pid(_ s: [UInt8], _ i: Int) -> UInt16 { UInt16(s[i * 188 + 1] & 0x1F) << 8 | UInt16(s[i * 188 + 2]) }
        for s in segments {
            #expect(s.count % 188 == 0 && stride(from: 0, to: s.count, by: 188).allSatisfy { s[$0] == 0x47 })
            #expect(pid(s, 0) == 0 && pid(s, 1) == TSFixture.pmtPID && pid(s, 2) == TSFixture.videoPID)
        }
        // Without the two header packets, the segments are the source's program packets from the
        // first video PES on, in order (FFmpeg's SDT on PID 0x11 is left out).
        let source = stride(from: 0, to: ts.count, by: 188).map { Array(ts[$0..<($0 + 188)]) }
        let firstVideo = try #require(source.firstIndex { ($0[1] & 0x40) != 0 && (UInt16($0[1] & 0x1F) << 8 | UInt16($0[2])) == TSFixture.videoPID })
        let program = source[firstVideo...].filter { (UInt16($0[1] & 0x1F) << 8 | UInt16($0[2])) != 0x11 }.flatMap { $0 }
        let body = segments.flatMap { Array($0.dropFirst(2 * 188)) }
        #expect(body == program)
    }

    static let splits: [[Int]] = [[188], [1], [1316], [100, 376, 3], [4999]]

    @Test(arguments: splits)
    func theSplitOfTheInputDoesNotMatter(chunks: [Int]) throws {
        let ts = try TSFixture.bytes()
        func run(_ sizes: [Int]) -> [SegmenterEvent] {
            var s = Segmenter()
            var events: [SegmenterEvent] = []
            chunked(ts, sizes) { chunk, _ in events += s.ingest(chunk, timestampNanoseconds: TSFixture.epoch) }
            return events + s.finish()
        }
        let whole = run([ts.count]), split = run(chunks)
        let same = whole == split
        #expect(same)
        #expect(whole.count == 14)
    }

    @Test func injectedDetectorDecidesWhereSegmentsMayStart() throws {
        final class Counting: KeyframeDetector {
            var calls = 0
            let answer: Bool
            init(_ answer: Bool) { self.answer = answer }
            func isKeyframe(_ payload: ArraySlice<UInt8>, streamType: StreamType) -> Bool { calls += 1; return answer }
        }
        let never = Counting(false)
        let (none, s) = segment(try timedFixturePackets(), detector: never)
        #expect(none.isEmpty && never.calls == TSFixture.frames)
        #expect(s.statistics.accessUnitsDropped == TSFixture.frames)
        // Every frame a keyframe: cuts land exactly on the target, parts are all independent.
        let always = Counting(true)
        let (events, _) = segment(try timedFixturePackets(), detector: always)
        #expect(segmentEnds(events) == [180_000, 180_000])
        #expect(events.allSatisfy { if case .part(let p) = $0 { return p.independent } else { return true } })
    }

    @Test func timestampJumpStartsADiscontinuityAtTheNextKeyframe() {
        var stream = SyntheticStream()
        stream.jump = (at: 60, ticks: -500_000)
        let (events, s) = segment(stream.packets())
        let starts = events.compactMap { if case .segmentStarted(let x) = $0 { return x.discontinuity?.rawValue ?? "-" } else { return nil } }
        #expect(starts == ["-", "-", "timestamp_jump"])
        // Frames 60–74 (after the jump, before the keyframe at 75) cannot start a segment.
        #expect(s.statistics.accessUnitsDropped == 15)
        #expect(segmentEnds(events) == [180_000, 36_000, 90_000])
    }

    @Test func encoderRestartWithFreshCountersCostsOneFrame() {
        // A second encoder run: counters start again at 0 (continuity errors) and so does the clock.
        let first = SyntheticStream().packets()
        var again = SyntheticStream()
        again.firstDTS = 450_000
        again.epoch += 5_000_000_000
        let (events, s) = segment(first + again.packets())
        let cuts = events.map(Cut.init).filter { if case .part = $0 { return false } else { return true } }
        let expected: [Cut] = [.start(0, nil, independent: true), .end(0, 180_000),
                               .start(1, nil, independent: true), .end(1, 176_400),
                               .start(2, .timelineLost, independent: true), .end(2, 180_000),
                               .start(3, nil, independent: true), .end(3, 180_000)]
        #expect(cuts == expected, "\(cuts)")
        // The first run's last frame is dropped: its end was never confirmed before the loss.
        #expect(s.statistics.accessUnitsDropped == 1)
        // Lost PAT/PMT counters count as TS discontinuities but damage no media.
        #expect(s.demuxer.statistics.continuityErrors == 3 && s.statistics.continuityDamage == 1)
    }

    @Test func pesPacketsWithoutTimestampsContinueTheAccessUnit() {
        // Each frame's second packet becomes a PES of its own without PTS/DTS.
        var packets = SyntheticStream().packets()
        for i in packets.indices where packets[i].bytes[1] & 0x40 == 0 && packets[i].bytes[2] == 0 && packets[i].bytes[1] & 0x1F == 1 {
            var payload = TSBuilder.pesHeader(pts: nil)
            payload.append(contentsOf: [0, 0, 1, 0x01, 0x9A])
            let cc = Int(packets[i].bytes[3] & 0x0F)
            packets[i].bytes = TSBuilder.packet(pid: SyntheticStream.videoPID, cc: cc, pusi: true, payload: payload)
        }
        let (events, s) = segment(packets)
        #expect(segmentEnds(events) == [180_000, 180_000])
        #expect(s.statistics.accessUnits == 100 && s.statistics.accessUnitsDropped == 0)
    }

    @Test func discontinuityIndicatorRestartsEvenWithoutAJump() {
        var stream = SyntheticStream()
        stream.discontinuityAt = [75]
        let (events, s) = segment(stream.packets())
        #expect(events.map(Cut.init).filter { if case .start = $0 { return true } else { return false } }
                == [.start(0, nil, independent: true), .start(1, nil, independent: true),
                    .start(2, .discontinuityIndicator, independent: true)])
        #expect(s.statistics.discontinuities[.discontinuityIndicator] == 1)
        #expect(segmentEnds(events) == [180_000, 90_000, 90_000])
    }

    @Test func timestampsWrapAt33BitsWithoutADiscontinuity() {
        var stream = SyntheticStream()
        stream.firstDTS = (1 << 33) - 40 * 3600
        let (events, s) = segment(stream.packets())
        #expect(s.statistics.discontinuityCount == 0)
        #expect(segmentEnds(events) == [180_000, 180_000])
    }

    @Test func aSegmentWithoutKeyframesIsCutJustBelowTargetPlusHalfASecond() {
        var stream = SyntheticStream()
        stream.keyframes = [0]
        stream.frames = 150
        let (events, s) = segment(stream.packets())
        // 62 frames = 2.48 s rounds to 2 (EXT-X-TARGETDURATION); 63 would round to 3.
        #expect(segmentEnds(events) == [223_200, 223_200, 93_600])
        #expect(s.statistics.segmentsWithoutKeyframe == 2)
        let independent = events.compactMap { if case .segmentStarted(let x) = $0 { return x.independent } else { return nil } }
        #expect(independent == [true, false, false])
    }

    @Test func gapWithAnIntactTimelineBecomesGapSegmentsUntilTheNextKeyframe() {
        let stream = SyntheticStream()
        var packets = stream.packets()
        // Lose frame 37's second packet and everything up to frame 41.
        let lostFrom = packets.firstIndex { $0.frame == 37 }! + 1
        let lostTo = packets.firstIndex { $0.frame == 41 }!
        packets.removeSubrange(lostFrom..<lostTo)
        let (events, s) = segment(packets, gapBefore: [lostFrom])
        let cuts = events.map(Cut.init).filter { if case .part = $0 { return false } else { return true } }
        let expected: [Cut] = [.start(0, nil, independent: true), .end(0, 133_200), .gap(1, 46_800),
                               .start(2, nil, independent: true), .end(2, 180_000)]
        #expect(cuts == expected, "\(cuts)")
        #expect(s.statistics.gapMarkers == 1 && s.statistics.gapSegments == 1)
        #expect(s.statistics.gapTicks == 46_800)
        // Frame 37 (cut short) and 41–49 (no keyframe yet) are dropped: never listed corrupt.
        #expect(s.statistics.accessUnitsDropped == 10)
        #expect(s.statistics.discontinuityCount == 0)
    }

    @Test func longHoleIsSplitIntoGapSegmentsNoLongerThanTheTarget() {
        var stream = SyntheticStream()
        stream.frames = 250
        var packets = stream.packets()
        let lostFrom = packets.firstIndex { $0.frame == 30 }!
        let lostTo = packets.firstIndex { $0.frame == 140 }!
        packets.removeSubrange(lostFrom..<lostTo)
        let (events, _) = segment(packets, gapBefore: [lostFrom])
        let gaps = events.compactMap { if case .gap(let g) = $0 { return g.durationTicks } else { return nil } }
        // Frame 29 is dropped too (its end was never seen), so the hole is frames 29–149 = 4.84 s:
        // three gaps of 1.613 s.
        #expect(gaps == [145_200, 145_200, 145_200])
    }

    @Test func gapAcrossWhichTheClocksDisagreeIsADiscontinuity() {
        var stream = SyntheticStream()
        stream.captureShift = (at: 41, nanoseconds: 5_000_000_000)
        var packets = stream.packets()
        let lostFrom = packets.firstIndex { $0.frame == 37 }!
        let lostTo = packets.firstIndex { $0.frame == 41 }!
        packets.removeSubrange(lostFrom..<lostTo)
        let (events, s) = segment(packets, gapBefore: [lostFrom])
        #expect(!events.contains { if case .gap = $0 { return true } else { return false } })
        #expect(s.statistics.discontinuities[.timelineLost] == 1)
    }

    @Test func continuityErrorWithoutAMarkerIsDamageToo() {
        var packets = SyntheticStream().packets()
        let lost = packets.firstIndex { $0.frame == 10 }! + 1
        packets.remove(at: lost)
        let (events, s) = segment(packets)
        #expect(s.statistics.continuityDamage == 1 && s.statistics.gapMarkers == 0)
        let cuts = events.map(Cut.init)
        let end: Cut = .end(0, 36_000), gap: Cut = .gap(1, 54_000)
        #expect(cuts.contains(end))
        #expect(cuts.contains(gap))
        #expect(s.demuxer.statistics.continuityErrors == 1)
    }

    @Test func audioOnlyProgramIsCutOnAudioFrames() {
        // AAC frames of 1024 samples at 48 kHz = 1920 ticks, one per PES with a declared length.
        var bytes: [UInt8] = []
        bytes += TSBuilder.psiPackets(pid: 0, section: TSBuilder.pat(pmtPID: 0x30))[0]
        bytes += TSBuilder.psiPackets(pid: 0x30, section: TSBuilder.pmt(pcrPID: 0x31, streams: [(.aacADTS, 0x31, [])]))[0]
        for i in 0..<200 {
            var payload: [UInt8] = [0xFF, 0xF1]
            payload.append(contentsOf: [UInt8](repeating: UInt8(i & 0x7F), count: 100))
            let pes = TSBuilder.pesHeader(streamID: 0xC0, pts: 90_000 + Int64(i) * 1920, payloadLength: payload.count) + payload
            bytes += TSBuilder.packet(pid: 0x31, cc: i, pusi: true, payload: pes)
        }
        var s = Segmenter()
        let events = s.ingest(bytes[...], timestampNanoseconds: 0) + s.finish()
        // 94 frames reach 2 s (180 480 ticks); 200 frames: 94 + 94 + 12.
        let expected: [Int64] = [180_480, 180_480, 23_040]
        #expect(segmentEnds(events) == expected)
    }
}
