/// What `grandstand send` announces for one channel, and its SDP (RFC 8866) as Grandstand's
/// ingest reads it (docs/protocol.md): kind from the `m=` line plus `a=x-grandstand-kind`,
/// license as `a=x-grandstand-license`, bandwidth as `b=AS`, text as `i=`.
public struct ChannelDescription: Sendable, Equatable {
    public enum Media: Sendable, Equatable {
        /// `m=video PORT RTP/AVP 33` (MPEG-TS over RTP).
        case video
        /// `m=application PORT RTP/AVP PT` with an rtpmap, or `m=application PORT udp data`.
        case data(rtpPayloadType: UInt8?)
        /// `m=application PORT FLUTE/UDP 0` (for the FLUTE sender, later).
        case file
    }

    public var name: String
    public var information: String?
    public var media: Media
    public var destination: Endpoint
    public var ttl: Int
    public var bandwidthKbps: Int?
    public var license: LicenseTriplet?
    /// The streamer's address (`o=` and, when `sourceFilter`, `a=source-filter`).
    public var origin: IPAddress
    public var sessionID: UInt64
    public var sessionVersion: UInt64
    /// Adds `a=source-filter: incl …` (RFC 4570) so receivers join source-specifically.
    public var sourceFilter: Bool
    /// More media-level attribute lines (without `a=`), e.g. a later `x-grandstand-fec:…`.
    public var extraAttributes: [String]

    public init(name: String, information: String? = nil, media: Media, destination: Endpoint, ttl: Int = 16,
                bandwidthKbps: Int? = nil, license: LicenseTriplet? = nil, origin: IPAddress,
                sessionID: UInt64? = nil, sessionVersion: UInt64 = 1, sourceFilter: Bool = false,
                extraAttributes: [String] = []) {
        self.name = name
        self.information = information
        self.media = media
        self.destination = destination
        self.ttl = ttl
        self.bandwidthKbps = bandwidthKbps
        self.license = license
        self.origin = origin
        // A stable id per channel name: the same channel keeps its identity across restarts.
        self.sessionID = sessionID ?? (FNV.hash64(Array(name.utf8)) >> 1)
        self.sessionVersion = sessionVersion
        self.sourceFilter = sourceFilter
        self.extraAttributes = extraAttributes
    }

    private var addressType: String { destination.address.isIPv6 ? "IP6" : "IP4" }
    private var originType: String { origin.isIPv6 ? "IP6" : "IP4" }

    /// The `o=` line (also the payload of the SAP deletion).
    public var originLine: String { "o=- \(sessionID) \(sessionVersion) IN \(originType) \(origin)" }

    /// The SDP text, CRLF line endings.
    public var sdp: String {
        var lines = ["v=0", originLine, "s=\(ChannelDescription.oneLine(name))"]
        if let information { lines.append("i=\(ChannelDescription.oneLine(information))") }
        // RFC 8866 §5.7: IPv4 multicast carries /ttl; IPv6 does not.
        lines.append(destination.address.isIPv6 ? "c=IN IP6 \(destination.address)"
                                                : "c=IN IP4 \(destination.address)/\(ttl)")
        if let bandwidthKbps { lines.append("b=AS:\(bandwidthKbps)") }
        lines.append("t=0 0")
        lines.append("a=tool:grandstand send")
        lines.append("a=recvonly")
        if let license { lines.append("a=\(LicenseTriplet.attributeName):\(license.attributeValue)") }
        switch media {
        case .video:
            lines.append("m=video \(destination.port) RTP/AVP 33")
            lines.append("a=rtpmap:33 MP2T/90000")
        case .data(let payloadType?):
            lines.append("m=application \(destination.port) RTP/AVP \(payloadType)")
            lines.append("a=rtpmap:\(payloadType) x-grandstand-data/90000")
            lines.append("a=\(ChannelKind.attributeName):data")
        case .data(nil):
            lines.append("m=application \(destination.port) udp data")
            lines.append("a=\(ChannelKind.attributeName):data")
        case .file:
            lines.append("m=application \(destination.port) FLUTE/UDP 0")
            lines.append("a=\(ChannelKind.attributeName):file")
        }
        if sourceFilter {
            lines.append("a=source-filter: incl IN \(addressType) \(destination.address) \(origin)")
        }
        lines += extraAttributes.map { "a=" + ChannelDescription.oneLine($0) }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// SDP values are single lines: CR and LF become spaces.
    static func oneLine(_ text: String) -> String {
        String(text.map { $0 == "\r" || $0 == "\n" || $0 == "\r\n" ? " " : $0 })
    }
}
