/// One multicast stream the gateway wants: destination group and UDP port, and for
/// source-specific multicast (RFC 4607) the one sender to accept. Plain values, so the registry
/// (channels plus SAP groups) and the live driver share them without knowing about channels.
public struct MulticastEndpoint: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var group: IPAddress
    public var port: UInt16
    public var source: IPAddress?

    public init(group: IPAddress, port: UInt16, source: IPAddress? = nil) {
        self.group = group
        self.port = port
        self.source = source
    }

    /// The IGMP/MLD membership this endpoint needs (memberships are per group and source, not port).
    public var membership: GroupMembership { GroupMembership(group: group, source: source) }

    /// Ordered by group, then port, then source (any-source first): the filter's stable order.
    public static func < (a: MulticastEndpoint, b: MulticastEndpoint) -> Bool {
        if a.group != b.group { return a.group < b.group }
        if a.port != b.port { return a.port < b.port }
        return GroupMembership.sourceOrder(a.source, b.source)
    }

    public var description: String {
        let destination = Endpoint(address: group, port: port).description
        return source.map { "\($0)→\(destination)" } ?? destination
    }

    /// The SAP groups every gateway listens to (RFC 2974 §3): IPv4 global scope 224.2.127.254,
    /// IPv4 administrative scope 239.255.255.255 (where VLC announces) and IPv6 site-local
    /// ff05::2:7ffe and global ff0e::2:7ffe, all on port 9875.
    public static let defaultSAPGroups: [IPAddress] = ["224.2.127.254", "239.255.255.255", "ff05::2:7ffe", "ff0e::2:7ffe"]
        .compactMap { IPAddress(parsing: $0) }

    /// `groups` on the SAP port.
    public static func sap(_ groups: [IPAddress] = defaultSAPGroups) -> [MulticastEndpoint] {
        groups.map { MulticastEndpoint(group: $0, port: SAPMessage.port) }
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

    /// Any-source (nil) sorts before a specific source.
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
