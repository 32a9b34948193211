/// One HTTP/1.x request head (RFC 9112 §2–3): what `HTTP1RequestParser` makes of the request
/// line and the header fields, with the body framing and the keep-alive decision already taken.
public struct HTTP1RequestHead: Sendable, Equatable {
    public var method: String
    /// The request target as sent (origin-form `/a/b?c=d`, absolute-form, or `*`).
    public var target: String
    /// The target's path, percent-decoded (no query). `*` for the asterisk-form.
    public var path: String
    /// Query arguments, percent-decoded with `+` as space; a repeated name keeps the last value.
    public var query: [String: String]
    /// 0 for HTTP/1.0, 1 for HTTP/1.1 (later 1.x minors are answered as 1.1, §2.3).
    public var minorVersion: Int
    /// Field names lowercased; repeated fields joined with ", " (RFC 9110 §5.3).
    public var headers: [String: String]
    public var body: HTTP1BodyFraming
    /// The connection may carry another request after this one's answer (§9.3).
    public var keepAlive: Bool

    public init(method: String, target: String, path: String, query: [String: String], minorVersion: Int,
                headers: [String: String], body: HTTP1BodyFraming, keepAlive: Bool) {
        self.method = method
        self.target = target
        self.path = path
        self.query = query
        self.minorVersion = minorVersion
        self.headers = headers
        self.body = body
        self.keepAlive = keepAlive
    }
}

/// How the request body is delimited (RFC 9112 §6.3).
public enum HTTP1BodyFraming: Sendable, Equatable {
    case none
    case length(Int)
    /// `Transfer-Encoding: …, chunked`. The fan listener answers these 411 (docs/serving.md).
    case chunked
}

/// Why a request head was refused: a closed set, each with its answer status. The connection
/// is closed after the answer (its framing can no longer be trusted).
public enum HTTP1ParseError: Error, Sendable, Equatable {
    case badRequestLine
    case badVersion
    case unsupportedVersion
    case targetTooLong
    case headersTooLarge
    case badHeaderField
    case obsoleteLineFolding
    case badTarget
    case badContentLength
    case badTransferEncoding
    case missingHost

    /// 400, or 414 / 431 / 505 (RFC 9110 §15.5.15, RFC 6585 §5, RFC 9110 §15.6.6).
    public var status: Int {
        switch self {
        case .targetTooLong: return 414
        case .headersTooLarge: return 431
        case .unsupportedVersion: return 505
        case .badTransferEncoding: return 501
        default: return 400
        }
    }

    /// A short reason for the error answer's body.
    public var reason: String {
        switch self {
        case .badRequestLine: return "malformed request line"
        case .badVersion: return "malformed HTTP version"
        case .unsupportedVersion: return "only HTTP/1.x is served"
        case .targetTooLong: return "request target too long"
        case .headersTooLarge: return "request header fields too large"
        case .badHeaderField: return "malformed header field"
        case .obsoleteLineFolding: return "obsolete line folding is not accepted"
        case .badTarget: return "bad request target"
        case .badContentLength: return "bad Content-Length"
        case .badTransferEncoding: return "unsupported Transfer-Encoding"
        case .missingHost: return "HTTP/1.1 requests need exactly one Host header"
        }
    }
}
