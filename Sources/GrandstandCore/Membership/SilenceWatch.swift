/// Notices joined groups that went quiet and asks for a re-join.
///
/// A snooping switch or an upstream router can lose a membership (querier restart, port flap)
/// and silently stop forwarding a group. Rules, with time passed in (nanoseconds):
/// - Only a membership that has carried traffic since it was joined is watched: a channel that
///   never sent anything is not "silent", it has not started.
/// - When no packet matched it for `silenceNanoseconds`, `tick` returns `.rejoin` for it; while it
///   stays silent it is re-joined again every `silenceNanoseconds`, no more often.
/// - `interfaceReturned` re-joins every membership at once (the kernel dropped them with the link).
/// Each re-join counts one `num_channel_announcement_igmp_restarts`, per membership and in total.
public struct SilenceWatch: Sendable, Equatable {
    public var silenceNanoseconds: Int64

    struct Watched: Sendable, Equatable {
        /// Last matching packet since the (re)join; nil before the first one.
        var lastPacket: Int64?
        /// Last (re)join; silence is measured from max(lastPacket, lastRejoin).
        var lastRejoin: Int64?
    }

    private var watched: [GroupMembership: Watched] = [:]
    /// Memberships by group address, for the per-packet lookup.
    private var byGroup: [IPAddress: [GroupMembership]] = [:]
    public private(set) var restarts: [GroupMembership: Int] = [:]
    public private(set) var totalRestarts = 0

    /// The StadiumVision stats key the restart counts are reported under.
    public static let statsKey = "num_channel_announcement_igmp_restarts"

    /// 10 s: several times the packet interval of any live channel, and SAP announces at least
    /// every few seconds for small sessions (RFC 2974 §3.1).
    public init(silenceNanoseconds: Int64 = 10_000_000_000) {
        self.silenceNanoseconds = silenceNanoseconds
    }

    /// The memberships currently held (after the driver applied `MembershipPlan` actions). New
    /// ones start unwatched until their first packet; removed ones are forgotten, counts kept.
    public mutating func track(_ memberships: Set<GroupMembership>) {
        for gone in Set(watched.keys).subtracting(memberships) { watched[gone] = nil }
        for new in memberships where watched[new] == nil { watched[new] = Watched() }
        byGroup = Dictionary(grouping: watched.keys, by: \.group)
    }

    /// A datagram from `sender` to `destination` arrived at `nanoseconds` (capture time).
    public mutating func observe(destination: IPAddress, sender: IPAddress, at nanoseconds: Int64) {
        guard let candidates = byGroup[destination] else { return }
        for membership in candidates where membership.matches(destination: destination, sender: sender) {
            watched[membership]?.lastPacket = nanoseconds
        }
    }

    /// Re-joins due at `now`, sorted; each is counted.
    public mutating func tick(now: Int64) -> [MembershipAction] {
        var due: [GroupMembership] = []
        for (membership, state) in watched {
            guard let lastPacket = state.lastPacket else { continue }
            let quietSince = max(lastPacket, state.lastRejoin ?? lastPacket)
            if now - quietSince >= silenceNanoseconds { due.append(membership) }
        }
        return rejoin(due.sorted(), now: now)
    }

    /// The interface came back (or was re-opened): every tracked membership is re-joined.
    public mutating func interfaceReturned(now: Int64) -> [MembershipAction] {
        rejoin(watched.keys.sorted(), now: now)
    }

    /// Restarts of the membership a channel's endpoint needs (the per-channel stats value).
    public func restarts(for endpoint: MulticastEndpoint) -> Int { restarts[endpoint.membership] ?? 0 }

    /// When the membership last saw a packet, nil before the first.
    public func lastPacket(_ membership: GroupMembership) -> Int64? { watched[membership]?.lastPacket }

    private mutating func rejoin(_ memberships: [GroupMembership], now: Int64) -> [MembershipAction] {
        for membership in memberships {
            watched[membership]?.lastRejoin = now
            restarts[membership, default: 0] += 1
            totalRestarts += 1
        }
        return memberships.map(MembershipAction.rejoin)
    }
}
