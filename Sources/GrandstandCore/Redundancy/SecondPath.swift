/// A channel's second path for SMPTE ST 2022-7 seamless protection (docs/ingest.md, "Two
/// paths"): where the same stream also arrives, how far behind one path may run, and how long a
/// silence makes a path down.
public struct SecondPath: Sendable, Equatable {
    public var endpoint: IngestEndpoint
    /// How long a packet missing from the faster path is waited for from the slower one before it
    /// counts as lost (ST 2022-7 path differential; class B, "moderate skew", is 50 ms). Channels
    /// with 2022-1 or Reed-Solomon FEC wait their FEC hold instead, which should be at least this.
    public var maxSkewNanoseconds: Int64
    /// A path silent this long while the other delivers is down; on plain UDP the output then
    /// fails over to the other path.
    public var silenceNanoseconds: Int64

    public static let defaultMaxSkewNanoseconds: Int64 = 50_000_000
    public static let defaultSilenceNanoseconds: Int64 = 200_000_000

    public init(endpoint: IngestEndpoint, maxSkewNanoseconds: Int64 = defaultMaxSkewNanoseconds,
                silenceNanoseconds: Int64 = defaultSilenceNanoseconds) {
        self.endpoint = endpoint
        self.maxSkewNanoseconds = maxSkewNanoseconds
        self.silenceNanoseconds = silenceNanoseconds
    }

    /// `{"group":…,"port":…,"source":…,"maxSkewMilliseconds":…,"silenceMilliseconds":…}`.
    public var json: JSONValue {
        .object([("group", .string(endpoint.group.description)), ("port", .number(Double(endpoint.port))),
                 ("source", endpoint.source.map { .string($0.description) } ?? .null),
                 ("maxSkewMilliseconds", .number(Double(maxSkewNanoseconds / 1_000_000))),
                 ("silenceMilliseconds", .number(Double(silenceNanoseconds / 1_000_000)))])
    }
}
