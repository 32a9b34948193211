import Testing
import TestSupport
@testable import MediaCodec

/// Width and height from the first baseline SOF0 (FF C0) segment of a JPEG.
func jpegDimensions(_ jpeg: [UInt8]) -> (width: Int, height: Int)? {
    var i = 2
    while i + 9 < jpeg.count {
        guard jpeg[i] == 0xFF else { return nil }
        let marker = jpeg[i + 1]
        let length = Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3])
        if marker == 0xC0 {
            return (Int(jpeg[i + 7]) << 8 | Int(jpeg[i + 8]), Int(jpeg[i + 5]) << 8 | Int(jpeg[i + 6]))
        }
        i += 2 + length
    }
    return nil
}

@Suite struct JPEGTests {
    @Test func keyframeEncodesToAJPEGThatDecodesBackClose() throws {
        let frame = try VideoDecoder.firstKeyframe(in: try MediaFixture.h264.bytes(), codec: .h264)
        #expect(!frame.isFullRange)
        let jpeg = try JPEGEncoder.encode(frame, qscale: 2)
        #expect(Array(jpeg.prefix(2)) == [0xFF, 0xD8])  // SOI
        #expect(Array(jpeg.suffix(2)) == [0xFF, 0xD9])  // EOI
        let size = try #require(jpegDimensions(jpeg))
        #expect(size.width == 160 && size.height == 90)

        let decoded = try #require(try VideoDecoder(codec: .mjpeg).decode(jpeg).first)
        #expect(decoded.width == 160 && decoded.height == 90)
        #expect(decoded.isFullRange)
        // Luma survives: JPEG's full-range samples match the video-range source stretched to 0...255.
        let original = try #require(frame.planeBytes(0)).map { JPEGEncoder.expandLuma[Int($0)] }
        let roundTrip = try #require(decoded.planeBytes(0))
        #expect(original.count == roundTrip.count)
        let meanError = zip(original, roundTrip).map { abs(Int($0) - Int($1)) }.reduce(0, +) / original.count
        #expect(meanError <= 3, "mean absolute luma error \(meanError)")
        // A smaller quantiser step gives a bigger file.
        #expect(try JPEGEncoder.encode(frame, qscale: 31).count < jpeg.count)
    }

    /// The in-place path (thumbnails) gives the same JPEG as the copying one and leaves the
    /// frame expanded to full range.
    @Test func inPlaceConversionEncodesTheSameJPEG() throws {
        let stream = try MediaFixture.h264.bytes()
        let frame = try VideoDecoder.firstKeyframe(in: stream, codec: .h264)
        let reference = try JPEGEncoder.encode(try VideoDecoder.firstKeyframe(in: stream, codec: .h264))
        let expanded = try #require(frame.planeBytes(0)).map { JPEGEncoder.expandLuma[Int($0)] }
        #expect(!frame.isFullRange)
        let jpeg = try JPEGEncoder.encode(convertingInPlace: frame)
        #expect(jpeg == reference)
        #expect(frame.isFullRange)
        #expect(frame.planeBytes(0) == expanded)
    }

    @Test func rangeExpansionMapsVideoBlackAndWhiteToJPEGs() {
        #expect(JPEGEncoder.expandLuma[16] == 0 && JPEGEncoder.expandLuma[235] == 255)
        #expect(JPEGEncoder.expandLuma[0] == 0 && JPEGEncoder.expandLuma[255] == 255)
        #expect(JPEGEncoder.expandChroma[128] == 128)
        // Chroma 16...240 spans ±112 around 128; ×255/224 puts its ends half a step inside 0...255.
        #expect(JPEGEncoder.expandChroma[16] <= 1 && JPEGEncoder.expandChroma[240] == 255)
        #expect(zip(JPEGEncoder.expandLuma, JPEGEncoder.expandLuma.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(zip(JPEGEncoder.expandChroma, JPEGEncoder.expandChroma.dropFirst()).allSatisfy { $0 <= $1 })
    }

    @Test func qscaleOutsideRangeIsRejected() throws {
        let frame = try VideoDecoder.firstKeyframe(in: try MediaFixture.h264.bytes(), codec: .h264)
        let error = try #require(thrownError(MediaCodecError.self) { try JPEGEncoder.encode(frame, qscale: 1) })
        #expect(error.code == AVErrorCode.einval)
        #expect(error.description.contains("qscale 1 outside 2...31"))
    }
}
