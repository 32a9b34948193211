#if canImport(Glibc)
import Glibc
#endif
import GrandstandCore

/// A UDP socket bound to a port and joined to groups on one interface, for tests and
/// diagnostics (the gateway itself captures with libpcap). Owns its descriptor.
public final class MulticastReceiver {
    public let ipv6: Bool
    private let descriptor: Int32
    private let interfaceIndex: UInt32

    /// Binds the wildcard address at `port` (SO_REUSEADDR, so several receivers can share it).
    public init(port: UInt16, ipv6: Bool = false, interface: String? = nil) throws(MulticastError) {
        self.ipv6 = ipv6
        interfaceIndex = try interface.map { name throws(MulticastError) in try NetworkInterface.index(named: name) } ?? 0
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw MulticastError.errno("socket(SOCK_DGRAM)") }
        descriptor = fd
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let any: IPAddress = ipv6 ? .v6(0, 0) : .v4(0)
        let status = SocketAddress.withSockaddr(Endpoint(address: any, port: port)) { bind(fd, $0, $1) }
        // Fully initialized here: a throw runs deinit, which closes the socket (once).
        guard status == 0 else { throw MulticastError.errno("bind(port \(port))") }
    }

    deinit { close(descriptor) }

    /// IP_ADD_MEMBERSHIP / IPV6_JOIN_GROUP on the receiver's interface.
    public func join(_ group: IPAddress) throws(MulticastError) {
        let status: Int32
        if case .v4(let value) = group {
            var request = ip_mreqn()
            request.imr_multiaddr.s_addr = value.bigEndian
            request.imr_ifindex = Int32(bitPattern: interfaceIndex)
            status = setsockopt(descriptor, Int32(IPPROTO_IP), IP_ADD_MEMBERSHIP, &request, socklen_t(MemoryLayout<ip_mreqn>.size))
        } else {
            var request = ipv6_mreq()
            request.ipv6mr_multiaddr = SocketAddress.in6Address(group)
            request.ipv6mr_interface = interfaceIndex
            status = setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_JOIN_GROUP, &request, socklen_t(MemoryLayout<ipv6_mreq>.size))
        }
        guard status == 0 else { throw MulticastError.errno("join(\(group))") }
    }

    /// One datagram and its sender, or nil when none arrived within `timeoutMilliseconds`.
    public func receive(timeoutMilliseconds: Int32, maximumSize: Int = 65536) throws(MulticastError) -> (payload: [UInt8], source: Endpoint?)? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, timeoutMilliseconds)
        if ready < 0 { throw MulticastError.errno("poll") }
        if ready == 0 { return nil }
        var buffer = [UInt8](repeating: 0, count: maximumSize)
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let count = buffer.withUnsafeMutableBytes { bytes in
            withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(descriptor, bytes.baseAddress, bytes.count, 0, $0, &length) }
            }
        }
        guard count >= 0 else { throw MulticastError.errno("recvfrom") }
        return (Array(buffer[..<count]), SocketAddress.endpoint(storage))
    }
}
