import GrandstandCore
#if canImport(Glibc)
import Glibc
#endif

/// A minimal HTTP/1.1 request to the management listener (one request per connection, body
/// read to EOF). Interim for `grandstand leds` until it moves onto the HTTPClient adapter.
enum ManagementCall {
    struct Failure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    /// Sends `method path` with the bearer token; returns the status and body text.
    static func request(method: String, path: String, address: ListenAddress, token: String,
                        timeoutSeconds: Int = 5) throws -> (status: Int, body: String) {
        // A wildcard listen address is reached on loopback.
        let host = address.host == "0.0.0.0" ? "127.0.0.1" : (address.host == "::" ? "::1" : address.host)
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let gai = getaddrinfo(host, String(address.port), &hints, &found)
        guard gai == 0, let info = found else {
            throw Failure(message: "bad management address \(address): \(String(cString: gai_strerror(gai)))")
        }
        defer { freeaddrinfo(info) }
        let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(message: "socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            let reason = errno == ECONNREFUSED ? "connection refused (is grandstand running?)" : String(cString: strerror(errno))
            throw Failure(message: "cannot reach the management listener at \(address): \(reason)")
        }
        let request = "\(method) \(path) HTTP/1.1\r\nHost: \(address)\r\nAuthorization: Bearer \(token)\r\n"
            + "Content-Length: 0\r\nConnection: close\r\n\r\n"
        let bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(message: "sending to \(address): \(String(cString: strerror(errno)))") }
            sent += n
        }
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { break }
            guard n > 0 else {
                let reason = errno == EAGAIN ? "timed out after \(timeoutSeconds) s" : String(cString: strerror(errno))
                throw Failure(message: "reading from \(address): \(reason)")
            }
            reply.append(contentsOf: buffer[0..<n])
        }
        return try parse(reply)
    }

    /// Status code and body of a whole response (Content-Length or read-to-EOF bodies).
    static func parse(_ reply: [UInt8]) throws -> (status: Int, body: String) {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, reply.count - 3)).first(where: { Array(reply[$0..<$0 + 4]) == separator }) else {
            throw Failure(message: "malformed HTTP response (\(reply.count) bytes)")
        }
        let head = String(decoding: reply[0..<end], as: UTF8.self)
        let statusLine = head.split(separator: "\r\n").first.map(String.init) ?? ""
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
            throw Failure(message: "malformed HTTP status line \"\(statusLine)\"")
        }
        return (status, String(decoding: reply[(end + 4)...], as: UTF8.self))
    }
}
