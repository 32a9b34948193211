#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 listen address as a C `sockaddr_storage`, parsed from a numeric host.
struct SocketAddress {
    var storage = sockaddr_storage()

    init(host: String, port: UInt16) throws(HTTPServerError) {
        var v4 = sockaddr_in()
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &storage) { $0.copyBytes(from: withUnsafeBytes(of: v4) { Array($0) }) }
            return
        }
        var v6 = sockaddr_in6()
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if inet_pton(AF_INET6, bare, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            withUnsafeMutableBytes(of: &storage) { $0.copyBytes(from: withUnsafeBytes(of: v6) { Array($0) }) }
            return
        }
        throw HTTPServerError("listen address \(host) is not a numeric IPv4 or IPv6 address", errno: EINVAL)
    }

    /// Renders a peer address as `a.b.c.d:port` or `[v6]:port`.
    static func describe(_ address: UnsafePointer<sockaddr>) -> String? {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                var addr = v4.pointee.sin_addr
                guard let host = inet_ntop(AF_INET, &addr, &text, socklen_t(text.count)) else { return nil }
                return "\(String(cString: host)):\(UInt16(bigEndian: v4.pointee.sin_port))"
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                var addr = v6.pointee.sin6_addr
                guard let host = inet_ntop(AF_INET6, &addr, &text, socklen_t(text.count)) else { return nil }
                return "[\(String(cString: host))]:\(UInt16(bigEndian: v6.pointee.sin6_port))"
            }
        default:
            return nil
        }
    }
}
