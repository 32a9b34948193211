import Testing
import TestSupport
@testable import MediaCodec

/// Access units from feeding `stream` in chunks of the given sizes (cycled), then flushing.
func parse(_ stream: [UInt8], codec: VideoCodec, chunks: [Int]) throws -> [AccessUnit] {
    let parser = try ElementaryStreamParser(codec: codec)
    var units: [AccessUnit] = []
    var offset = 0, turn = 0
    while offset < stream.count {
        let end = min(stream.count, offset + chunks[turn % chunks.count])
        units += try parser.parse(stream[offset..<end])
        offset = end
        turn += 1
    }
    return units + (try parser.flush())
}

@Suite struct ParserTests {
    static let streams: [(VideoCodec, MediaFixture)] = [(.h264, .h264), (.hevc, .hevc)]

    @Test(arguments: streams)
    func wholeStreamGivesEveryFrameWithKeyframesWhereTheGOPPutsThem(codec: VideoCodec, fixture: MediaFixture) throws {
        let stream = try fixture.bytes()
        let units = try parse(stream, codec: codec, chunks: [stream.count])

        #expect(units.count == MediaFixture.elementaryStreamFrames)
        // The units tile the stream: the first starts at byte 0, nothing is dropped or repeated.
        #expect(units.flatMap(\.data) == stream)
        let first = try #require(units.first)
        #expect(first.isKeyframe && first.pictureType == .i)
        #expect(Array(first.data.prefix(4)) == [0, 0, 0, 1])
        #expect(units.indices.filter { units[$0].isKeyframe } == MediaFixture.keyframeIndices)

        let gops = MediaFixture.keyframeIndices.count
        #expect(units.filter { $0.pictureType == .i }.count == gops)
        #expect(units.filter { $0.pictureType == .p }.count == gops * MediaFixture.pFramesPerGOP)
        #expect(units.filter { $0.pictureType == .b }.count == gops * MediaFixture.bFramesPerGOP)
        #expect(units.allSatisfy { $0.width == MediaFixture.width && $0.height == MediaFixture.height })
    }

    static let splits: [[Int]] = [[1], [2], [3, 5, 7], [188], [1316], [4, 1, 1000, 13], [17, 31, 61, 127]]

    @Test(arguments: streams, splits)
    func splittingTheInputDoesNotChangeTheAccessUnits(stream: (VideoCodec, MediaFixture), chunks: [Int]) throws {
        let bytes = try stream.1.bytes()
        let whole = try parse(bytes, codec: stream.0, chunks: [bytes.count])
        let split = try parse(bytes, codec: stream.0, chunks: chunks)
        #expect(split.count == whole.count)
        #expect(split == whole)
    }

    @Test func aParserCarriesOnAfterFlushWithTheNextStream() throws {
        let stream = try MediaFixture.h264.bytes()
        let parser = try ElementaryStreamParser(codec: .h264)
        let first = try parser.parse(stream) + parser.flush()
        let second = try parser.parse(stream) + parser.flush()
        #expect(first.count == MediaFixture.elementaryStreamFrames)
        #expect(second == first)
        // reset() drops a half-fed access unit: the next stream parses as if from scratch.
        _ = try parser.parse(stream.prefix(stream.count / 3))
        try parser.reset()
        #expect(try parser.parse(stream) + parser.flush() == first)
    }

    @Test func bytesWithoutStartCodesHoldNoKeyframe() throws {
        let garbage = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        let units = try parse(garbage, codec: .h264, chunks: [100])
        #expect(units.filter(\.isKeyframe).isEmpty)
        let error = try #require(thrownError(MediaCodecError.self) {
            try VideoDecoder.firstKeyframe(in: garbage, codec: .h264)
        })
        #expect(error.code == AVErrorCode.invalidData)
        #expect(error.operation == "firstKeyframe(h264)")
        #expect(error.description.contains("no keyframe"))
    }

    @Test func transportStreamFixtureIsWholeSyncedPackets() throws {
        let ts = try MediaFixture.transportStream.bytes()
        #expect(!ts.isEmpty && ts.count % 188 == 0)
        #expect(stride(from: 0, to: ts.count, by: 188).allSatisfy { ts[$0] == 0x47 })
    }
}
