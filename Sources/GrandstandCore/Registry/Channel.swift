/// One channel the gateway carries (or lists as unsupported): the registry's view, as served in
/// `channels.json` and used to route packets. Made from a SAP/SDP announcement or a static
/// channel of the configuration.
public struct Channel: Sendable, Equatable {
    public enum Origin: String, Sendable, Equatable { case sap, config }

    /// Stable URL-safe id: slug of the name, de-duplicated (`name`, `name-2`, …); kept across
    /// re-announcements for as long as the channel is listed.
    public var id: String
    public var name: String
    public var channelText: String?
    public var kind: ChannelKind
    /// `o=` sess-id and sess-version (numeric text); nil for configured channels.
    public var sessionNum: String?
    public var sessionVersion: String?
    public var bandwidthKbps: Int?
    public var venueName: String?
    public var contentOwner: String?
    public var appDeveloper: String?
    public var group: IPAddress?
    public var port: UInt16
    /// The source to join source-specifically (RFC 4570 `a=source-filter`), if any; when set,
    /// packets from other sources are dropped.
    public var source: IPAddress?
    public var ttl: Int?
    public var fec: FECParameters
    /// True when the media is RTP (`RTP/AVP…`); data channels over plain `udp` deliver UDP payloads.
    public var rtp: Bool
    /// The source address of the SAP packets that announce it; nil for configured channels.
    public var streamer: IPAddress?
    public var origin: Origin
    /// File channels: the FLUTE Transport Session Identifier announced as `a=flute-tsi`
    /// (docs/protocol.md "File channels"); the receiver accepts only this TSI. Nil: not announced.
    public var fluteTSI: UInt64? = nil
    /// Video over SRT (a configured channel): where its TS comes from; it has no group and no
    /// endpoints, its receiver is fed by the SRT input (`IngestPipeline.ingest(stream:…)`).
    public var srt: SRTSource? = nil
    /// Video: which programs of a multi-program TS become channels (docs/ingest.md).
    public var programs: ProgramSelection = .auto
    /// A program split out of a multiplex: the multiplex's channel id and the program_number.
    public var multiplex: String? = nil
    public var programNumber: UInt16? = nil
    /// A multiplex: the channel ids of its programs, by program_number.
    public var programChannels: [String] = []
    /// SMPTE ST 2022-7: the second path the same stream arrives on, if any.
    public var secondPath: SecondPath? = nil

    public init(id: String, name: String, channelText: String? = nil, kind: ChannelKind, sessionNum: String? = nil,
                sessionVersion: String? = nil, bandwidthKbps: Int? = nil, venueName: String? = nil, contentOwner: String? = nil,
                appDeveloper: String? = nil, group: IPAddress?, port: UInt16, source: IPAddress? = nil, ttl: Int? = nil,
                fec: FECParameters = .none, rtp: Bool = true, streamer: IPAddress? = nil, origin: Origin) {
        self.id = id
        self.name = name
        self.channelText = channelText
        self.kind = kind
        self.sessionNum = sessionNum
        self.sessionVersion = sessionVersion
        self.bandwidthKbps = bandwidthKbps
        self.venueName = venueName
        self.contentOwner = contentOwner
        self.appDeveloper = appDeveloper
        self.group = group
        self.port = port
        self.source = source
        self.ttl = ttl
        self.fec = fec
        self.rtp = rtp
        self.streamer = streamer
        self.origin = origin
    }

    /// The endpoints to capture and join on the main interface for this channel: media plus FEC
    /// repair ports, and a second path's group unless it arrives on another interface or over SRT
    /// (none for unsupported channels).
    public var endpoints: [IngestEndpoint] {
        guard kind.isSupported, let group else { return [] }
        return ([port] + fec.repairPorts(mediaPort: port)).map { IngestEndpoint(group: group, port: $0, source: source) }
            + (secondPath?.mainInterfaceEndpoint.map { [$0] } ?? [])
    }

    /// The second path's endpoint when it arrives on another capture interface: (interface, endpoint).
    public var otherInterfaceEndpoint: (interface: String, endpoint: IngestEndpoint)? {
        guard kind.isSupported, group != nil, let second = secondPath, let interface = second.interface, let endpoint = second.endpoint
        else { return nil }
        return (interface, endpoint)
    }

    /// The channels.json object, keys sorted.
    public var json: JSONValue {
        func text(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
        func int(_ value: Int?) -> JSONValue { value.map { .number(Double($0)) } ?? .null }
        var reason: String? = nil
        if case .unsupported(let why) = kind { reason = why }
        let transport = srt != nil ? "srt" : rtp ? "rtp" : "udp"
        var members: [(key: String, value: JSONValue)] = [
            ("appDeveloper", text(appDeveloper)),
            ("bandwidthKbps", int(bandwidthKbps)),
            ("channelText", text(channelText)),
            ("contentOwner", text(contentOwner)),
            ("fec", fec.json),
            ("group", text(group?.description)),
            ("id", .string(id)),
            ("kind", .string(kind.name)),
            ("kindReason", text(reason)),
            ("name", .string(name)),
            ("origin", .string(origin.rawValue)),
            ("port", .number(Double(port))),
            ("sessionNum", text(sessionNum)),
            ("sessionVersion", text(sessionVersion)),
            ("source", text(source?.description)),
            ("streamer", text(streamer?.description)),
            ("transport", .string(transport)),
            ("ttl", int(ttl)),
            ("venueName", text(venueName)),
        ]
        // Keys that only some kinds have.
        if kind == .file { members.append(("fluteTSI", fluteTSI.map { .number(Double($0)) } ?? .null)) }
        if let multiplex { members.append(("multiplex", .string(multiplex))) }
        if let programNumber { members.append(("programNumber", .number(Double(programNumber)))) }
        if kind == .multiplex { members.append(("programs", .array(programChannels.map { .string($0) }))) }
        if let secondPath { members.append(("secondPath", secondPath.json)) }
        if let srt { members.append(("srt", srt.json)) }
        return .object(members.sorted { $0.key < $1.key })
    }
}

/// A (group, port, optional source) the capture must see and the box must join.
public struct IngestEndpoint: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var group: IPAddress
    public var port: UInt16
    public var source: IPAddress?

    public init(group: IPAddress, port: UInt16, source: IPAddress? = nil) {
        self.group = group
        self.port = port
        self.source = source
    }

    public static func < (a: IngestEndpoint, b: IngestEndpoint) -> Bool {
        if a.group != b.group { return a.group < b.group }
        if a.port != b.port { return a.port < b.port }
        switch (a.source, b.source) {
        case (nil, nil): return false
        case (nil, _): return true
        case (_, nil): return false
        case let (x?, y?): return x < y
        }
    }

    public var description: String {
        let base = group.isIPv6 ? "[\(group)]:\(port)" : "\(group):\(port)"
        return source.map { "\(base) from \($0)" } ?? base
    }
}

/// A change to the channel list, as the rest of the daemon subscribes to it.
public enum ChannelChange: Sendable, Equatable {
    public enum RemovalReason: String, Sendable, Equatable {
        /// A SAP deletion packet (RFC 2974 §4) named it.
        case deleted
        /// No announcement within the retire timeout.
        case timeout
        /// A re-announcement is now refused (license or allow-list changed).
        case refused
        /// A program split out of a multiplex is gone: its PAT no longer lists it
        /// (ISO/IEC 13818-1 §2.4.4.3), or the multiplex itself went or is received anew.
        case ended
    }

    case added(Channel)
    case updated(Channel)
    case removed(Channel, reason: RemovalReason)

    public var channel: Channel {
        switch self {
        case .added(let channel), .updated(let channel), .removed(let channel, _): channel
        }
    }

    /// The same change of `channel` (another view of the same channel).
    func presenting(_ channel: Channel) -> ChannelChange {
        switch self {
        case .added: .added(channel)
        case .updated: .updated(channel)
        case .removed(_, let reason): .removed(channel, reason: reason)
        }
    }

    /// `{"change":"added","id":…}` with the reason for removals.
    public var json: JSONValue {
        switch self {
        case .added(let channel): return .object([("change", .string("added")), ("id", .string(channel.id))])
        case .updated(let channel): return .object([("change", .string("updated")), ("id", .string(channel.id))])
        case .removed(let channel, let reason):
            return .object([("change", .string("removed")), ("id", .string(channel.id)), ("reason", .string(reason.rawValue))])
        }
    }
}
