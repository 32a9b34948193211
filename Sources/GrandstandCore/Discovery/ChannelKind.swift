/// What a channel carries, decided from its SDP media (docs/protocol.md).
public enum ChannelKind: Sendable, Equatable, CustomStringConvertible {
    /// `m=video <port> RTP/AVP 33`, or a dynamic type whose rtpmap is `MP2T/90000` (RFC 3551 §6);
    /// or MPEG-TS over plain UDP: `m=video <port> udp mpeg` (VLC's `#udp{mux=ts,sap}`, IPTV
    /// headends), `udp 33` or `MP2T/UDP` (docs/protocol.md, "Plain UDP").
    case video
    /// `m=application … ` with `a=x-grandstand-kind:data`: each datagram is one message.
    case data
    /// FLUTE (RFC 6726): `m=application <port> FLUTE/UDP 0` as FLUTE senders announce it (§7,
    /// with `a=flute-tsi` and `a=source-filter`), or any `m=application` with
    /// `a=x-grandstand-kind:file`.
    case file
    /// A video channel whose transport stream carries several programs, each split out as a
    /// channel of its own (docs/ingest.md, "Multi-program TS"); the multiplex itself is not served.
    case multiplex
    /// Announced, understood as SDP, but not something Grandstand carries.
    case unsupported(reason: String)

    public static let attributeName = "x-grandstand-kind"

    public var isSupported: Bool { if case .unsupported = self { return false } else { return true } }

    /// The JSON `kind` value.
    public var name: String {
        switch self {
        case .video: return "video"
        case .data: return "data"
        case .file: return "file"
        case .multiplex: return "multiplex"
        case .unsupported: return "unsupported"
        }
    }

    public var description: String {
        if case .unsupported(let reason) = self { return "unsupported (\(reason))" }
        return name
    }

    /// MPEG-TS datagrams without an RTP header: the transport is `udp` with format `mpeg` or 33
    /// (RFC 8866 §5.14 leaves `udp` formats to the media type; VLC and IPTV use `mpeg`), or
    /// `MP2T/UDP` (the MPEG-TS-over-UDP transport some encoders announce).
    static func isPlainUDPTransportStream(_ media: SessionDescription.Media) -> Bool {
        let proto = media.proto.uppercased(), format = (media.formats.first ?? "").lowercased()
        if proto == "MP2T/UDP" { return true }
        return proto == "UDP" && media.formats.count == 1 && (format == "mpeg" || format == "33" || format == "mp2t")
    }

    /// Classifies one m= section; `sessionKind` is a session-level `a=x-grandstand-kind`.
    static func classify(_ media: SessionDescription.Media, sessionKind: String?) -> ChannelKind {
        let declared = media.attribute(attributeName) ?? sessionKind
        let isRTP = media.proto.uppercased().hasPrefix("RTP/")
        let format = media.formats.first ?? ""
        let encoding = media.rtpmap(format)?.encoding.uppercased()
        switch media.media.lowercased() {
        case "video":
            if isRTP && (format == "33" || encoding == "MP2T") && media.formats.count == 1 { return .video }
            if encoding == "H264" { return .unsupported(reason: "H.264 RTP (RFC 6184) is not MPEG-TS") }
            if encoding == "H265" { return .unsupported(reason: "H.265 RTP (RFC 7798) is not MPEG-TS") }
            if isPlainUDPTransportStream(media) { return .video }
            return .unsupported(reason: "video \(media.proto) \(encoding ?? format) is not MPEG-TS over RTP (RTP/AVP 33)")
        case "application":
            switch declared?.lowercased() {
            case "data": return .data
            case "file": return .file
            case nil where media.proto.uppercased() == "FLUTE/UDP": return .file
            case nil: return .unsupported(reason: "m=application without a=\(attributeName):data|file")
            case let other?: return .unsupported(reason: "unknown \(attributeName) \"\(other)\"")
            }
        default:
            return .unsupported(reason: "\(media.media) \(media.proto) \(encoding ?? format) is not carried (video must be MPEG-TS over RTP)")
        }
    }
}
