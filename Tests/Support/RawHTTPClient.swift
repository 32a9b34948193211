import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A deliberately dumb HTTP/1.1 client over a blocking TCP socket: sends exactly the bytes given
/// and reads until the server closes, so tests see what goes over the wire.
public struct RawHTTPClient {
    public struct Reply {
        public var status: Int
        public var headers: [String: String]
        public var body: [UInt8]
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public let port: UInt16
    public init(port: UInt16) { self.port = port }

    public func get(_ target: String, headers: [String] = []) throws -> Reply {
        try send(Array(("GET \(target) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
            + headers.map { $0 + "\r\n" }.joined() + "\r\n").utf8))
    }

    public func post(_ target: String, body: [UInt8]) throws -> Reply {
        try send(Array(("POST \(target) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
            + "Content-Length: \(body.count)\r\n\r\n").utf8) + body)
    }

    public func send(_ request: [UInt8]) throws -> Reply {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "connect :\(port): errno \(errno)") }
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { break } // the server may answer and close before reading everything
            sent += n
        }
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { break }
            response += chunk[..<n]
        }
        return try parse(response)
    }

    private func parse(_ bytes: [UInt8]) throws -> Reply {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0...(max(0, bytes.count - 4))).first(where: { Array(bytes[$0..<min($0 + 4, bytes.count)]) == separator })
        else { throw Failure(description: "no header end in \(bytes.count) bytes") }
        let head = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw Failure(description: "bad status line \(head[0])") }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Reply(status: status, headers: headers, body: Array(bytes[(end + 4)...]))
    }
}
