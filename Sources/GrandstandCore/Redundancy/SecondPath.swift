/// A channel's second path (docs/ingest.md, "Two paths"): where the same stream also arrives (a
/// multicast group, possibly on another capture interface, or an SRT connection), how far behind
/// one path may run, and how long a silence makes a path down.
public struct SecondPath: Sendable, Equatable {
    /// The multicast (group, port, source) of the path; nil when it arrives over SRT.
    public var endpoint: IngestEndpoint?
    /// The capture interface the multicast path arrives on when it is not the gateway's
    /// `network.interface` (a second NIC or VLAN); nil: the main interface.
    public var interface: String?
    /// The path arrives over SRT (TS without RTP): the pair fails over on silence, not hitless.
    public var srt: SRTSource?
    /// How long a packet missing from the faster path is waited for from the slower one before it
    /// counts as lost (ST 2022-7 path differential; class B, "moderate skew", is 50 ms). Channels
    /// with 2022-1 or Reed-Solomon FEC wait their FEC hold instead, which should be at least this.
    public var maxSkewNanoseconds: Int64
    /// A path silent this long while the other delivers is down; on a failover pair (plain UDP,
    /// or a path over SRT) the output then switches to the other path.
    public var silenceNanoseconds: Int64

    public static let defaultMaxSkewNanoseconds: Int64 = 50_000_000
    public static let defaultSilenceNanoseconds: Int64 = 200_000_000

    /// A multicast second path (on the main interface unless `interface` names another).
    public init(endpoint: IngestEndpoint, interface: String? = nil, maxSkewNanoseconds: Int64 = defaultMaxSkewNanoseconds,
                silenceNanoseconds: Int64 = defaultSilenceNanoseconds) {
        self.endpoint = endpoint
        self.interface = interface
        self.maxSkewNanoseconds = maxSkewNanoseconds
        self.silenceNanoseconds = silenceNanoseconds
    }

    /// A second path over SRT.
    public init(srt: SRTSource, maxSkewNanoseconds: Int64 = defaultMaxSkewNanoseconds, silenceNanoseconds: Int64 = defaultSilenceNanoseconds) {
        self.srt = srt
        self.maxSkewNanoseconds = maxSkewNanoseconds
        self.silenceNanoseconds = silenceNanoseconds
    }

    /// The multicast endpoint to capture on the main interface (nil over SRT or another interface).
    public var mainInterfaceEndpoint: IngestEndpoint? { interface == nil ? endpoint : nil }

    /// `{"group":…,"port":…,"source":…,"interface":…,"maxSkewMilliseconds":…,"silenceMilliseconds":…}`,
    /// or with `srt` (its settings, never the passphrase) in place of group, port and source.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = []
        if let srt {
            members.append(("srt", srt.json))
        } else if let endpoint {
            members += [("group", .string(endpoint.group.description)), ("port", .number(Double(endpoint.port))),
                        ("source", endpoint.source.map { .string($0.description) } ?? .null),
                        ("interface", interface.map { .string($0) } ?? .null)]
        }
        members += [("maxSkewMilliseconds", .number(Double(maxSkewNanoseconds / 1_000_000))),
                    ("silenceMilliseconds", .number(Double(silenceNanoseconds / 1_000_000)))]
        return .object(members)
    }
}
