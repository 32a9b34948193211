/// What the live driver must do to the kernel's group memberships.
public enum MembershipAction: Hashable, Sendable, CustomStringConvertible {
    /// Open a membership socket and join (IP_ADD_MEMBERSHIP / MCAST_JOIN_SOURCE_GROUP / IPV6_JOIN_GROUP).
    case join(GroupMembership)
    /// Drop the membership and close its socket.
    case leave(GroupMembership)
    /// Drop and add again on the same socket: the kernel sends a fresh unsolicited IGMP/MLD
    /// report, which makes a snooping switch that forgot the port forward the group again.
    case rejoin(GroupMembership)

    public var membership: GroupMembership {
        switch self {
        case .join(let m), .leave(let m), .rejoin(let m): return m
        }
    }

    public var description: String {
        switch self {
        case .join(let m): return "join \(m)"
        case .leave(let m): return "leave \(m)"
        case .rejoin(let m): return "rejoin \(m)"
        }
    }
}

/// The memberships held versus the memberships wanted: each `update` with the desired endpoint
/// set returns the leaves (first, so a group switching between any-source and one source is
/// released before it is taken again) and then the joins, each in sorted order. The plan assumes
/// each action succeeds; the driver reports a failed join with `joinFailed`, so the next update
/// tries it again.
public struct MembershipPlan: Sendable, Equatable {
    /// Memberships believed held, i.e. joined and not left.
    public private(set) var held: Set<GroupMembership> = []

    public init() {}

    public mutating func update(desired endpoints: [MulticastEndpoint]) -> [MembershipAction] {
        let wanted = Set(endpoints.map(\.membership))
        let leaves = held.subtracting(wanted).sorted().map(MembershipAction.leave)
        let joins = wanted.subtracting(held).sorted().map(MembershipAction.join)
        held = wanted
        return leaves + joins
    }

    /// The driver could not join `membership` (its error is the driver's to report): forget it,
    /// so the next `update` returns the join again.
    public mutating func joinFailed(_ membership: GroupMembership) {
        held.remove(membership)
    }

    /// Every membership is gone (the interface disappeared, the driver closed the sockets): the
    /// next `update` joins everything wanted again.
    public mutating func reset() {
        held.removeAll()
    }

    /// Everything held, to leave on shutdown.
    public mutating func leaveAll() -> [MembershipAction] {
        defer { held.removeAll() }
        return held.sorted().map(MembershipAction.leave)
    }
}
