#if canImport(Glibc)
import Glibc
#endif

/// A small blocking HTTP/1.1 client for the management CLI (`grandstand status|channels|stats|logs`)
/// and the Reporter's POSTs: one request per connection (`Connection: close`), an overall timeout, and errors that say
/// whether nobody listens, the peer timed out, or the answer was not HTTP.
public struct HTTPClient: Sendable {
    public var endpoint: HTTPEndpoint
    public var timeoutSeconds: Double
    /// Largest response accepted, so a confused peer cannot exhaust memory.
    public var maxResponseBytes = 64 << 20
    /// For `stream`: longest wait for more body bytes before ETIMEDOUT; nil waits forever (a follow).
    public var bodyIdleTimeoutSeconds: Double?

    public init(_ endpoint: HTTPEndpoint, timeoutSeconds: Double = 5) {
        self.endpoint = endpoint
        self.timeoutSeconds = timeoutSeconds
    }

    public func get(_ target: String, headers: [(String, String)] = []) throws(HTTPClientError) -> HTTPClientResponse {
        try request("GET", target, headers: headers)
    }

    /// Sends one request (`target` is the path with any query) and reads the whole response.
    public func request(_ method: String, _ target: String, headers: [(String, String)] = [],
                        body: [UInt8] = []) throws(HTTPClientError) -> HTTPClientResponse {
        let deadline = monotonicNow() + timeoutSeconds
        let fd = try connect(deadline: deadline)
        defer { close(fd) }
        var head = "\(method) \(endpoint.basePath + target) HTTP/1.1\r\nHost: \(endpoint.authority)\r\nConnection: close\r\n"
        head += "User-Agent: grandstand\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "PUT" || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        var message = Array((head + "\r\n").utf8)
        message.append(contentsOf: body)
        try send(message, fd: fd, deadline: deadline)
        let bytes = try receiveAll(fd: fd, deadline: deadline)
        guard let response = HTTPClientResponse.parse(bytes) else {
            throw HTTPClientError("\(method) \(endpoint)\(target)", errno: EPROTO,
                                  reason: bytes.isEmpty ? "the server closed the connection without answering"
                                      : "the answer is not a complete HTTP/1.1 response (\(bytes.count) bytes)")
        }
        return response
    }

    /// Sends a GET and hands the body to `receive` as it arrives (chunked coding removed) until
    /// the server ends it or `receive` returns false; the head must arrive within the timeout,
    /// the body may take forever (a follow). A non-2xx answer is read whole and returned instead;
    /// a 2xx one is returned (without body) when the stream ends.
    public func stream(_ target: String, headers: [(String, String)] = [],
                       receive: ([UInt8]) -> Bool) throws(HTTPClientError) -> HTTPClientResponse {
        let deadline = monotonicNow() + timeoutSeconds
        let fd = try connect(deadline: deadline)
        defer { close(fd) }
        var head = "GET \(endpoint.basePath + target) HTTP/1.1\r\nHost: \(endpoint.authority)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        try send(Array((head + "\r\n").utf8), fd: fd, deadline: deadline)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        var end: Int?
        while end == nil {
            let count = try readSome(fd: fd, into: &chunk, deadline: deadline)
            guard count > 0 else { break }
            bytes += chunk[..<count]
            end = HTTPClientResponse.headerEnd(bytes)
            guard bytes.count <= 65536 || end != nil else {
                throw HTTPClientError("read from \(endpoint.authority)", errno: EPROTO, reason: "response head larger than 64 KiB")
            }
        }
        guard let end, let (status, responseHeaders) = HTTPClientResponse.parseHead(bytes[..<end]) else {
            throw HTTPClientError("GET \(endpoint)\(target)", errno: EPROTO, reason: "the answer is not an HTTP/1.1 response")
        }
        let response = HTTPClientResponse(status: status, headers: responseHeaders, body: [])
        guard (200..<300).contains(status) else {
            bytes += try receiveAll(fd: fd, deadline: deadline)
            return HTTPClientResponse.parse(bytes) ?? response
        }
        var decoder: ChunkedDecoder? = responseHeaders["transfer-encoding"]?.lowercased().contains("chunked") == true ? ChunkedDecoder() : nil
        func deliver(_ data: ArraySlice<UInt8>) throws(HTTPClientError) -> Bool {
            guard var active = decoder else { return data.isEmpty || receive(Array(data)) }
            guard let body = active.feed(data) else {
                throw HTTPClientError("read from \(endpoint.authority)", errno: EPROTO, reason: "malformed chunked body")
            }
            decoder = active
            return (body.isEmpty || receive(body)) && !active.isDone
        }
        guard try deliver(bytes[(end + 4)...]) else { return response }
        while true {
            let count = try readSome(fd: fd, into: &chunk, deadline: bodyIdleTimeoutSeconds.map { monotonicNow() + $0 })
            guard count > 0, try deliver(chunk[..<count]) else { return response }
        }
    }

    /// One recv, waiting until `deadline` (nil: forever); 0 at the end of the stream.
    private func readSome(fd: Int32, into chunk: inout [UInt8], deadline: Double?) throws(HTTPClientError) -> Int {
        while true {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            guard errno == EAGAIN else {
                if errno == ECONNRESET { return 0 }
                throw HTTPClientError("read from \(endpoint.authority)", errno: errno)
            }
            if let problem = wait(fd, events: Int16(POLLIN), deadline: deadline ?? .infinity) {
                throw HTTPClientError("read from \(endpoint.authority)", errno: problem,
                                      reason: problem == ETIMEDOUT ? "no answer within \(timeoutSeconds) s" : nil)
            }
        }
    }

    private func connect(deadline: Double) throws(HTTPClientError) -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(endpoint.host, String(endpoint.port), &hints, &list)
        guard status == 0, let first = list else {
            throw HTTPClientError("resolve \(endpoint.host)", errno: EHOSTUNREACH,
                                  reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }
        var lastError = HTTPClientError("connect to \(endpoint.authority)", errno: EHOSTUNREACH)
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let info = candidate {
            candidate = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue),
                            info.pointee.ai_protocol)
            guard fd >= 0 else { lastError = HTTPClientError("socket", errno: errno); continue }
            if Glibc.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 || errno == EINPROGRESS {
                if let problem = wait(fd, events: Int16(POLLOUT), deadline: deadline) {
                    lastError = HTTPClientError("connect to \(endpoint.authority)", errno: problem)
                    close(fd)
                    continue
                }
                var error: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
                if error == 0 { return fd }
                lastError = HTTPClientError("connect to \(endpoint.authority)", errno: error)
            } else {
                lastError = HTTPClientError("connect to \(endpoint.authority)", errno: errno)
            }
            close(fd)
        }
        throw lastError
    }

    private func send(_ bytes: [UInt8], fd: Int32, deadline: Double) throws(HTTPClientError) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count > 0 { sent += count; continue }
            if errno == EAGAIN || errno == EINTR {
                if let problem = wait(fd, events: Int16(POLLOUT), deadline: deadline) {
                    throw HTTPClientError("send to \(endpoint.authority)", errno: problem)
                }
                continue
            }
            // The server may answer (e.g. 401, 413) and close before reading a large body.
            if errno == EPIPE || errno == ECONNRESET { return }
            throw HTTPClientError("send to \(endpoint.authority)", errno: errno)
        }
    }

    private func receiveAll(fd: Int32, deadline: Double) throws(HTTPClientError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count > 0 {
                bytes += chunk[..<count]
                guard bytes.count <= maxResponseBytes else {
                    throw HTTPClientError("read from \(endpoint.authority)", errno: EFBIG,
                                          reason: "response larger than \(maxResponseBytes) bytes")
                }
                continue
            }
            if count == 0 { return bytes }
            if errno == EINTR { continue }
            if errno == EAGAIN {
                if let problem = wait(fd, events: Int16(POLLIN), deadline: deadline) {
                    throw HTTPClientError("read from \(endpoint.authority)", errno: problem,
                                          reason: problem == ETIMEDOUT ? "no complete answer within \(timeoutSeconds) s" : nil)
                }
                continue
            }
            if errno == ECONNRESET, !bytes.isEmpty { return bytes }
            throw HTTPClientError("read from \(endpoint.authority)", errno: errno)
        }
    }

    /// Polls until `events` or the deadline; nil when ready, else ETIMEDOUT or the poll errno.
    private func wait(_ fd: Int32, events: Int16, deadline: Double) -> Int32? {
        while true {
            let remaining = deadline - monotonicNow()
            guard remaining > 0 else { return ETIMEDOUT }
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&entry, 1, remaining.isInfinite ? 60_000 : Int32(min(remaining * 1000 + 1, 60_000)))
            if ready > 0 { return nil }
            if ready < 0 && errno != EINTR { return errno }
        }
    }

    private func monotonicNow() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
