import Testing
import TestSupport
@testable import GrandstandCore

/// A live break's media on CMAF (BreakMedia, FragmentReader): the insert's TS transmuxed once,
/// then cut along any live chunk boundaries and re-timed onto the channel's decode times.
@Suite struct BreakMediaTests {
    static func media() throws -> BreakMedia {
        try BreakMedia.transmux([try Fixtures.bytes(SegmenterDecodeTests.audioVideo)])
    }

    @Test func theInsertBecomesOneHeaderAndItsSamples() throws {
        let media = try Self.media()
        let tracks = CMAFChecker.checkHeader(media.initSegment)
        #expect(tracks.map(\.sampleEntry) == ["avc1", "mp4a"])
        #expect(media.samples.map(\.count) == [100, 189])
        // 100 frames at 25 fps.
        #expect(media.durationTicks == 360_000)
        let first = media.describe(0..<9_000)
        #expect(!first.empty && first.independent)
    }

    /// Cut along spans like live parts (and odd ones), every sample lands in exactly one chunk,
    /// the chunks are well-formed and their decode times run on without a hole from the anchor.
    @Test(arguments: [18_000, 36_000, 7_919, 180_000])
    func anyCutGivesEverySampleOnceAndContinuousTimes(step: Int) throws {
        let media = try Self.media()
        let tracks = CMAFChecker.checkHeader(media.initSegment)
        let anchor: Int64 = 8_100_000_000   // a live channel 25 hours in
        var timeline = CMAFChecker.Timeline(), counts: [UInt32: Int] = [:], sequence: UInt32 = 1
        var start: Int64 = 0
        while start < media.durationTicks + 90_000 {
            let span = start..<(start + Int64(step))
            if let chunk = media.chunk(sequence: sequence, span: span, anchorTicks: anchor) {
                if start == 0 {
                    let runs = try FragmentReader.runs(chunk[...])
                    #expect(runs.first { $0.trackID == 1 }?.baseDecodeTime == UInt64(anchor))
                }
                counts.merge(CMAFChecker.checkChunks(chunk, tracks: tracks, timeline: &timeline), uniquingKeysWith: +)
            } else {
                #expect(media.describe(span).empty)
            }
            sequence += 1
            start += Int64(step)
        }
        #expect(counts == [1: 100, 2: 189])
        #expect(timeline.jumps.isEmpty, "\(timeline.jumps)")
        // Past the break's end there is nothing to answer.
        #expect(media.chunk(sequence: 1, span: 400_000..<420_000, anchorTicks: anchor) == nil)
    }

    @Test func independenceFollowsTheInsertsKeyframes() throws {
        let media = try Self.media()
        // The fixture has one keyframe, at its start: later chunks depend on earlier ones.
        #expect(media.describe(0..<18_000).independent)
        #expect(!media.describe(18_000..<36_000).independent)
        #expect(!media.describe(18_000..<36_000).empty)
    }

    @Test func tsWithoutMediaIsRefused() throws {
        #expect(throws: BreakMedia.Failure.noMedia) { try BreakMedia.transmux([[UInt8](repeating: 0xFF, count: 188 * 4)]) }
        #expect(throws: BreakMedia.Failure.noMedia) { try BreakMedia.transmux([]) }
    }

    @Test func fragmentsReadBackAsWritten() throws {
        let runs = [TrackRun(trackID: 1, baseDecodeTime: 1 << 40, samples: [FragmentSample(duration: 3600, size: 3, flags: SampleFlags.sync, compositionOffset: -1)], data: [1, 2, 3]),
                    TrackRun(trackID: 2, baseDecodeTime: 7, samples: [FragmentSample(duration: 1024, size: 2, flags: 0)], data: [9, 9])]
        let bytes = MovieFragment.bytes(sequence: 5, runs: runs)
        #expect(try FragmentReader.runs(bytes[...]) == runs)
        let span = try #require(try FragmentReader.span(bytes[...], track: 2))
        #expect(span.start == 7 && span.duration == 1024)
        // Every cut short of the whole is refused, never read past its end.
        for end in 1..<bytes.count { #expect(throws: TrackExtraction.Failure.malformed) { try FragmentReader.runs(bytes[..<end]) } }
    }
}
