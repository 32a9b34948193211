import CGSAVCodec
import Testing
@testable import MediaCodec

@Suite struct LibraryTests {
    @Test func runtimeVersionsMatchTheHeadersWeBuiltAgainst() {
        #expect(MediaCodecLibrary.avcodecVersion.major == Int(LIBAVCODEC_VERSION_MAJOR))
        #expect(MediaCodecLibrary.avutilVersion.major == Int(LIBAVUTIL_VERSION_MAJOR))
        #expect(!MediaCodecLibrary.ffmpegVersion.isEmpty)
        let summary = MediaCodecLibrary.versionSummary
        #expect(summary.hasPrefix("FFmpeg \(MediaCodecLibrary.ffmpegVersion) (libavcodec \(LIBAVCODEC_VERSION_MAJOR)."))
    }

    @Test(arguments: VideoCodec.allCases)
    func parserAndDecoderArePresent(codec: VideoCodec) throws {
        #expect(MediaCodecLibrary.hasParser(for: codec))
        #expect(MediaCodecLibrary.hasDecoder(for: codec))
        #expect(MediaCodecLibrary.decoderName(for: codec) == codec.rawValue)
        _ = try ElementaryStreamParser(codec: codec)
        _ = try VideoDecoder(codec: codec)
    }

    @Test func errorsCarryCodeTextAndOperation() {
        let error = MediaCodecError(operation: "avcodec_send_packet(h264)", code: AVErrorCode.eagain)
        #expect(error.message == "Resource temporarily unavailable")
        #expect(error.description == "avcodec_send_packet(h264) failed: Resource temporarily unavailable (AVERROR \(AVErrorCode.eagain))")
        #expect(MediaCodecError.text(for: AVErrorCode.invalidData) == "Invalid data found when processing input")
        #expect(MediaCodecError(operation: "x", code: AVErrorCode.eof, detail: "why").description.hasSuffix("): why"))
    }
}
