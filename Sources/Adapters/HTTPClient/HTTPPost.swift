import GrandstandCore
#if canImport(Glibc)
import Glibc
#endif

/// One HTTP/1.1 POST over a fresh TCP connection (`Connection: close`), with one deadline for
/// connect, send and the whole answer. Enough for the Reporter upload; no TLS, no redirects.
public enum HTTPPost {
    public struct Response: Sendable, Equatable {
        public var status: Int
        public var body: [UInt8]
    }

    /// The largest answer read; the uploader only needs the status line.
    static let responseLimit = 64 * 1024

    public static func send(_ body: [UInt8], to target: UploadTarget, contentType: String = "application/json",
                            headers: [(String, String)] = [], timeoutMilliseconds: Int) throws(HTTPPostError) -> Response {
        let deadline = monotonicMilliseconds() + Int64(max(1, timeoutMilliseconds))
        let fd = try connect(to: target, deadline: deadline)
        defer { close(fd) }
        let hostHeader = target.host.contains(":") ? "[\(target.host)]:\(target.port)" : "\(target.host):\(target.port)"
        var request = "POST \(target.target) HTTP/1.1\r\nHost: \(hostHeader)\r\nContent-Type: \(contentType)\r\n"
            + "Content-Length: \(body.count)\r\nConnection: close\r\nUser-Agent: grandstand\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        var bytes = Array((request + "\r\n").utf8)
        bytes.append(contentsOf: body)
        try sendAll(fd, bytes, deadline: deadline)
        let answer = try receive(fd, deadline: deadline)
        return try parse(answer)
    }

    /// A non-blocking connect to the first address that answers before the deadline.
    private static func connect(to target: UploadTarget, deadline: Int64) throws(HTTPPostError) -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(target.host, String(target.port), &hints, &list)
        guard code == 0, let first = list else { throw .resolve(host: target.host, code: code) }
        defer { freeaddrinfo(list) }
        var lastError = HTTPPostError.system(operation: "connect to \(target.host):\(target.port)", errno: EHOSTUNREACH)
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            entry = address.pointee.ai_next
            let fd = socket(address.pointee.ai_family, address.pointee.ai_socktype | Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue),
                            address.pointee.ai_protocol)
            guard fd >= 0 else { lastError = .system(operation: "socket", errno: errno); continue }
            let operation = "connect to \(target.host):\(target.port)"
            if Glibc.connect(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 { return fd }
            guard errno == EINPROGRESS else {
                lastError = .system(operation: operation, errno: errno)
                close(fd)
                continue
            }
            do {
                try wait(fd, for: Int16(POLLOUT), deadline: deadline, operation: operation)
                var soError: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length)
                if soError == 0 { return fd }
                lastError = .system(operation: operation, errno: soError)
            } catch {
                lastError = error
            }
            close(fd)
        }
        throw lastError
    }

    private static func sendAll(_ fd: Int32, _ bytes: [UInt8], deadline: Int64) throws(HTTPPostError) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count > 0 { sent += count; continue }
            if count < 0 && (errno == EAGAIN || errno == EINTR) {
                try wait(fd, for: Int16(POLLOUT), deadline: deadline, operation: "send")
                continue
            }
            throw .system(operation: "send", errno: count < 0 ? errno : EPIPE)
        }
    }

    /// Reads until the server closes or the declared Content-Length arrived.
    private static func receive(_ fd: Int32, deadline: Int64) throws(HTTPPostError) -> [UInt8] {
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while answer.count < responseLimit {
            if let expected = completeLength(answer), answer.count >= expected { break }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 { answer.append(contentsOf: chunk[..<count]); continue }
            if count == 0 { break }
            if errno == EAGAIN || errno == EINTR {
                try wait(fd, for: Int16(POLLIN), deadline: deadline, operation: "receive the answer")
                continue
            }
            throw .system(operation: "receive the answer", errno: errno)
        }
        return answer
    }

    /// Header length + Content-Length once the header is complete and declares one.
    private static func completeLength(_ answer: [UInt8]) -> Int? {
        guard let end = headerEnd(answer) else { return nil }
        let header = String(decoding: answer[..<end], as: UTF8.self).lowercased()
        for line in header.split(separator: "\r\n") where line.hasPrefix("content-length:") {
            if let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: " \t")) { return end + 4 + length }
        }
        return nil
    }

    private static func headerEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i
        }
        return nil
    }

    static func parse(_ answer: [UInt8]) throws(HTTPPostError) -> Response {
        guard !answer.isEmpty else { throw .malformedResponse("the server closed without answering") }
        let lineEnd = answer.firstIndex(of: 13) ?? answer.endIndex
        let statusLine = String(decoding: answer[..<lineEnd], as: UTF8.self)
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]), (100 ... 599).contains(status) else {
            throw .malformedResponse("status line \"\(statusLine.prefix(80))\"")
        }
        let body = headerEnd(answer).map { Array(answer[($0 + 4)...]) } ?? []
        return Response(status: status, body: body)
    }

    private static func wait(_ fd: Int32, for events: Int16, deadline: Int64, operation: String) throws(HTTPPostError) {
        while true {
            let remaining = deadline - monotonicMilliseconds()
            guard remaining > 0 else { throw .timedOut(operation: operation) }
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&entry, 1, Int32(min(remaining, 60_000)))
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { throw .system(operation: "poll", errno: errno) }
        }
    }

    static func monotonicMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }
}

private extension Substring {
    func trimmingCharacters(in set: String) -> Substring {
        var text = self
        while let first = text.first, set.contains(first) { text = text.dropFirst() }
        while let last = text.last, set.contains(last) { text = text.dropLast() }
        return text
    }
}
