import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A client socket the limit tests drive by hand: choose the source address (127.0.0.x, so
/// "another client" is another address on loopback), send bytes slowly, see when the server
/// closes. Unlike RawHTTPClient it keeps the connection open between calls.
final class RawSocket {
    let fd: Int32

    struct Failure: Error, CustomStringConvertible { let description: String }

    init(port: UInt16, from source: String = "127.0.0.1", timeout: Double = 10) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: .init((timeout - Double(Int(timeout))) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, source, &local.sin_addr)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { close(fd); throw Failure(description: "bind \(source): errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { let e = errno; close(fd); throw Failure(description: "connect: errno \(e)") }
    }

    deinit { close(fd) }

    /// Sends everything it can; false once the server has closed (EPIPE/ECONNRESET).
    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }

    /// Reads what arrives until the server closes or the timeout; `closed` tells which.
    func readAll() -> (bytes: [UInt8], closed: Bool) {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n == 0 { return (bytes, true) }
            if n < 0 { return (bytes, errno == ECONNRESET) }
            bytes += chunk[..<n]
        }
    }

    /// Reads until `marker` appears (or close/timeout).
    func read(until marker: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        let needle = Array(marker.utf8)
        while !bytes.containsSequence(needle) {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { break }
            bytes += chunk[..<n]
        }
        return bytes
    }

    /// The status code of the first response line in `bytes`, or nil.
    static func status(_ bytes: [UInt8]) -> Int? {
        let line = String(decoding: bytes.prefix(64), as: UTF8.self)
        guard line.hasPrefix("HTTP/1.") else { return nil }
        return Int(line.dropFirst(9).prefix(3))
    }
}

extension Array where Element == UInt8 {
    func containsSequence(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, count >= needle.count else { return needle.isEmpty }
        return (0...(count - needle.count)).contains { self[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}

/// The process's resident set, bytes (/proc/self/statm).
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
}
