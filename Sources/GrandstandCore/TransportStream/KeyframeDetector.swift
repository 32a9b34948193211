/// Tells whether a video access unit is one decoding can start at (H.264 IDR or recovery point,
/// HEVC IRAP). Injected into the segmenter: the product passes libavcodec's parser (the
/// MediaCodec adapter's `ParserKeyframeDetector`); `NALUnitKeyframeDetector` is the core's own
/// scan, used by tests and as the fallback when libavcodec has no parser for the codec.
public protocol KeyframeDetector {
    /// Whether `payload` (one PES payload: Annex-B bytes of normally one access unit) starts a
    /// decodable sequence. Called only for H.264 and HEVC streams.
    mutating func isKeyframe(_ payload: ArraySlice<UInt8>, streamType: StreamType) -> Bool
}

/// Scans Annex-B start codes for NAL unit types: H.264 `nal_unit_type` 5 (IDR, ITU-T H.264
/// Table 7-1), HEVC 16–21 (BLA/IDR/CRA, the IRAP range of ITU-T H.265 Table 7-1). Recovery-point
/// SEI (open-GOP H.264) is not recognised here; libavcodec's parser does that.
public struct NALUnitKeyframeDetector: KeyframeDetector, Sendable {
    public init() {}

    public func isKeyframe(_ payload: ArraySlice<UInt8>, streamType: StreamType) -> Bool {
        Self.nalUnitTypes(payload, hevc: streamType == .hevc).contains { type in
            streamType == .hevc ? (16...21).contains(type) : type == 5
        }
    }

    /// The nal_unit_type of every NAL unit after a 3-byte start code (4-byte ones contain it).
    public static func nalUnitTypes(_ bytes: ArraySlice<UInt8>, hevc: Bool) -> [UInt8] {
        var types: [UInt8] = []
        var i = bytes.startIndex
        let end = bytes.endIndex
        while i + 3 < end {
            if bytes[i + 2] > 1 { i += 3; continue }
            if bytes[i] == 0, bytes[i + 1] == 0, bytes[i + 2] == 1 {
                let header = bytes[i + 3]
                types.append(hevc ? (header >> 1) & 0x3F : header & 0x1F)
                i += 4
            } else {
                i += 1
            }
        }
        return types
    }
}
