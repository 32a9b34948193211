#if canImport(Glibc)
import Glibc
#endif

/// Holds one IGMP (IPv4) or MLD (IPv6) group membership on an interface, because libpcap only
/// listens and never joins: without a membership a snooping switch or router does not forward the
/// group to the box. One UDP socket per membership; closing it (deinit) leaves the group.
///
/// The socket is never bound, so it has no port and the kernel delivers it no datagram at all:
/// it cannot buffer or consume channel traffic (the capture sees the packets at the link layer).
/// Its receive buffer is also set to the minimum, in case. Joins:
/// - any-source IPv4: `IP_ADD_MEMBERSHIP` with `ip_mreqn` (interface by index);
/// - any-source IPv6: `IPV6_JOIN_GROUP` with `ipv6_mreq`;
/// - source-specific (either family): `MCAST_JOIN_SOURCE_GROUP` (RFC 3678) with
///   `group_source_req`, which names the interface by index. `IP_ADD_SOURCE_MEMBERSHIP` would
///   need an IPv4 address of the interface instead, which an uplink may not have yet.
public final class MulticastMembership {
    public let group: String
    /// The one sender to accept (SSM, IGMPv3/MLDv2 INCLUDE mode), nil for any source.
    public let source: String?
    /// The interface name, or nil to let the kernel choose by route (index 0).
    public let interface: String?
    /// The interface index of the last join (re-resolved on each join: a re-created interface
    /// gets a new index).
    public private(set) var interfaceIndex: UInt32 = 0
    public private(set) var isJoined = false

    private let socketDescriptor: Int32
    private let groupAddress: SocketAddress
    private let sourceAddress: SocketAddress?

    /// Creates the socket and joins.
    public init(group: String, source: String? = nil, interface: String?) throws(CaptureError) {
        self.group = group
        self.source = source
        self.interface = interface
        groupAddress = try SocketAddress(parsing: group, what: "group")
        if let source {
            sourceAddress = try SocketAddress(parsing: source, what: "source")
        } else {
            sourceAddress = nil
        }
        if let sourceAddress, sourceAddress.family != groupAddress.family {
            throw CaptureError("join \(group) source \(sourceAddress.text)", errno: EAFNOSUPPORT)
        }
        let fd = socket(groupAddress.family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), Int32(IPPROTO_UDP))
        guard fd >= 0 else { throw CaptureError("socket for \(group)", errno: errno) }
        socketDescriptor = fd
        var smallest: Int32 = 0 // the kernel rounds up to its minimum (a few kB)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &smallest, socklen_t(MemoryLayout<Int32>.size))
        try join()
    }

    deinit { close(socketDescriptor) }

    /// Joins (sends an unsolicited IGMP/MLD report). Joining twice is EADDRINUSE from the kernel.
    public func join() throws(CaptureError) {
        interfaceIndex = try resolveInterface()
        try apply(joining: true)
        isJoined = true
    }

    /// Leaves (sends an IGMP leave / MLD done).
    public func leave() throws(CaptureError) {
        try apply(joining: false)
        isJoined = false
    }

    /// Leave and join again, which makes the kernel send a fresh report. The leave may fail when
    /// the kernel already dropped the membership with the interface: that is ignored.
    public func rejoin() throws(CaptureError) {
        if isJoined { try? leave() }
        isJoined = false
        try join()
    }

    /// Bytes waiting in the socket (FIONREAD): stays 0, since the socket has no port.
    public var queuedBytes: Int {
        var count: Int32 = 0
        return ioctl(socketDescriptor, UInt(FIONREAD), &count) == 0 ? Int(count) : -1
    }

    private var label: String {
        let what = source.map { "(\($0), \(group))" } ?? group
        return interface.map { "\(what) on \($0)" } ?? what
    }

    private func resolveInterface() throws(CaptureError) -> UInt32 {
        guard let interface else { return 0 }
        let index = if_nametoindex(interface)
        guard index != 0 else { throw CaptureError("find interface \(interface) to join \(group)", errno: errno == 0 ? ENODEV : errno) }
        return index
    }

    private func apply(joining: Bool) throws(CaptureError) {
        let level: Int32
        let option: Int32
        let name: String
        let status: Int32
        if let sourceAddress {
            var request = group_source_req()
            request.gsr_interface = interfaceIndex
            groupAddress.store(into: &request.gsr_group)
            sourceAddress.store(into: &request.gsr_source)
            level = groupAddress.family == AF_INET6 ? Int32(IPPROTO_IPV6) : Int32(IPPROTO_IP)
            (option, name) = joining ? (Int32(MCAST_JOIN_SOURCE_GROUP), "MCAST_JOIN_SOURCE_GROUP")
                                     : (Int32(MCAST_LEAVE_SOURCE_GROUP), "MCAST_LEAVE_SOURCE_GROUP")
            status = setsockopt(socketDescriptor, level, option, &request, socklen_t(MemoryLayout<group_source_req>.size))
        } else if case .v6(let address) = groupAddress.storage {
            var request = ipv6_mreq(ipv6mr_multiaddr: address.sin6_addr, ipv6mr_interface: interfaceIndex)
            level = Int32(IPPROTO_IPV6)
            (option, name) = joining ? (Int32(IPV6_JOIN_GROUP), "IPV6_JOIN_GROUP") : (Int32(IPV6_LEAVE_GROUP), "IPV6_LEAVE_GROUP")
            status = setsockopt(socketDescriptor, level, option, &request, socklen_t(MemoryLayout<ipv6_mreq>.size))
        } else if case .v4(let address) = groupAddress.storage {
            var request = ip_mreqn(imr_multiaddr: address.sin_addr, imr_address: in_addr(s_addr: 0),
                                   imr_ifindex: Int32(bitPattern: interfaceIndex))
            level = Int32(IPPROTO_IP)
            (option, name) = joining ? (Int32(IP_ADD_MEMBERSHIP), "IP_ADD_MEMBERSHIP") : (Int32(IP_DROP_MEMBERSHIP), "IP_DROP_MEMBERSHIP")
            status = setsockopt(socketDescriptor, level, option, &request, socklen_t(MemoryLayout<ip_mreqn>.size))
        } else {
            return
        }
        if status != 0 { throw CaptureError("\(name) \(label)", errno: errno) }
    }
}

/// A numeric IPv4 or IPv6 address as the socket API wants it.
struct SocketAddress {
    enum Storage {
        case v4(sockaddr_in)
        case v6(sockaddr_in6)
    }

    let storage: Storage
    let text: String

    init(parsing text: String, what: String) throws(CaptureError) {
        self.text = text
        if text.contains(":") {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            guard inet_pton(AF_INET6, text, &address.sin6_addr) == 1 else {
                throw CaptureError("parse \(what) address \"\(text)\"", errno: EINVAL)
            }
            storage = .v6(address)
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            guard inet_pton(AF_INET, text, &address.sin_addr) == 1 else {
                throw CaptureError("parse \(what) address \"\(text)\"", errno: EINVAL)
            }
            storage = .v4(address)
        }
    }

    var family: Int32 {
        switch storage {
        case .v4: return AF_INET
        case .v6: return AF_INET6
        }
    }

    func store(into target: inout sockaddr_storage) {
        withUnsafeMutableBytes(of: &target) { raw in
            switch storage {
            case .v4(var address): withUnsafeBytes(of: &address) { raw.copyMemory(from: $0) }
            case .v6(var address): withUnsafeBytes(of: &address) { raw.copyMemory(from: $0) }
            }
        }
    }
}
