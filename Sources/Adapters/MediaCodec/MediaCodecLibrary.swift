import CGSAVCodec

/// The video codecs Grandstand parses and decodes, with their libavcodec identities.
public enum VideoCodec: String, CaseIterable, Sendable {
    case h264
    case hevc
    /// Motion JPEG: the thumbnail format (encoded by `JPEGEncoder`, decodable for checks).
    case mjpeg

    var codecID: AVCodecID {
        switch self {
        case .h264: AV_CODEC_ID_H264
        case .hevc: AV_CODEC_ID_HEVC
        case .mjpeg: AV_CODEC_ID_MJPEG
        }
    }
}

/// A packed `AV_VERSION_INT` (major << 16 | minor << 8 | micro).
public struct LibraryVersion: Equatable, Sendable, CustomStringConvertible {
    public let major: Int, minor: Int, micro: Int

    init(packed: UInt32) {
        major = Int(packed >> 16)
        minor = Int((packed >> 8) & 0xFF)
        micro = Int(packed & 0xFF)
    }

    public var description: String { "\(major).\(minor).\(micro)" }
}

/// Facts about the FFmpeg libraries loaded at run time (for `grandstand version` and checks).
public enum MediaCodecLibrary {
    /// FFmpeg's own release string, e.g. `5.1.9-0+deb12u1` on bookworm.
    public static var ffmpegVersion: String { String(cString: av_version_info()) }
    /// libavcodec's run-time version (59.x for FFmpeg 5.1, 61.x for 7.1).
    public static var avcodecVersion: LibraryVersion { LibraryVersion(packed: avcodec_version()) }
    /// libavutil's run-time version (57.x for FFmpeg 5.1, 59.x for 7.1).
    public static var avutilVersion: LibraryVersion { LibraryVersion(packed: avutil_version()) }

    /// Silences FFmpeg's own stderr logging below errors that matter (AV_LOG_FATAL). The daemon
    /// parses and decodes damaged live input on purpose and counts the failures itself; the
    /// library's per-packet warnings (e.g. "non-existing PPS") would otherwise flood the journal.
    public static func quietLogging() { av_log_set_level(AV_LOG_FATAL) }

    /// One line for `grandstand version`.
    public static var versionSummary: String {
        "FFmpeg \(ffmpegVersion) (libavcodec \(avcodecVersion), libavutil \(avutilVersion))"
    }

    /// Whether this libavcodec build has a bitstream parser for `codec`.
    public static func hasParser(for codec: VideoCodec) -> Bool {
        guard let parser = av_parser_init(Int32(bitPattern: codec.codecID.rawValue)) else { return false }
        av_parser_close(parser)
        return true
    }

    /// Whether this libavcodec build has a decoder for `codec`.
    public static func hasDecoder(for codec: VideoCodec) -> Bool { avcodec_find_decoder(codec.codecID) != nil }

    /// The name libavcodec gives `codec`'s decoder (e.g. `h264`, `hevc`), nil when missing.
    public static func decoderName(for codec: VideoCodec) -> String? {
        avcodec_find_decoder(codec.codecID).map { String(cString: $0.pointee.name) }
    }
}
