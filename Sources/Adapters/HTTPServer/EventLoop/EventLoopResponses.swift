import CGSEventLoop
import GrandstandCore
#if canImport(Glibc)
import Glibc
#endif

/// Writing answers the way nginx does: the head and a memory body in one `sendmsg` (two iovecs);
/// a memory-file body after a head sent with MSG_MORE, by `sendfile` of the whole remaining
/// range; a short write means the socket is full (wait for EPOLLOUT, no extra syscall).
extension EventLoop {
    /// Starts sending `response` as the answer to the connection's current request.
    func answer(_ connection: Connection, _ response: HTTPResponse, now: Int64) {
        connection.clearOutput()
        if response.header("Connection").map({ HTTPResponseHead.hasToken($0, "close") }) == true { connection.keepAlive = false }
        if let stream = response.stream {
            if connection.minorVersion == 0 { connection.keepAlive = false }
            HTTPResponseHead.write(response, into: &connection.out, bodyLength: nil, chunked: connection.minorVersion >= 1,
                                   keepAlive: connection.keepAlive, minorVersion: connection.minorVersion)
            guard !connection.isHead else {
                stream.close()
                connection.phase = .sending
                continueSending(connection, now: now)
                return
            }
            streams.add(stream)
            let id = connection.id
            stream.attach { [weak self] in self?.post(.streamReady(id)) }
            connection.phase = .streaming(stream)
            pump(connection, now: now)
            return
        }
        let hasBody = response.status != 204 && response.status != 304 && !(100..<200).contains(response.status)
        HTTPResponseHead.write(response, into: &connection.out, bodyLength: hasBody ? response.bodyLength : nil, chunked: false,
                               keepAlive: connection.keepAlive, minorVersion: connection.minorVersion)
        if hasBody && !connection.isHead {
            if let file = response.file {
                connection.file = file.file
                connection.fileOffset = file.range.lowerBound
                connection.fileEnd = file.range.upperBound
            } else {
                connection.memoryBody = response.body
            }
        }
        connection.phase = .sending
        continueSending(connection, now: now)
    }

    /// Writes what the socket takes; when the answer is out, goes on with the next request
    /// (or the stream's next chunks).
    func continueSending(_ connection: Connection, now: Int64) {
        guard connection.writable else { return }
        switch flush(connection) {
        case .blocked:
            connection.writable = false
            return
        case .failed:
            closeConnection(connection)
            return
        case .progress:
            connection.lastActivity = now
            connection.writable = false
            return
        case .done:
            connection.lastActivity = now
        }
        switch connection.phase {
        case .streaming:
            pump(connection, now: now)
        case .sending:
            connection.clearOutput()
            finished(connection, now: now)
        default:
            break
        }
    }

    /// The answer is sent: close, or wait for the next request (perhaps already buffered).
    private func finished(_ connection: Connection, now: Int64) {
        guard connection.keepAlive else {
            closeConnection(connection)
            return
        }
        connection.phase = .head
        connection.headDeadline = now + headerTimeout
        process(connection, now: now)
    }

    /// Moves a stream's queued bytes out as chunks until the socket is full or the queue empty.
    func pump(_ connection: Connection, now: Int64) {
        guard case .streaming(let stream) = connection.phase else { return }
        let chunked = connection.minorVersion >= 1
        while connection.writable, connections[connection.id] != nil {
            if connection.hasOutput {
                continueSendingRaw(connection, now: now)
                if connection.hasOutput { return }
                continue
            }
            let (bytes, ended) = stream.pull(max: 64 * 1024)
            if ended {
                stream.close()
                if chunked {
                    connection.out.append(contentsOf: "0\r\n\r\n".utf8)
                    connection.phase = .sending
                    continueSending(connection, now: now)
                } else {
                    connection.keepAlive = false
                    connection.phase = .sending
                    finished(connection, now: now)
                }
                return
            }
            guard !bytes.isEmpty else { return }   // the stream wakes the loop when it has more
            connection.out.removeAll(keepingCapacity: true)
            connection.outOffset = 0
            if chunked {
                connection.out.append(contentsOf: String(bytes.count, radix: 16).utf8)
                connection.out.append(contentsOf: [0x0D, 0x0A])
                connection.memoryBody = bytes + [0x0D, 0x0A]
            } else {
                connection.memoryBody = bytes
            }
            connection.memoryOffset = 0
        }
    }

    /// `continueSending` without the phase change (used inside `pump`).
    private func continueSendingRaw(_ connection: Connection, now: Int64) {
        switch flush(connection) {
        case .blocked: connection.writable = false
        case .failed: closeConnection(connection)
        case .progress: connection.lastActivity = now; connection.writable = false
        case .done: connection.lastActivity = now
        }
    }

    /// `.progress`: bytes went out, then the socket was full (activity: the idle limit restarts);
    /// `.blocked`: full before any byte went out.
    enum FlushResult { case done, progress, blocked, failed }

    /// One pass of writing: `.done` when nothing is left. A response that takes longer than the
    /// idle limit to send (a large file to a slow phone) stays alive while it moves.
    private func flush(_ connection: Connection) -> FlushResult {
        var wrote = false
        while true {
            let headLeft = connection.out.count - connection.outOffset
            let bodyLeft = connection.memoryBody.count - connection.memoryOffset
            if headLeft + bodyLeft > 0 {
                let more = connection.file != nil && connection.fileOffset < connection.fileEnd
                let n = connection.out.withUnsafeBytes { head in
                    connection.memoryBody.withUnsafeBytes { body -> Int in
                        var vectors = [iovec(iov_base: UnsafeMutableRawPointer(mutating: head.baseAddress.map { $0 + connection.outOffset }), iov_len: headLeft),
                                       iovec(iov_base: UnsafeMutableRawPointer(mutating: body.baseAddress.map { $0 + connection.memoryOffset }), iov_len: bodyLeft)]
                        let first = headLeft > 0 ? 0 : 1
                        let count = bodyLeft > 0 ? 2 - first : 1
                        return vectors.withUnsafeMutableBufferPointer { buffer -> Int in
                            var message = msghdr()
                            message.msg_iov = buffer.baseAddress! + first
                            message.msg_iovlen = numericCast(count)
                            return sendmsg(connection.fd, &message, Int32(MSG_NOSIGNAL) | (more ? Int32(MSG_MORE) : 0))
                        }
                    }
                }
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno == EAGAIN || errno == EWOULDBLOCK ? (wrote ? .progress : .blocked) : .failed
                }
                let fromHead = Swift.min(n, headLeft)
                connection.outOffset += fromHead
                connection.memoryOffset += n - fromHead
                wrote = wrote || n > 0
                if n < headLeft + bodyLeft { return wrote ? .progress : .blocked }
                continue
            }
            if let file = connection.file, connection.fileOffset < connection.fileEnd {
                var offset = Int64(connection.fileOffset)
                let wanted = connection.fileEnd - connection.fileOffset
                let n = gs_el_sendfile(connection.fd, file.descriptor, &offset, wanted)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno == EAGAIN || errno == EWOULDBLOCK ? (wrote ? .progress : .blocked) : .failed
                }
                if n == 0 { return .failed }   // the file is shorter than the range: cannot finish the body
                connection.fileOffset += n
                wrote = true
                if n < wanted { return .progress }
                continue
            }
            return .done
        }
    }
}
