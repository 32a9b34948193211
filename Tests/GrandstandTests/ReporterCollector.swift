import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A local Reporter for upload tests: accepts POSTs on 127.0.0.1 one at a time and answers per
/// its current mode (fail with a status, answer late, accept). `closeListener` makes the port
/// refuse connections until `listen` opens it again (same port).
final class ReporterCollector: @unchecked Sendable {
    enum Mode: Equatable { case fail(Int), delay(milliseconds: Int), accept }

    private let lock = NSLock()
    private var modeValue = Mode.accept
    private var acceptedBodies: [[UInt8]] = []
    private var requestCount = 0
    private var stopping = false
    private var thread: Thread?
    private var finished = DispatchSemaphore(value: 0)
    private(set) var port: UInt16 = 0

    var mode: Mode {
        get { lock.withLock { modeValue } }
        set { lock.withLock { modeValue = newValue } }
    }
    /// Bodies answered 2xx, in arrival order.
    var accepted: [[UInt8]] { lock.withLock { acceptedBodies } }
    var requests: Int { lock.withLock { requestCount } }

    /// Opens the listener (on the previous port when reopening) and serves until `closeListener`.
    func listen() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw CollectorError("socket: errno \(errno)") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(fd, 16) == 0 else {
            close(fd)
            throw CollectorError("bind/listen 127.0.0.1:\(port): errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        lock.withLock { stopping = false }
        finished = DispatchSemaphore(value: 0)
        let done = finished
        let thread = Thread { [self] in
            serve(fd)
            close(fd)
            done.signal()
        }
        self.thread = thread
        thread.start()
    }

    func closeListener() {
        lock.withLock { stopping = true }
        if thread != nil { finished.wait() }
        thread = nil
    }

    private func serve(_ listener: Int32) {
        while !lock.withLock({ stopping }) {
            var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 50) > 0 else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            handle(connection)
            close(connection)
        }
    }

    private func handle(_ fd: Int32) {
        guard let body = readRequest(fd) else { return }
        let mode = self.mode
        lock.withLock { requestCount += 1 }
        var status = 200
        switch mode {
        case .fail(let code): status = code
        case .delay(let milliseconds): usleep(UInt32(milliseconds) * 1000)
        case .accept: break
        }
        if status / 100 == 2 { lock.withLock { acceptedBodies.append(body) } }
        let answer = Array("HTTP/1.1 \(status) X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
        _ = answer.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// The body of one request (headers up to CRLFCRLF, then Content-Length bytes).
    private func readRequest(_ fd: Int32) -> [UInt8]? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 8192)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        while true {
            if let end = headerEnd(bytes) {
                let header = String(decoding: bytes[..<end], as: UTF8.self).lowercased()
                let length = header.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces)) } ?? 0
                if bytes.count >= end + 4 + length { return Array(bytes[(end + 4)..<(end + 4 + length)]) }
            }
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else { return nil }
            bytes.append(contentsOf: chunk[..<count])
        }
    }

    private func headerEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        return (0...(bytes.count - 4)).first { bytes[$0] == 13 && bytes[$0 + 1] == 10 && bytes[$0 + 2] == 13 && bytes[$0 + 3] == 10 }
    }
}

struct CollectorError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
