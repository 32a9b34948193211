/// One channel as announced: the facts the registry keeps, derived from an SDP description and
/// (when it came by SAP) the SAP header. Registry policy (license match, allow-list, ids
/// de-duplicated across channels, timeouts) is applied later, not here.
public struct ChannelAnnouncement: Sendable, Equatable {
    /// URL-safe slug of `name` (not yet de-duplicated: see `ChannelSlug.unique`).
    public var id: String
    /// `s=`
    public var name: String
    /// `i=` at session level, else the chosen media's `i=`.
    public var channelText: String?
    public var kind: ChannelKind
    /// `o=` sess-id and sess-version (numeric strings).
    public var sessionID: String
    public var sessionVersion: String
    /// `b=AS` of the chosen media, else of the session, in kbit/s.
    public var bandwidthKbps: Int?
    /// The license triplet, when announced and well-formed.
    public var license: LicenseTriplet?
    /// Why a present license attribute was refused (the registry counts it as a mismatch).
    public var licenseError: LicenseSyntaxError?
    /// Destination group and port of the chosen media (`c=` media-level, else session-level).
    public var group: IPAddress?
    public var port: UInt16
    public var ttl: Int?
    /// `a=source-filter: incl IN IP4 <group> <source>` (RFC 4570): the source to join (SSM).
    public var sourceFilter: IPAddress?
    /// Who announced it: the SAP origin, else the `o=` address when numeric.
    public var streamer: IPAddress?
    /// The SAP identity (origin, message id hash) when it came by SAP; 0 when not.
    public var messageIDHash: UInt16
    /// The RTP payload type of the chosen media (its first format).
    public var format: String
    /// SMPTE ST 2022-7 as SDP announces it (RFC 7104 `a=group:DUP <mid> <mid>`): where the
    /// duplicate of the chosen media arrives (the other grouped m= line's `c=`, port and
    /// `a=source-filter`). Nil without such a group.
    public var duplicate: IngestEndpoint? = nil

    /// The media section a channel is made from: the first one Grandstand supports, else the
    /// first one (whose reason then explains why the channel is unsupported).
    public static func chooseMedia(_ sdp: SessionDescription) -> (SessionDescription.Media, ChannelKind)? {
        let sessionKind = sdp.attribute(ChannelKind.attributeName)
        let classified = sdp.media.map { ($0, ChannelKind.classify($0, sessionKind: sessionKind)) }
        if let supported = classified.first(where: { $0.1.isSupported }) {
            return supported
        }
        return classified.first
    }

    public init(sdp: SessionDescription, sap: SAPMessage? = nil) {
        id = ChannelSlug.make(sdp.name)
        name = sdp.name
        sessionID = sdp.origin.sessionID
        sessionVersion = sdp.origin.sessionVersion
        streamer = sap?.origin ?? IPAddress(parsing: sdp.origin.address)
        messageIDHash = sap?.messageIDHash ?? 0
        let chosen = ChannelAnnouncement.chooseMedia(sdp)
        let media = chosen?.0
        kind = chosen?.1 ?? .unsupported(reason: "no m= line")
        channelText = sdp.information ?? media?.title
        port = media?.port ?? 0
        format = media?.formats.first ?? ""
        bandwidthKbps = (media?.bandwidths ?? []).first(where: { $0.type == "AS" })?.value
            ?? sdp.bandwidths.first(where: { $0.type == "AS" })?.value
        let connection = media?.connections.first ?? sdp.connection
        group = connection?.ipAddress
        ttl = connection?.ttl
        let filter = media?.attribute("source-filter") ?? sdp.attribute("source-filter")
        sourceFilter = filter.flatMap(ChannelAnnouncement.includedSource)
        license = nil
        licenseError = nil
        if let value = media?.attribute(LicenseTriplet.attributeName) ?? sdp.attribute(LicenseTriplet.attributeName) {
            switch LicenseTriplet.parse(value) {
            case .success(let triplet): license = triplet
            case .failure(let error): licenseError = error
            }
        }
        if kind.isSupported, group == nil {
            kind = .unsupported(reason: "no numeric c= connection address")
        }
        if let media { duplicate = Self.duplicate(of: media, in: sdp) }
    }

    /// The endpoint of the m= line grouped with `media` by `a=group:DUP` (RFC 7104 §3: the
    /// streams of a DUP group carry the same RTP packets), when it is a different one.
    static func duplicate(of media: SessionDescription.Media, in sdp: SessionDescription) -> IngestEndpoint? {
        guard let mid = media.attribute("mid") else { return nil }
        for group in sdp.attributes where group.name == "group" {
            let fields = (group.value ?? "").split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard fields.first == "DUP", fields.dropFirst().contains(mid) else { continue }
            for other in sdp.media where other.attribute("mid") != mid && fields.dropFirst().contains(other.attribute("mid") ?? "") {
                guard let address = (other.connections.first ?? sdp.connection)?.ipAddress else { continue }
                let filter = other.attribute("source-filter") ?? sdp.attribute("source-filter")
                let endpoint = IngestEndpoint(group: address, port: other.port, source: filter.flatMap(includedSource))
                let own = (media.connections.first ?? sdp.connection)?.ipAddress
                if endpoint.group != own || endpoint.port != media.port || endpoint.source != (media.attribute("source-filter").flatMap(includedSource)) {
                    return endpoint
                }
            }
        }
        return nil
    }

    /// RFC 4570 §3: ` incl IN IP4 <dest> <src>...` → the first source of an inclusive filter.
    static func includedSource(_ value: String) -> IPAddress? {
        let f = value.split(separator: " ", omittingEmptySubsequences: true)
        guard f.count >= 5, f[0] == "incl" else { return nil }
        return IPAddress(parsing: f[4])
    }
}
