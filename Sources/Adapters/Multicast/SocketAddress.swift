#if canImport(Glibc)
import Glibc
#endif
import GrandstandCore

/// Builds and reads `sockaddr_in`/`sockaddr_in6` for the core's `Endpoint`.
enum SocketAddress {
    static func withSockaddr<R>(_ endpoint: Endpoint, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        switch endpoint.address {
        case .v4(let value):
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = endpoint.port.bigEndian
            address.sin_addr.s_addr = value.bigEndian
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        case .v6:
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = endpoint.port.bigEndian
            address.sin6_addr = in6Address(endpoint.address)
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
    }

    static func in6Address(_ address: IPAddress) -> in6_addr {
        var raw = in6_addr()
        guard case .v6(let high, let low) = address else { return raw }
        withUnsafeMutableBytes(of: &raw) { bytes in
            for i in 0..<8 {
                bytes[i] = UInt8(truncatingIfNeeded: high >> UInt64(56 - 8 * i))
                bytes[8 + i] = UInt8(truncatingIfNeeded: low >> UInt64(56 - 8 * i))
            }
        }
        return raw
    }

    /// The endpoint in a `sockaddr_storage` filled by the kernel (recvfrom, getsockname).
    static func endpoint(_ storage: sockaddr_storage) -> Endpoint? {
        let family = Int32(storage.ss_family)
        return withUnsafeBytes(of: storage) { raw -> Endpoint? in
            switch family {
            case AF_INET:
                let address = raw.load(as: sockaddr_in.self)
                return Endpoint(address: .v4(UInt32(bigEndian: address.sin_addr.s_addr)), port: UInt16(bigEndian: address.sin_port))
            case AF_INET6:
                let address = raw.load(as: sockaddr_in6.self)
                let bytes = withUnsafeBytes(of: address.sin6_addr) { Array($0) }
                guard let ip = IPAddress(bytes: bytes[...]) else { return nil }
                return Endpoint(address: ip, port: UInt16(bigEndian: address.sin6_port))
            default:
                return nil
            }
        }
    }
}

/// Network interfaces by name: index and first address of a family (the SAP origin).
public enum NetworkInterface {
    /// `if_nametoindex`; throws ENODEV-style errors for unknown names.
    public static func index(named name: String) throws(MulticastError) -> UInt32 {
        let index = if_nametoindex(name)
        guard index != 0 else { throw MulticastError.errno("if_nametoindex(\(name))") }
        return index
    }

    /// The source address the routing table picks toward `destination` (a connected UDP
    /// socket's local address; nothing is sent).
    public static func sourceAddress(toward destination: Endpoint) throws(MulticastError) -> IPAddress? {
        let fd = socket(destination.address.isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw MulticastError.errno("socket(SOCK_DGRAM)") }
        defer { close(fd) }
        let status = SocketAddress.withSockaddr(destination) { connect(fd, $0, $1) }
        guard status == 0 else { throw MulticastError.errno("connect(\(destination))") }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw MulticastError.errno("getsockname") }
        // A route without a preferred source (e.g. multicast via lo) leaves it unspecified.
        guard let address = SocketAddress.endpoint(storage)?.address, address != .v4(0), address != .v6(0, 0) else { return nil }
        return address
    }

    /// The first IPv4 (or IPv6, preferring non-link-local) address of the interface, nil if none.
    public static func address(named name: String, ipv6: Bool) throws(MulticastError) -> IPAddress? {
        var list: UnsafeMutablePointer<ifaddrs>? = nil
        guard getifaddrs(&list) == 0 else { throw MulticastError.errno("getifaddrs") }
        defer { freeifaddrs(list) }
        var found: [IPAddress] = []
        var cursor = list
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard let sa = entry.pointee.ifa_addr, String(cString: entry.pointee.ifa_name) == name else { continue }
            let family = Int32(sa.pointee.sa_family)
            guard family == (ipv6 ? AF_INET6 : AF_INET) else { continue }
            var storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) { destination in
                let size = family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size
                destination.copyMemory(from: UnsafeRawBufferPointer(start: sa, count: size))
            }
            if let endpoint = SocketAddress.endpoint(storage) { found.append(endpoint.address) }
        }
        // fe80::/10 is link-local: usable, but a global or ULA address says more as an origin.
        return found.first { if case .v6(let high, _) = $0 { return high >> 54 != 0x3FA } else { return true } } ?? found.first
    }
}
