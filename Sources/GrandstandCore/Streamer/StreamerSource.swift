/// One datagram a streamer source wants on the wire at `dueNanoseconds`.
public struct ScheduledDatagram: Sendable, Equatable {
    /// The flow it belongs to (a channel's media, its FEC repair, "sap", …): loss models and
    /// counters are kept per flow.
    public var flow: String
    public var destination: Endpoint
    public var payload: [UInt8]
    public var dueNanoseconds: Int64

    public init(flow: String, destination: Endpoint, payload: [UInt8], dueNanoseconds: Int64) {
        self.flow = flow
        self.destination = destination
        self.payload = payload
        self.dueNanoseconds = dueNanoseconds
    }
}

/// A sender stage: "the next datagram(s) are due at time T". The scheduler merges sources by
/// due time, so new kinds of traffic (FEC repair flows wrapping a media source, FLUTE carousels)
/// are new conforming types, never scheduler changes. Sources are pure: time is their own
/// schedule (Int64 ns, the caller's clock), they do no I/O.
public protocol StreamerSource {
    /// When `pop()` next has something, nil when the source is exhausted.
    var nextDueNanoseconds: Int64? { get }
    /// The datagrams due at `nextDueNanoseconds` (at least one while not exhausted; several
    /// when e.g. a source packet completes an FEC row and its repair packet is due with it).
    mutating func pop() -> [ScheduledDatagram]
    /// Background sources (SAP announcements) repeat forever and do not keep a run alive: the
    /// streamer stops when every foreground source is exhausted.
    var isBackground: Bool { get }
}

extension StreamerSource {
    public var isBackground: Bool { false }
}

/// Why a streamer input was refused.
public struct StreamerError: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
