/// An elementary stream's `stream_type` from the PMT (ISO/IEC 13818-1 Table 2-34 and the
/// registered extensions broadcast uses). Unknown values are kept as they are.
public struct StreamType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let mpeg1Video = StreamType(rawValue: 0x01)
    public static let mpeg2Video = StreamType(rawValue: 0x02)
    public static let mpeg1Audio = StreamType(rawValue: 0x03)
    public static let mpeg2Audio = StreamType(rawValue: 0x04)
    /// Private data in sections (e.g. SCTE-27); not PES.
    public static let privateSections = StreamType(rawValue: 0x05)
    /// Private data in PES (DVB AC-3, subtitles, teletext: told apart by descriptors).
    public static let privatePES = StreamType(rawValue: 0x06)
    /// AAC in ADTS framing (13818-7).
    public static let aacADTS = StreamType(rawValue: 0x0F)
    public static let mpeg4Video = StreamType(rawValue: 0x10)
    /// AAC in LATM/LOAS framing (14496-3).
    public static let aacLATM = StreamType(rawValue: 0x11)
    /// Timed metadata in PES (e.g. ID3).
    public static let metadataPES = StreamType(rawValue: 0x15)
    public static let h264 = StreamType(rawValue: 0x1B)
    public static let hevc = StreamType(rawValue: 0x24)
    /// ATSC AC-3 (A/52).
    public static let ac3 = StreamType(rawValue: 0x81)
    /// SCTE-35 splice information (sections, not PES).
    public static let scte35 = StreamType(rawValue: 0x86)
    /// ATSC E-AC-3.
    public static let eac3 = StreamType(rawValue: 0x87)

    public enum Kind: Sendable, Equatable { case video, audio, other }

    public var kind: Kind {
        switch self {
        case .mpeg1Video, .mpeg2Video, .mpeg4Video, .h264, .hevc: .video
        case .mpeg1Audio, .mpeg2Audio, .aacADTS, .aacLATM, .ac3, .eac3: .audio
        default: .other
        }
    }

    /// Whether the stream is carried in PES packets (false for section-carried types).
    public var carriesPES: Bool { self != .privateSections && self != .scte35 }

    public var description: String {
        switch self {
        case .mpeg1Video: "mpeg1-video"
        case .mpeg2Video: "mpeg2-video"
        case .mpeg1Audio: "mpeg1-audio"
        case .mpeg2Audio: "mpeg2-audio"
        case .privateSections: "private-sections"
        case .privatePES: "private-pes"
        case .aacADTS: "aac-adts"
        case .mpeg4Video: "mpeg4-video"
        case .aacLATM: "aac-latm"
        case .metadataPES: "metadata"
        case .h264: "h264"
        case .hevc: "hevc"
        case .ac3: "ac3"
        case .scte35: "scte35"
        case .eac3: "eac3"
        default: "0x" + String(rawValue, radix: 16)
        }
    }
}
