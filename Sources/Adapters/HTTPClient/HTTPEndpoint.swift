import GrandstandCore

/// Where a client sends requests: `http://host:port` plus an optional path prefix. Only plain
/// HTTP: the management listener is bound to a management network or loopback.
public struct HTTPEndpoint: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: UInt16
    /// Prepended to every request path ("" or "/prefix", no trailing slash).
    public var basePath: String

    public init(host: String, port: UInt16, basePath: String = "") {
        self.host = host
        self.port = port
        self.basePath = basePath
    }

    /// Parses `http://host[:port][/path]` (`[v6]` hosts too) with the core's URL rules
    /// (`UploadTarget`); nil when malformed, not http, or carrying a query.
    public init?(url: String) {
        guard case .success(let target) = UploadTarget.parse(url), !target.target.contains("?") else { return nil }
        var path = target.target
        while path.hasSuffix("/") { path.removeLast() }
        self.init(host: target.host, port: target.port, basePath: path)
    }

    public var description: String {
        (host.contains(":") ? "http://[\(host)]:\(port)" : "http://\(host):\(port)") + basePath
    }

    /// The authority for `Host:` and messages: `host:port` or `[v6]:port`.
    public var authority: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
