#if canImport(Glibc)
import Glibc
#endif

/// A resolved socket address for libsrt (IPv4 or IPv6), from a host name or a numeric address.
public struct SRTAddress: Sendable, CustomStringConvertible {
    var storage = sockaddr_storage()
    var length: Int32 = 0

    /// Resolves `host:port` (getaddrinfo, first result). An empty host: every IPv4 address (a
    /// listener's bind address).
    public static func resolve(host: String, port: UInt16) throws(SRTError) -> SRTAddress {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        hints.ai_flags = host.isEmpty ? AI_PASSIVE : 0
        hints.ai_family = host.isEmpty ? AF_INET : AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host.isEmpty ? nil : host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw SRTError("resolve \(host):\(port)", code: status, message: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }
        var address = SRTAddress()
        address.length = Int32(first.pointee.ai_addrlen)
        withUnsafeMutableBytes(of: &address.storage) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: first.pointee.ai_addr, count: Int(first.pointee.ai_addrlen)))
        }
        return address
    }

    init(storage: sockaddr_storage, length: Int32) {
        self.storage = storage
        self.length = length
    }

    init() {}

    /// Calls `body` with the address as a `sockaddr` pointer and its length.
    func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>, Int32) -> T) -> T {
        withUnsafeBytes(of: storage) { raw in body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), length) }
    }

    public var port: UInt16 {
        withUnsafeBytes(of: storage) { raw in
            switch Int32(storage.ss_family) {
            case AF_INET: return UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port)
            case AF_INET6: return UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port)
            default: return 0
            }
        }
    }

    /// `203.0.113.5:9000` or `[2001:db8::5]:9000`.
    public var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = Int32(storage.ss_family)
        withUnsafeBytes(of: storage) { raw in
            if family == AF_INET {
                var address = raw.load(as: sockaddr_in.self).sin_addr
                _ = inet_ntop(AF_INET, &address, &text, socklen_t(text.count))
            } else if family == AF_INET6 {
                var address = raw.load(as: sockaddr_in6.self).sin6_addr
                _ = inet_ntop(AF_INET6, &address, &text, socklen_t(text.count))
            }
        }
        let host = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return family == AF_INET6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
