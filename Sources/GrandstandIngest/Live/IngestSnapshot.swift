import Capture
import GrandstandCore

/// A consistent picture of live ingest for `listen`, the management API and health: the channel
/// list, the pipeline's stats plus the capture's own counters, and the memberships held.
public struct IngestSnapshot: Sendable {
    public struct Membership: Sendable {
        public var membership: GroupMembership
        var restarts: Int
        var lastPacketNanoseconds: Int64?
    }

    public var interface = ""
    public var capturing = false
    /// Why the capture is not running (interface missing or down), nil while capturing.
    public var lastError: String?
    var filter = ""
    public var channels: [Channel] = []
    public var stats = IngestStats(total: [:], channels: [:])
    public var memberships: [Membership] = []
    /// Announcements the policy refused (license, allow-list), with the reason.
    public var refused: [ChannelRegistry.Refusal] = []
    public var timestampNanoseconds: Int64 = 0
    /// Captures on other interfaces, for second paths that arrive there (docs/ingest.md, "Two paths").
    public var otherInterfaces: [OtherInterface] = []

    public struct OtherInterface: Sendable {
        public var name: String
        public var capturing: Bool
        public var lastError: String?
        public var memberships: [GroupMembership]
    }

    public static let empty = IngestSnapshot()

    init() {}

    init(state: LoopState, interface: String, at now: Int64) {
        self.interface = interface
        capturing = state.capture.isOpen
        lastError = state.lastError
        filter = state.capture.filter
        channels = state.pipeline.channels
        refused = state.pipeline.registry.refused
        timestampNanoseconds = now
        memberships = state.plan.held.sorted().map {
            Membership(membership: $0, restarts: state.silence.restarts[$0] ?? 0, lastPacketNanoseconds: state.silence.lastPacket($0))
        }
        otherInterfaces = state.sides.map {
            OtherInterface(name: $0.interface, capturing: $0.capture.isOpen, lastError: $0.lastError, memberships: $0.plan.held.sorted())
        }
        var stats = state.pipeline.stats
        let capture = state.sides.reduce(state.capture.statistics()) { $0.adding($1.capture.statistics()) }
        stats.total["pcap_received"] = .number(Double(capture.received))
        stats.total["pcap_dropped_kernel"] = .number(Double(capture.droppedByKernel))
        stats.total["pcap_dropped_interface"] = .number(Double(capture.droppedByInterface))
        stats.total["capture_opens"] = .number(Double(state.capture.openCount))
        if !state.sides.isEmpty {
            stats.total["capture_other_interfaces_down"] = .number(Double(state.sides.filter { !$0.capture.isOpen }.count))
        }
        stats.total["membership_join_failures"] = .number(Double(state.failedJoins))
        stats.total[SilenceWatch.statsKey] = .number(Double(state.silence.totalRestarts))
        for channel in channels {
            let restarts = channel.endpoints.map { state.silence.restarts(for: $0) }.max() ?? 0
            stats.channels[channel.id, default: [:]][SilenceWatch.statsKey] = .number(Double(restarts))
        }
        self.stats = stats
    }
}
