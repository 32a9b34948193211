import GrandstandRuntime
import CGSEventLoop
import GrandstandCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The loop behind `EventLoopServer`: the listening socket (level-triggered, taken out of the
/// set while at the connection limit), connections (edge-triggered for reading and writing,
/// registered once), and an eventfd that other threads write to hand over deferred answers and
/// stream wake-ups. Everything but the mailbox and the counters lives on the loop's thread.
final class EventLoop: @unchecked Sendable {
    // @unchecked: confinement the compiler cannot express. Other threads only post mail, request
    // a stop and read statistics, all through `shared` (a Mutex). Every other var — the
    // connections, per-client counts, the listening flag, the tick — is touched only by `run()`
    // and what it calls, on the loop's one thread (EventLoopServer starts exactly one; before it
    // starts and after it returns nobody else touches them), like NIO's `EventLoop`.
    enum Mail: Sendable {
        case answer(UInt64, EventLoopDelivery, HTTPResponse)
        case streamReady(UInt64)
    }

    static let listenerID: UInt64 = 0
    static let wakeID: UInt64 = 1

    let listenFD: Int32
    let epollFD: Int32
    let wakeFD: Int32
    let configuration: HTTPListenerConfiguration
    let handler: HTTPDeferringHandler
    let streams = StreamRegistry()
    let parserLimits: HTTP1RequestParser.Limits
    let headerTimeout: Int64
    let idleTimeout: Int64

    /// What other threads share with the loop.
    private struct Shared {
        var mail: [Mail] = []
        var wakePending = false
        var stopping = false
        var descriptorsClosed = false
        var openCount = 0
        var cutCount = 0
    }
    private let shared = Mutex(Shared())

    var connections: [UInt64: Connection] = [:]
    private var perClient: [String: Int] = [:]
    private var nextID: UInt64 = 2
    private var listening = false
    private var lastTick: Int64 = 0

    init(listenFD: Int32, configuration: HTTPListenerConfiguration, handler: @escaping HTTPDeferringHandler) throws(HTTPServerError) {
        self.listenFD = listenFD
        self.configuration = configuration
        self.handler = handler
        var limits = HTTP1RequestParser.Limits()
        limits.maxHeadBytes = configuration.connectionMemoryLimit
        limits.maxTargetBytes = Swift.max(1024, Swift.min(configuration.connectionMemoryLimit - 1024, 16 * 1024))
        parserLimits = limits
        headerTimeout = Int64(configuration.headerTimeoutSeconds) * 1_000_000_000
        idleTimeout = Int64(configuration.idleTimeoutSeconds) * 1_000_000_000
        epollFD = gs_el_create()
        guard epollFD >= 0 else { throw HTTPServerError("epoll_create1", errno: errno) }
        wakeFD = gs_el_eventfd()
        guard wakeFD >= 0 else {
            let code = errno
            close(epollFD)
            throw HTTPServerError("eventfd", errno: code)
        }
        guard add(wakeFD, id: Self.wakeID, events: in_, edge: false), add(listenFD, id: Self.listenerID, events: in_, edge: false) else {
            let code = errno
            close(epollFD)
            close(wakeFD)
            throw HTTPServerError("epoll_ctl add", errno: code)
        }
        listening = true
    }

    var statistics: HTTPListenerStatistics {
        let (open, cut) = shared.withLock { ($0.openCount, $0.cutCount) }
        return HTTPListenerStatistics(connections: open, slowClientsCut: cut, streams: streams.count, streamChunksDropped: streams.dropped)
    }

    // MARK: Other threads

    /// Queues `message` and wakes the loop (one eventfd write per batch).
    func post(_ message: Mail) {
        let write: Bool = shared.withLock { shared in
            guard !shared.descriptorsClosed else { return false }
            shared.mail.append(message)
            defer { shared.wakePending = true }
            return !shared.wakePending
        }
        if write { signalWake() }
    }

    func requestStop() {
        let write: Bool = shared.withLock { shared in
            guard !shared.descriptorsClosed else { return false }
            shared.stopping = true
            return true
        }
        if write { signalWake() }
    }

    private func signalWake() {
        var one: UInt64 = 1
        _ = shared.withLock { $0.descriptorsClosed ? 0 : write(wakeFD, &one, 8) }
    }

    // MARK: The loop's thread

    func run() {
        // sendfile raises SIGPIPE on a reset peer; this thread takes EPIPE instead.
        var pipe = sigset_t()
        sigemptyset(&pipe)
        sigaddset(&pipe, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipe, nil)
        var ids = [UInt64](repeating: 0, count: 256)
        var events = [UInt32](repeating: 0, count: 256)
        while true {
            let n = gs_el_wait(epollFD, &ids, &events, 256, 250)
            let now = monotonicNanoseconds()
            if n > 0 {
                for index in 0..<Int(n) {
                    let id = ids[index]
                    let flags = events[index]
                    switch id {
                    case Self.listenerID: acceptAll(now: now)
                    case Self.wakeID: drainWake(now: now)
                    default: if let connection = connections[id] { ready(connection, flags: flags, now: now) }
                    }
                }
            }
            if shared.withLock({ $0.stopping }) { break }
            if now - lastTick >= 250_000_000 {
                lastTick = now
                tick(now: now)
            }
        }
        shutdown()
    }

    private func add(_ fd: Int32, id: UInt64, events: UInt32, edge: Bool) -> Bool {
        gs_el_add(epollFD, fd, events, edge ? 1 : 0, id) == 0
    }

    private func drainWake(now: Int64) {
        var value: UInt64 = 0
        _ = read(wakeFD, &value, 8)
        let batch: [Mail] = shared.withLock { shared in
            shared.wakePending = false
            defer { shared.mail.removeAll(keepingCapacity: true) }
            return shared.mail
        }
        for message in batch {
            switch message {
            case .answer(let id, let delivery, let response):
                guard let connection = connections[id], case .waiting(let current) = connection.phase, current === delivery else { continue }
                connection.lastActivity = now
                answer(connection, response, now: now)
            case .streamReady(let id):
                guard let connection = connections[id], case .streaming = connection.phase, !connection.hasOutput else { continue }
                pump(connection, now: now)
            }
        }
    }

    // MARK: Accepting

    private func acceptAll(now: Int64) {
        while true {
            if connections.count >= Int(configuration.connectionLimit) {
                // At the limit: new connections wait in the kernel's backlog until one closes.
                pauseListening()
                return
            }
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    gs_el_accept(listenFD, $0, &length)
                }
            }
            if fd < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                // EAGAIN: all taken. EMFILE/ENFILE/ENOMEM: retry at the next tick.
                if errno != EAGAIN && errno != EWOULDBLOCK { pauseListening() }
                return
            }
            let client = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketAddress.describe($0) } }
            let key = client.map(HTTPRequest.hostPart) ?? ""
            let count = perClient[key, default: 0]
            guard count < Int(configuration.perClientLimit) else {
                // Past the per-client limit: closed unanswered (docs/serving.md, "Limits").
                close(fd)
                continue
            }
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let id = nextID
            nextID += 1
            guard add(fd, id: id, events: in_ | out | rdhup, edge: true) else {
                close(fd)
                continue
            }
            perClient[key] = count + 1
            connections[id] = Connection(id: id, fd: fd, client: client, clientKey: key, limits: parserLimits,
                                         now: now, headerTimeout: headerTimeout)
            shared.withLock { $0.openCount += 1 }
        }
    }

    private func pauseListening() {
        guard listening else { return }
        listening = false
        gs_el_remove(epollFD, listenFD)
    }

    private func resumeListening(now: Int64) {
        guard !listening, connections.count < Int(configuration.connectionLimit) else { return }
        listening = add(listenFD, id: Self.listenerID, events: in_, edge: false)
        if listening { acceptAll(now: now) }
    }

    /// `1.2.3.4:80` → `1.2.3.4`, `[::1]:80` → `[::1]`.
    // MARK: Readiness

    private func ready(_ connection: Connection, flags: UInt32, now: Int64) {
        if flags & (err | hup) != 0 {
            closeConnection(connection)
            return
        }
        if flags & out != 0 {
            connection.writable = true
            if connection.hasOutput { continueSending(connection, now: now) }
        }
        guard connections[connection.id] != nil else { return }
        if flags & (in_ | rdhup) != 0 {
            connection.readable = true
            if flags & rdhup != 0 {
                connection.peerClosed = true
                // An event stream's or a blocked reload's client that leaves is gone for good.
                switch connection.phase {
                case .streaming, .waiting:
                    closeConnection(connection)
                    return
                default: break
                }
            }
            process(connection, now: now)
        }
    }

    /// Closes the socket (epoll forgets it), ends its stream, drops a pending deferred answer.
    func closeConnection(_ connection: Connection) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        close(connection.fd)
        switch connection.phase {
        case .waiting(let delivery): delivery.claim()
        case .streaming(let stream): stream.close()
        default: break
        }
        connection.clearOutput()
        if let count = perClient[connection.clientKey] {
            if count <= 1 { perClient.removeValue(forKey: connection.clientKey) } else { perClient[connection.clientKey] = count - 1 }
        }
        shared.withLock { $0.openCount -= 1 }
        if !listening { resumeListening(now: monotonicNanoseconds()) }
    }

    /// Header deadline (slowloris, keep-alive wait), idle limit, stream heartbeats.
    private func tick(now: Int64) {
        if !listening { resumeListening(now: now) }
        for connection in Array(connections.values) {
            switch connection.phase {
            case .head, .body:
                if headerTimeout > 0, now >= connection.headDeadline {
                    shared.withLock { $0.cutCount += 1 }
                    closeConnection(connection)
                } else if idleTimeout > 0, now - connection.lastActivity >= idleTimeout {
                    closeConnection(connection)
                }
            case .sending:
                if idleTimeout > 0, now - connection.lastActivity >= idleTimeout { closeConnection(connection) }
            case .streaming:
                if connection.hasOutput, idleTimeout > 0, now - connection.lastActivity >= idleTimeout { closeConnection(connection) }
            case .waiting:
                break
            }
        }
        for stream in streams.all() { stream.tick(now: now) }
    }

    private func shutdown() {
        listening = true   // closing connections must not re-arm the listener
        for connection in Array(connections.values) { closeConnection(connection) }
        for stream in streams.all() { stream.close() }
        shared.withLock { shared in
            shared.descriptorsClosed = true
            shared.mail.removeAll()
        }
        closeDescriptors()
    }

    func closeDescriptors() {
        close(listenFD)
        close(wakeFD)
        close(epollFD)
    }
}

// epoll's flags as the shim passes them.
private let in_ = UInt32(GS_EL_IN)
private let out = UInt32(GS_EL_OUT)
private let err = UInt32(GS_EL_ERR)
private let hup = UInt32(GS_EL_HUP)
private let rdhup = UInt32(GS_EL_RDHUP)
