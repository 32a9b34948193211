/// What the daemon needs from an HTTP listener (`EventLoopServer`): the bound port, counters,
/// and a stop that closes every connection and joins the listener's thread.
public protocol HTTPListener: AnyObject, Sendable {
    var port: UInt16 { get }
    var statistics: HTTPListenerStatistics { get }
    func stop()
}

/// A listener's address and limits (docs/serving.md, "Limits"): connections past
/// `connectionLimit` wait in the kernel's backlog, past `perClientLimit` per address are closed
/// unanswered; a request line plus headers must fit `connectionMemoryLimit` and arrive within
/// `headerTimeoutSeconds` of the connection opening or the previous answer (slowloris); a
/// connection with no traffic for `idleTimeoutSeconds` is closed.
public struct HTTPListenerConfiguration: Sendable {
    public var host: String
    public var port: UInt16
    public var connectionLimit: UInt32 = 1024
    public var perClientLimit: UInt32 = 64
    public var idleTimeoutSeconds: UInt32 = 30
    /// Also the keep-alive limit between requests. 0: no deadline.
    public var headerTimeoutSeconds: UInt32 = 10
    /// Bounds the request line plus headers that one connection may buffer.
    public var connectionMemoryLimit: Int = 32 * 1024
    /// Larger request bodies are answered 413 without being read (RFC 9110 §15.5.14).
    public var maxBodyBytes: Int = 1 << 20
    /// The loop thread's name (`top -H`, crash dumps): `http-fan`, `http-mgmt`.
    public var threadName = "http"

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }
}

/// A listener's counters, for /metrics and tests.
public struct HTTPListenerStatistics: Sendable, Equatable {
    /// Connections open now.
    public var connections: Int
    /// Connections shut down at the header deadline (slow or silent clients), in total.
    public var slowClientsCut: Int
    /// Streams (SSE) open now, and chunks they dropped for slow readers in total.
    public var streams: Int
    public var streamChunksDropped: Int
}

/// Answers a request at once, on the listener's thread; must not block.
public typealias HTTPHandler = @Sendable (HTTPRequest) -> HTTPResponse

/// Returns the answer, or nil to answer later through the responder (the connection waits,
/// no thread held; the handler must make sure `respond` is eventually called).
public typealias HTTPDeferringHandler = @Sendable (HTTPRequest, HTTPResponder) -> HTTPResponse?
