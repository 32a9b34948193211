import GrandstandRuntime
import CGSMicroHTTPD
import CGSMicroHTTPDSystem
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 listener on libmicrohttpd (epoll, internal polling thread). Handlers run on the
/// listener's thread and must not block (a deferring handler answers later instead: the
/// connection is suspended until it does); the server owns the MHD daemon and stops it on deinit.
public final class HTTPServer: @unchecked Sendable {
    // @unchecked: `daemon` is written once in init and cleared in stop(), which callers
    // serialise (the owner stops the server once); MHD itself is thread-safe.

    /// Limits (docs/serving.md): connections are refused past `connectionLimit` or
    /// `perClientLimit` per address; a request line plus headers must fit `connectionMemoryLimit`
    /// and arrive within `headerTimeoutSeconds` of the connection opening or the previous answer
    /// (slowloris); a connection with no traffic at all for `idleTimeoutSeconds` is closed.
    public struct Configuration: Sendable {
        public var host: String
        public var port: UInt16
        public var connectionLimit: UInt32 = 1024
        public var perClientLimit: UInt32 = 64
        public var idleTimeoutSeconds: UInt32 = 30
        /// Also the keep-alive limit between requests. 0: no deadline.
        public var headerTimeoutSeconds: UInt32 = 10
        /// Bounds the request line plus headers that one connection may buffer.
        public var connectionMemoryLimit: Int = 32 * 1024
        public var maxBodyBytes: Int = 1 << 20
        public var threads: UInt32 = 1

        public init(host: String, port: UInt16) {
            self.host = host
            self.port = port
        }
    }

    /// Counters for /metrics and tests.
    public struct Statistics: Sendable, Equatable {
        /// Connections open now.
        public var connections: Int
        /// Connections shut down at the header deadline (slow or silent clients), in total.
        public var slowClientsCut: Int
        /// Streams (SSE) open now, and chunks they dropped for slow readers in total.
        public var streams: Int
        public var streamChunksDropped: Int
    }

    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse
    /// Returns the answer, or nil to answer later through the responder (the connection is
    /// suspended meanwhile; the handler must make sure `respond` is eventually called).
    public typealias DeferringHandler = @Sendable (HTTPRequest, HTTPResponder) -> HTTPResponse?

    /// The bound port: the configured one, or the kernel's pick when configured as 0.
    public let port: UInt16
    private var daemon: OpaquePointer?
    private var tracker: OpaquePointer?
    private let context: Unmanaged<ServerContext>

    public convenience init(_ configuration: Configuration, handler: @escaping Handler) throws(HTTPServerError) {
        try self.init(configuration, deferring: { request, _ in handler(request) })
    }

    public init(_ configuration: Configuration, deferring handler: @escaping DeferringHandler) throws(HTTPServerError) {
        var address = try SocketAddress(host: configuration.host, port: configuration.port)
        var limits = gs_mhd_limits(
            connection_limit: configuration.connectionLimit,
            per_ip_limit: configuration.perClientLimit,
            timeout_seconds: configuration.idleTimeoutSeconds,
            connection_memory_limit: configuration.connectionMemoryLimit,
            thread_pool_size: configuration.threads,
            header_timeout_ms: configuration.headerTimeoutSeconds * 1000)
        let context = Unmanaged.passRetained(ServerContext(handler: handler, maxBodyBytes: configuration.maxBodyBytes))
        let flags = UInt32(MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue
            | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue)
        var boundPort: UInt16 = 0
        var tracker: OpaquePointer?
        let started = withUnsafePointer(to: &address.storage) { storage in
            storage.withMemoryRebound(to: sockaddr.self, capacity: 1) { sockaddr in
                gs_mhd_start(flags, sockaddr, &limits, accessHandler, context.toOpaque(),
                             requestCompleted, context.toOpaque(), trackerTick, context.toOpaque(),
                             &tracker, &boundPort)
            }
        }
        guard let started, let tracker else {
            let code = errno
            context.release()
            throw HTTPServerError("start listener on \(configuration.host):\(configuration.port)", errno: code)
        }
        self.daemon = started
        self.tracker = tracker
        self.context = context
        self.port = boundPort
    }

    /// Ends every open stream, closes the listening socket and every connection, waiting for
    /// the polling thread. Owners of deferred requests must answer them first (a suspended
    /// connection keeps libmicrohttpd from stopping cleanly).
    public func stop() {
        guard let daemon, let tracker else { return }
        self.daemon = nil
        self.tracker = nil
        for stream in context.takeUnretainedValue().streams.all() { stream.finish() }
        gs_mhd_stop(daemon, tracker)
        context.release()
    }

    public var statistics: Statistics {
        let streams = context.takeUnretainedValue().streams
        let tracked = tracker.map { gs_mhd_tracker_stats($0) }
        return Statistics(connections: Int(tracked?.open ?? 0), slowClientsCut: Int(tracked?.cut ?? 0),
                          streams: streams.count, streamChunksDropped: streams.dropped)
    }

    deinit { stop() }
}

/// What the C callbacks reach through their `cls` pointer.
final class ServerContext {
    let handler: HTTPServer.DeferringHandler
    let maxBodyBytes: Int
    let streams = StreamRegistry()

    init(handler: @escaping HTTPServer.DeferringHandler, maxBodyBytes: Int) {
        self.handler = handler
        self.maxBodyBytes = maxBodyBytes
    }
}

/// The open streams of one server: heartbeats, shutdown, statistics.
final class StreamRegistry: @unchecked Sendable {
    // @unchecked: under `lock`.
    private let lock = Lock()
    private var open: [ObjectIdentifier: HTTPStream] = [:]
    private var droppedClosed = 0

    func add(_ stream: HTTPStream) {
        lock.withLock { open[ObjectIdentifier(stream)] = stream }
        stream.onClose { [weak self, weak stream] in
            guard let self, let stream else { return }
            let dropped = stream.droppedChunks
            self.lock.withLock {
                if self.open.removeValue(forKey: ObjectIdentifier(stream)) != nil { self.droppedClosed += dropped }
            }
        }
    }

    func all() -> [HTTPStream] { lock.withLock { Array(open.values) } }
    var count: Int { lock.withLock { open.count } }
    var dropped: Int { droppedClosed(plus: all().reduce(0) { $0 + $1.droppedChunks }) }
    private func droppedClosed(plus live: Int) -> Int { lock.withLock { droppedClosed } + live }
}

/// The tracker thread's tick (every 250 ms): stream heartbeats.
let trackerTick: @convention(c) (UnsafeMutableRawPointer?) -> Void = { cls in
    guard let cls else { return }
    let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
    let now = monotonicNanoseconds()
    for stream in context.streams.all() { stream.tick(now: now) }
}

/// One request in flight, kept in MHD's per-request `con_cls` slot until it completes.
final class PendingRequest {
    var body: [UInt8] = []
    var bodyTooLarge = false
    // Deferred answers (Deferred.swift), under `lock`: the responder may run on any thread.
    let lock = Lock()
    var answered = false
    var suspended = false
    var deferredResponse: HTTPResponse?
}

extension HTTPServer {
    /// The libmicrohttpd version at run time, e.g. "0.9.75".
    public static var libraryVersion: String { MHD_get_version().map { String(cString: $0) } ?? "unknown" }
}
