import GrandstandCore

/// One request as the handler sees it: method, decoded path, query arguments, headers, body.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path without the query, percent-decoded by the request parser (e.g. `/channels/a/live.m3u8`).
    public var path: String
    public var query: [String: String]
    /// Header names are stored lowercased (HTTP field names are case-insensitive, RFC 9110 §5.1).
    public var headers: [String: String]
    public var body: [UInt8]
    /// The peer as `address:port` (`[v6]:port` for IPv6), when known.
    public var client: String?
    /// The request target as sent (`/catalog?q=a&q=b`), for routes that need a repeated query
    /// name, which `query` keeps once; nil for requests made outside a listener.
    public var target: String?
    /// What the matched route's pattern captured (`{id}`, a final `*`), set by `HTTPRouter`.
    public var parameters = RouteParameters()

    public init(method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
                body: [UInt8] = [], client: String? = nil) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.client = client
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The peer's address without its port (`10.0.0.7`, `[fe80::1]`): one client for per-client
    /// limits, however many connections it opens.
    public var clientHost: String? { client.map(Self.hostPart) }

    /// `address:port` → `address` (`[v6]:port` → `[v6]`).
    static func hostPart(_ described: String) -> String {
        guard let colon = described.lastIndex(of: ":") else { return described }
        return String(described[..<colon])
    }
}

/// What the handler answers: status, headers and a body held in memory, a range of a memory
/// file (`file`), or a stream written over time (`stream`, then `body` is ignored).
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    public var stream: HTTPStream?
    /// A body sent from a memory file with `sendfile` (then `body` is ignored).
    public var file: FileBody?

    /// The body's length, wherever it is.
    public var bodyLength: Int { file?.range.count ?? body.count }

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public init(status: Int, contentType: String, body: String) {
        self.init(status: status, headers: [("Content-Type", contentType)], body: Array(body.utf8))
    }

    /// A short plain-text error answer, e.g. `.text(404, "no such channel")`.
    public static func text(_ status: Int, _ message: String) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: message + "\n")
    }

    public static func json(_ body: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", body: body)
    }

    /// A streamed answer (chunked on HTTP/1.1) fed through `stream`, e.g. `text/event-stream`.
    public static func stream(_ stream: HTTPStream, status: Int = 200, headers: [(name: String, value: String)]) -> HTTPResponse {
        var response = HTTPResponse(status: status, headers: headers)
        response.stream = stream
        return response
    }

    /// The first value of a header, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// Sets a header, replacing any with the same name.
    public mutating func setHeader(_ name: String, _ value: String) {
        headers.removeAll { $0.name.caseInsensitiveEquals(name) }
        headers.append((name, value))
    }
}

extension String {
    func caseInsensitiveEquals(_ other: String) -> Bool {
        let a = utf8, b = other.utf8
        guard a.count == b.count else { return false }
        for (x, y) in zip(a, b) where x != y {
            let lower: UInt8 = x | 0x20
            guard lower == y | 0x20, lower >= 0x61, lower <= 0x7A else { return false }
        }
        return true
    }
}
