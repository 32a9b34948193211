import Testing
@testable import MediaCodec

@Suite struct DecoderTests {
    @Test(arguments: ParserTests.streams)
    func firstKeyframeDecodesTo160x90YUV420(codec: VideoCodec, fixture: MediaFixture) throws {
        let frame = try VideoDecoder.firstKeyframe(in: try fixture.bytes(), codec: codec)
        #expect(frame.width == MediaFixture.width)
        #expect(frame.height == MediaFixture.height)
        #expect(frame.pixelFormat == .yuv420p)
        #expect(frame.pixelFormat.name == "yuv420p")
        #expect(frame.isKeyframe)
        #expect(frame.pictureType == .i)
        #expect(frame.planeCount == 3)
        #expect(frame.planeBytes(0)?.count == 160 * 90)
        #expect(frame.planeBytes(1)?.count == 80 * 45)
        #expect(frame.planeBytes(3) == nil)
    }

    @Test(arguments: ParserTests.streams)
    func everyAccessUnitDecodes(codec: VideoCodec, fixture: MediaFixture) throws {
        let parser = try ElementaryStreamParser(codec: codec)
        let units = try parser.parse(try fixture.bytes()) + parser.flush()
        let decoder = try VideoDecoder(codec: codec)
        var frames: [VideoFrame] = []
        for unit in units { frames += try decoder.decode(unit) }
        frames += try decoder.drain()
        #expect(frames.count == MediaFixture.elementaryStreamFrames)
        #expect(frames.allSatisfy { $0.width == MediaFixture.width && $0.height == MediaFixture.height })
        #expect(frames.filter(\.isKeyframe).count == MediaFixture.keyframeIndices.count)
        // After drain() the decoder starts afresh: the first keyframe decodes again.
        let again = try decoder.decode(units[0]) + decoder.drain()
        #expect(again.count == 1)
        #expect(again.first?.planeBytes(0) == frames.first?.planeBytes(0))
    }
}
