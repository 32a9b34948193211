/// One multicast stream the gateway wants: destination group and UDP port, and for
/// source-specific multicast (RFC 4607) the one sender to accept. The registry's
/// `IngestEndpoint` (what `IngestPipeline.endpoints` lists) is this type, so its list feeds
/// `CaptureFilter` and `MembershipPlan` as is. Ordered by group, port, then source (any first).
public typealias MulticastEndpoint = IngestEndpoint

extension IngestEndpoint {
    /// The IGMP/MLD membership this endpoint needs (memberships are per group and source, not port).
    public var membership: GroupMembership { GroupMembership(group: group, source: source) }

    /// `groups` on the SAP port (RFC 2974 §3), by default the configuration's well-known SAP
    /// groups: 224.2.127.254 (where FFmpeg announces), 239.255.255.255 (where VLC announces
    /// 239.255/16 groups) and ff0e::2:7ffe.
    public static func sap(_ groups: [IPAddress] = GatewayConfig.Discovery.wellKnownSAPGroups) -> [IngestEndpoint] {
        groups.map { IngestEndpoint(group: $0, port: SAPMessage.port) }
    }
}

/// An IGMP (IPv4) or MLD (IPv6) membership: a group, optionally restricted to one source.
public struct GroupMembership: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var group: IPAddress
    public var source: IPAddress?

    public init(group: IPAddress, source: IPAddress? = nil) {
        self.group = group
        self.source = source
    }

    public static func < (a: GroupMembership, b: GroupMembership) -> Bool {
        a.group != b.group ? a.group < b.group : sourceOrder(a.source, b.source)
    }

    /// Any-source (nil) sorts before a specific source, as in `IngestEndpoint`.
    static func sourceOrder(_ a: IPAddress?, _ b: IPAddress?) -> Bool {
        switch (a, b) {
        case (nil, nil), (_?, nil): return false
        case (nil, _?): return true
        case (let x?, let y?): return x < y
        }
    }

    /// Whether a datagram from `sender` to `destination` is traffic of this membership.
    public func matches(destination: IPAddress, sender: IPAddress) -> Bool {
        destination == group && (source == nil || source == sender)
    }

    public var description: String { source.map { "(\($0), \(group))" } ?? "(*, \(group))" }
}
