/// How a client reaches an origin (docs/cache.md "Origin TLS and transport"): trust, proxy,
/// redirects and the three timeouts. One value per origin; requests share it.
public struct CurlOptions: Sendable, Equatable {
    /// PEM file of the CAs the origin's certificate must chain to, instead of the system store
    /// (`/etc/ssl/certs`); nil: the system store.
    public var caFile: String?
    /// The origin's public key pin(s) in libcurl's form, `sha256//BASE64[;sha256//BASE64…]`:
    /// the handshake fails unless the certificate carries one of these keys.
    public var pinnedPublicKey: String?
    /// `http://host:port`, `https://…`, `socks5h://…`; nil: no proxy (the environment's
    /// `http_proxy` and friends are ignored, so what the config says is what happens).
    public var proxy: String?
    /// Redirects followed before the request fails (`tooManyRedirects`); 0 refuses any.
    public var maxRedirects = 5
    /// TCP connect plus the TLS handshake.
    public var connectTimeoutSeconds: Double = 10
    /// Longest time without a byte of progress before `timeout` (libcurl's low-speed check, whole
    /// seconds, rounded up); nil: wait forever (a log follow).
    public var idleTimeoutSeconds: Double? = 15
    /// Slower than this (bytes a second) for `idleTimeoutSeconds` is `timeout` too: an origin
    /// dripping a byte at a time holds a download forever otherwise (default 1: only stalls).
    public var minimumBytesPerSecond = 1
    /// The whole request, redirects included; nil: no limit (large files on slow links).
    public var totalTimeoutSeconds: Double?
    /// Until the final response's head is in (a follow whose body may then be quiet for hours);
    /// nil: only the other timeouts.
    public var headTimeoutSeconds: Double?
    /// Offer HTTP/2 in the TLS handshake (ALPN); the origin chooses. Plain http stays HTTP/1.1.
    public var http2 = true
    /// Largest body `perform` keeps in memory (`bodyTooLarge` beyond); streamed bodies are not limited here.
    public var maxResponseBytes = 16 << 20
    /// Host-to-address overrides in libcurl's form (`HOST:PORT:ADDRESS`), like curl's `--resolve`.
    public var resolve: [String] = []
    public var userAgent = "grandstand"
    /// Send the path exactly as given (no `/../` squashing: libcurl's CURLOPT_PATH_AS_IS), for a
    /// client that must reach the server with what it was handed (the management CLI, tests).
    public var pathAsIs = false

    public init() {}
}

/// One request: the absolute URL (`http://` or `https://`), method, headers, and for resumes
/// the offset and the validator the partial bytes came with.
public struct CurlRequest: Sendable, Equatable {
    public var url: String
    public var method: String
    public var headers: [(String, String)]
    public var body: [UInt8]
    /// Sends `Range: bytes=N-`; the origin answers 206 (the rest) or, with `ifRange`, 200 (the
    /// whole body again) when the file changed since the partial bytes were fetched.
    public var resumeFrom: Int?
    /// The `ETag` (or `Last-Modified`) of the response the partial bytes came from (`If-Range`).
    public var ifRange: String?

    public init(url: String, method: String = "GET", headers: [(String, String)] = [], body: [UInt8] = []) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
    }

    public static func == (a: CurlRequest, b: CurlRequest) -> Bool {
        a.url == b.url && a.method == b.method && a.body == b.body && a.resumeFrom == b.resumeFrom && a.ifRange == b.ifRange
            && a.headers.map { $0.0 + ":" + $0.1 } == b.headers.map { $0.0 + ":" + $0.1 }
    }
}

/// The final response's status line and headers (names lowercased; repeated headers joined
/// with ", "), after any redirects.
public struct CurlResponseHead: Sendable, Equatable {
    public var status: Int
    public var headers: [String: String]
    /// "1.0", "1.1", "2" or "3".
    public var httpVersion: String
    /// The URL that answered (after redirects).
    public var url: String
    public var redirects: Int

    /// The validator for a later `If-Range`: a strong ETag, else Last-Modified.
    public var validator: String? {
        if let tag = headers["etag"], !tag.hasPrefix("W/") { return tag }
        return headers["last-modified"]
    }
}

/// A finished request. `body` holds the whole body for `perform`, and for `stream` the body of
/// a response whose head the caller declined (an error page, bounded); `complete` is false when
/// the caller's body handler ended the transfer early.
public struct CurlResponse: Sendable, Equatable {
    public var head: CurlResponseHead
    public var body: [UInt8]
    public var complete: Bool
    /// Body bytes received (streamed or kept).
    public var bodyBytes: Int

    public var status: Int { head.status }
    public var headers: [String: String] { head.headers }
    public var text: String { String(decoding: body, as: UTF8.self) }
}
