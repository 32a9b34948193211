import CGSAVCodec

/// A failed libavcodec/libavutil call: the AVERROR code, FFmpeg's text for it and the operation.
public struct MediaCodecError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The operation that failed, e.g. `avcodec_send_packet(h264)`.
    public let operation: String
    /// The (negative) AVERROR code FFmpeg returned or the adapter chose for the condition.
    public let code: Int32
    /// `av_strerror` text for `code`.
    public let message: String
    /// What the adapter knows beyond the code (empty when the code says it all).
    public let detail: String

    public init(operation: String, code: Int32, detail: String = "") {
        self.operation = operation
        self.code = code
        self.message = MediaCodecError.text(for: code)
        self.detail = detail
    }

    public var description: String {
        let base = "\(operation) failed: \(message) (AVERROR \(code))"
        return detail.isEmpty ? base : "\(base): \(detail)"
    }

    /// FFmpeg's description of an AVERROR code (falls back to strerror for AVERROR(errno)).
    public static func text(for code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        let count = buffer.count
        buffer.withUnsafeMutableBufferPointer { gs_av_strerror(code, $0.baseAddress, count) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// AVERROR codes Swift cannot import as macros.
enum AVErrorCode {
    static var eagain: Int32 { gs_averror_eagain() }
    static var eof: Int32 { gs_averror_eof() }
    static var enomem: Int32 { gs_averror_enomem() }
    static var einval: Int32 { gs_averror_einval() }
    static var enosys: Int32 { gs_averror_enosys() }
    static var invalidData: Int32 { gs_averror_invaliddata() }
    static var decoderNotFound: Int32 { gs_averror_decoder_not_found() }
    static var encoderNotFound: Int32 { gs_averror_encoder_not_found() }
}
