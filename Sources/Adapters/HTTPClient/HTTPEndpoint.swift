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

    /// Parses `http://host[:port][/path]` (`[v6]` hosts too); nil when malformed or not http.
    public init?(url: String) {
        guard url.hasPrefix("http://") else { return nil }
        let rest = url.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" }
        var path = String(rest.dropFirst(authority.count))
        while path.hasSuffix("/") { path.removeLast() }
        var host: Substring, portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty else { return nil }
        var port: UInt16 = 80
        if let portText {
            guard let parsed = UInt16(portText), parsed > 0 else { return nil }
            port = parsed
        }
        self.init(host: String(host), port: port, basePath: path)
    }

    public var description: String {
        (host.contains(":") ? "http://[\(host)]:\(port)" : "http://\(host):\(port)") + basePath
    }

    /// The authority for `Host:` and messages: `host:port` or `[v6]:port`.
    public var authority: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
