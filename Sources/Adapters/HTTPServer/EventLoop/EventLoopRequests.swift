import GrandstandCore
#if canImport(Glibc)
import Glibc
#endif

/// Reading and dispatching requests, in order, one at a time per connection (pipelined ones
/// wait in the read buffer until the answer before them is sent).
extension EventLoop {
    func process(_ connection: Connection, now: Int64) {
        while connections[connection.id] != nil {
            switch connection.phase {
            case .head:
                switch connection.parser.parse(connection.input.bytes) {
                case .head(let head, let consumed):
                    connection.input.consume(consumed)
                    begin(connection, head, now: now)
                case .failure(let error):
                    refuse(connection, error.status, error.reason, now: now)
                    return
                case .incomplete:
                    if connection.input.isFull {
                        refuse(connection, 431, "request header fields too large", now: now)
                        return
                    }
                    guard fill(connection, now: now) else { return }
                }
            case .body(let head, let remaining):
                let available = Swift.min(remaining, connection.input.count)
                if available > 0 {
                    connection.body.append(contentsOf: UnsafeRawBufferPointer(rebasing: connection.input.bytes[0..<available]))
                    connection.input.consume(available)
                }
                if available == remaining {
                    dispatch(connection, head, now: now)
                } else {
                    connection.phase = .body(head, remaining: remaining - available)
                    guard fill(connection, now: now) else { return }
                }
            case .waiting, .sending, .streaming:
                return
            }
        }
    }

    /// Reads what the kernel has (one recv when it is less than the room); false when nothing
    /// more can come now (the caller waits for the next edge) or the connection closed.
    private func fill(_ connection: Connection, now: Int64) -> Bool {
        guard connection.readable else {
            // The peer shut its side (EPOLLRDHUP) and everything it sent is read.
            if connection.peerClosed { closeConnection(connection) }
            return false
        }
        let space = connection.input.space()
        guard space.count > 0 else { return true }   // full: the parser decides (431)
        let n = recv(connection.fd, space.baseAddress, space.count, 0)
        if n > 0 {
            connection.input.didRead(n)
            connection.lastActivity = now
            if n < space.count { connection.readable = false }
            return true
        }
        if n == 0 {
            closeConnection(connection)
            return false
        }
        if errno == EINTR { return true }
        connection.readable = false
        if errno != EAGAIN && errno != EWOULDBLOCK { closeConnection(connection) }
        return false
    }

    /// A head arrived: decide on its body, then run the handler.
    private func begin(_ connection: Connection, _ head: HTTP1RequestHead, now: Int64) {
        connection.keepAlive = head.keepAlive
        connection.minorVersion = head.minorVersion
        connection.isHead = head.method == "HEAD"
        connection.body.removeAll(keepingCapacity: true)
        switch head.body {
        case .none:
            dispatch(connection, head, now: now)
        case .chunked:
            // Fan clients never send bodies; a chunked one is refused rather than decoded.
            refuse(connection, 411, "chunked request bodies are not accepted; send Content-Length", now: now)
        case .length(let length):
            guard length <= configuration.maxBodyBytes else {
                refuse(connection, 413, "request body larger than \(configuration.maxBodyBytes) bytes", now: now)
                return
            }
            if head.minorVersion >= 1, head.headers["expect"]?.lowercased() == "100-continue" {
                let continueLine = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
                _ = send(connection.fd, continueLine, continueLine.count, Int32(MSG_NOSIGNAL))
            }
            connection.phase = .body(head, remaining: length)
        }
    }

    private func dispatch(_ connection: Connection, _ head: HTTP1RequestHead, now: Int64) {
        var request = HTTPRequest(method: head.method, path: head.path, query: head.query, headers: head.headers,
                                  body: connection.body, client: connection.client)
        request.target = head.target
        connection.body = []
        let delivery = EventLoopDelivery(connectionID: connection.id, loop: self)
        connection.phase = .waiting(delivery)
        if let response = handler(request, HTTPResponder(delivery: delivery)) {
            delivery.claim()
            answer(connection, response, now: now)
        }
        // Otherwise the responder posts the answer (drainWake).
    }

    /// An error answer from the listener itself: `Connection: close`, then close.
    func refuse(_ connection: Connection, _ status: Int, _ reason: String, now: Int64) {
        connection.keepAlive = false
        connection.isHead = false
        var response = HTTPResponse.text(status, reason)
        response.headers.append(("Cache-Control", "no-store"))
        answer(connection, response, now: now)
    }
}
