import Testing
import TestSupport
import GrandstandCore
@testable import MediaCodec

/// libavcodec's parser (the product's detector) against the core's NAL scan on real streams.
@Suite struct KeyframeDetectorTests {
    /// Every video PES payload of a fixture TS, in order.
    static func payloads(_ fixture: String) throws -> [[UInt8]] {
        let ts = try Fixtures.bytes("media/" + fixture)
        var demuxer = TSDemuxer(selection: .timingStream)
        let events = demuxer.feed(ts[...], timestampNanoseconds: 0) + demuxer.flush()
        return events.compactMap { if case .pes(let p) = $0 { return p.payload } else { return nil } }
    }

    static let fixtures = ["testsrc-160x90-25fps-4s-h264.ts", "testsrc-160x90-25fps-4s-h264-aac.ts"]

    @Test(arguments: fixtures)
    func libavcodecAndTheNALScanAgreeOnEveryFrame(fixture: String) throws {
        let payloads = try Self.payloads(fixture)
        #expect(payloads.count == 100)
        let detector = ParserKeyframeDetector()
        let scan = NALUnitKeyframeDetector()
        let byParser = payloads.indices.filter { detector.isKeyframe(payloads[$0][...], streamType: .h264) }
        let byScan = payloads.indices.filter { scan.isKeyframe(payloads[$0][...], streamType: .h264) }
        #expect(byParser == [0, 25, 50, 75])
        #expect(byScan == byParser)
        #expect(detector.fallbacks == 0 && detector.lastError == nil)
    }

    @Test func sampleStreamKeyframesEverySecond() throws {
        let payloads = try Self.payloads("../../../tools/samples/clean.ts")
        #expect(payloads.count == 500)
        let detector = ParserKeyframeDetector()
        let byParser = payloads.indices.filter { detector.isKeyframe(payloads[$0][...], streamType: .h264) }
        #expect(byParser == Array(stride(from: 0, to: 500, by: 25)))
        let scan = NALUnitKeyframeDetector()
        #expect(payloads.indices.filter { scan.isKeyframe(payloads[$0][...], streamType: .h264) } == byParser)
    }

    @Test func hevcTransportStreamIRAPs() throws {
        let payloads = try Self.payloads("testsrc-160x90-25fps-4s-hevc.ts")
        #expect(payloads.count == 100)
        let detector = ParserKeyframeDetector()
        let scan = NALUnitKeyframeDetector()
        let byParser = payloads.indices.filter { detector.isKeyframe(payloads[$0][...], streamType: .hevc) }
        #expect(byParser == [0, 25, 50, 75])
        #expect(payloads.indices.filter { scan.isKeyframe(payloads[$0][...], streamType: .hevc) } == byParser)
        #expect(detector.fallbacks == 0)
    }

    @Test func hevcAccessUnitsFromTheElementaryStream() throws {
        // Cut the HEVC fixture into access units with the parser, then ask the detector about each.
        let stream = try MediaFixture.hevc.bytes()
        let parser = try ElementaryStreamParser(codec: .hevc)
        let units = try parser.parse(stream) + parser.flush()
        let detector = ParserKeyframeDetector()
        let scan = NALUnitKeyframeDetector()
        let keyframes = units.indices.filter { detector.isKeyframe(units[$0].data[...], streamType: .hevc) }
        #expect(keyframes == MediaFixture.keyframeIndices)
        #expect(units.indices.filter { scan.isKeyframe(units[$0].data[...], streamType: .hevc) } == keyframes)
    }

    @Test func theSegmenterCutsTheSameWithEitherDetector() throws {
        let ts = try Fixtures.bytes("media/testsrc-160x90-25fps-4s-h264-aac.ts")
        func cuts(_ detector: any KeyframeDetector) -> [SegmenterEvent] {
            var s = Segmenter(keyframeDetector: detector)
            return s.ingest(ts[...], timestampNanoseconds: 0) + s.finish()
        }
        let parser = cuts(ParserKeyframeDetector()), scan = cuts(NALUnitKeyframeDetector())
        let same = parser == scan
        #expect(same)
        #expect(parser.filter { if case .segmentCompleted = $0 { return true } else { return false } }.count == 2)
    }

    @Test func garbageIsNoKeyframe() {
        let detector = ParserKeyframeDetector()
        let garbage = (0..<2000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        #expect(!detector.isKeyframe(garbage[...], streamType: .h264))
        #expect(!detector.isKeyframe([][...], streamType: .hevc))
    }
}
