#if canImport(Glibc)
import Glibc
#endif
import GrandstandCore

/// A UDP socket for sending to multicast groups of one address family: outgoing interface,
/// TTL / hop limit, loopback, and optionally a bound source address. Owns its descriptor.
public final class MulticastSender {
    public struct Options: Sendable, Equatable {
        /// Outgoing interface name (IP_MULTICAST_IF / IPV6_MULTICAST_IF); nil lets routing choose.
        public var interface: String?
        public var ttl: Int
        /// IP_MULTICAST_LOOP: deliver to listeners on this host too (needed on `lo` and for demos).
        public var loopback: Bool
        /// Bind to this source address (port 0) so packets leave from it.
        public var source: IPAddress?

        public init(interface: String? = nil, ttl: Int = 16, loopback: Bool = true, source: IPAddress? = nil) {
            self.interface = interface
            self.ttl = ttl
            self.loopback = loopback
            self.source = source
        }
    }

    public let ipv6: Bool
    public let options: Options
    private let descriptor: Int32

    /// Opens and configures the socket for IPv4 or IPv6 destinations.
    public init(ipv6: Bool, options: Options) throws(MulticastError) {
        self.ipv6 = ipv6
        self.options = options
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw MulticastError.errno("socket(\(ipv6 ? "AF_INET6" : "AF_INET"), SOCK_DGRAM)") }
        descriptor = fd
        // Fully initialized from here: if configure() throws, deinit closes the socket. Closing it
        // here too was a double close that could hit another thread's descriptor.
        try configure()
    }

    deinit { close(descriptor) }

    private func configure() throws(MulticastError) {
        let index = try options.interface.map { name throws(MulticastError) in try NetworkInterface.index(named: name) }
        if ipv6 {
            if let index { try set(Int32(IPPROTO_IPV6), IPV6_MULTICAST_IF, Int32(bitPattern: index), "IPV6_MULTICAST_IF") }
            try set(Int32(IPPROTO_IPV6), IPV6_MULTICAST_HOPS, Int32(options.ttl), "IPV6_MULTICAST_HOPS")
            try set(Int32(IPPROTO_IPV6), IPV6_MULTICAST_LOOP, options.loopback ? 1 : 0, "IPV6_MULTICAST_LOOP")
        } else {
            if let index {
                var request = ip_mreqn()
                request.imr_ifindex = Int32(bitPattern: index)
                try set(Int32(IPPROTO_IP), IP_MULTICAST_IF, request, "IP_MULTICAST_IF")
            }
            try set(Int32(IPPROTO_IP), IP_MULTICAST_TTL, Int32(options.ttl), "IP_MULTICAST_TTL")
            try set(Int32(IPPROTO_IP), IP_MULTICAST_LOOP, options.loopback ? 1 : 0, "IP_MULTICAST_LOOP")
        }
        if let source = options.source {
            guard source.isIPv6 == ipv6 else {
                throw MulticastError("bind(\(source)): source address family differs from the destination's", code: EAFNOSUPPORT)
            }
            let status = SocketAddress.withSockaddr(Endpoint(address: source, port: 0)) { bind(descriptor, $0, $1) }
            guard status == 0 else { throw MulticastError.errno("bind(\(source))") }
        }
    }

    private func set<T: BitwiseCopyable>(_ level: Int32, _ name: Int32, _ value: T, _ label: String) throws(MulticastError) {
        let status = withUnsafeBytes(of: value) { setsockopt(descriptor, level, name, $0.baseAddress, socklen_t($0.count)) }
        guard status == 0 else { throw MulticastError.errno("setsockopt(\(label))") }
    }

    /// The kernel's IP_MULTICAST_LOOP / IPV6_MULTICAST_LOOP and TTL / hop limit as set (on
    /// `lo` itself delivery happens either way: its wire is the loopback).
    public func kernelSettings() throws(MulticastError) -> (loopback: Bool, ttl: Int) {
        func get(_ level: Int32, _ name: Int32, _ label: String) throws(MulticastError) -> Int {
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(descriptor, level, name, &value, &length) == 0 else { throw MulticastError.errno("getsockopt(\(label))") }
            // IPv4 may answer with a single byte for these options.
            return length == 1 ? Int(value & 0xFF) : Int(value)
        }
        if ipv6 {
            return (try get(Int32(IPPROTO_IPV6), IPV6_MULTICAST_LOOP, "IPV6_MULTICAST_LOOP") != 0,
                    try get(Int32(IPPROTO_IPV6), IPV6_MULTICAST_HOPS, "IPV6_MULTICAST_HOPS"))
        }
        return (try get(Int32(IPPROTO_IP), IP_MULTICAST_LOOP, "IP_MULTICAST_LOOP") != 0,
                try get(Int32(IPPROTO_IP), IP_MULTICAST_TTL, "IP_MULTICAST_TTL"))
    }

    /// The local address and port the kernel chose (after the first send, or bound).
    public func localEndpoint() throws(MulticastError) -> Endpoint? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard status == 0 else { throw MulticastError.errno("getsockname") }
        return SocketAddress.endpoint(storage)
    }

    /// Sends one datagram; EINTR is retried, other failures throw with errno.
    public func send(_ payload: [UInt8], to destination: Endpoint) throws(MulticastError) {
        guard destination.address.isIPv6 == ipv6 else {
            throw MulticastError("sendto(\(destination)): address family differs from the socket's", code: EAFNOSUPPORT)
        }
        while true {
            let sent = payload.withUnsafeBytes { bytes in
                SocketAddress.withSockaddr(destination) { sendto(descriptor, bytes.baseAddress, bytes.count, 0, $0, $1) }
            }
            if sent >= 0 { return }
            if Glibc.errno == EINTR { continue }
            throw MulticastError.errno("sendto(\(destination))")
        }
    }
}
