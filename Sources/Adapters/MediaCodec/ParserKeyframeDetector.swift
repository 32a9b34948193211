import GrandstandCore

/// The product's keyframe detector for the segmenter: libavcodec's H.264/HEVC parser decides
/// whether a PES payload holds a picture decoding can start at (IDR/IRAP, and H.264 recovery
/// points, which the core's NAL scan does not see). Each payload is parsed on its own (parse +
/// flush), so the answer is about that access unit and never lags one behind. When this
/// libavcodec has no parser for the codec, or parsing fails, the core's `NALUnitKeyframeDetector`
/// answers instead (counted). One per channel; not Sendable.
public final class ParserKeyframeDetector: KeyframeDetector {
    private var parsers: [VideoCodec: ElementaryStreamParser] = [:]
    private let fallback = NALUnitKeyframeDetector()
    /// Payloads the NAL scan had to judge (no parser, or a parser error).
    public private(set) var fallbacks = 0
    /// The last parser error, for logs.
    public private(set) var lastError: MediaCodecError?

    public init() {}

    public func isKeyframe(_ payload: ArraySlice<UInt8>, streamType: StreamType) -> Bool {
        let codec: VideoCodec
        switch streamType {
        case .h264: codec = .h264
        case .hevc: codec = .hevc
        default: return fallback.isKeyframe(payload, streamType: streamType)
        }
        do {
            let parser: ElementaryStreamParser
            if let existing = parsers[codec] {
                parser = existing
            } else {
                parser = try ElementaryStreamParser(codec: codec)
                parsers[codec] = parser
            }
            let units = try parser.parse(payload) + parser.flush()
            return units.contains { $0.isKeyframe }
        } catch let error as MediaCodecError {
            lastError = error
        } catch {
            lastError = MediaCodecError(operation: "isKeyframe(\(codec.rawValue))", code: -1, detail: "\(error)")
        }
        fallbacks += 1
        return fallback.isKeyframe(payload, streamType: streamType)
    }
}
