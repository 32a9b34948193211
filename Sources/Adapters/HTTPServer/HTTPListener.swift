/// What the daemon needs from an HTTP listener, whichever engine runs it: the bound port,
/// counters, and a stop that closes every connection and joins the listener's thread.
public protocol HTTPListener: AnyObject, Sendable {
    var port: UInt16 { get }
    var statistics: HTTPServer.Statistics { get }
    func stop()
}

extension HTTPServer: HTTPListener {}

/// The two HTTP/1.1 engines (docs/serving.md, "Engines"): our own epoll loop (`grandstand`,
/// the fan listener's default: one recv, one writev/send, one sendfile per segment answer) and
/// libmicrohttpd (the management listener, and the fan listener on request).
public enum HTTPEngine: String, Sendable, CaseIterable {
    case grandstand
    case libmicrohttpd

    /// Starts a listener on this engine.
    public func start(_ configuration: HTTPServer.Configuration,
                      deferring handler: @escaping HTTPServer.DeferringHandler) throws(HTTPServerError) -> any HTTPListener {
        switch self {
        case .grandstand: return try EventLoopServer(configuration, deferring: handler)
        case .libmicrohttpd: return try HTTPServer(configuration, deferring: handler)
        }
    }

    public func start(_ configuration: HTTPServer.Configuration,
                      handler: @escaping HTTPServer.Handler) throws(HTTPServerError) -> any HTTPListener {
        try start(configuration, deferring: { request, _ in handler(request) })
    }
}
