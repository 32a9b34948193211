import CurlHTTP
#if canImport(Glibc)
import Glibc
#endif

/// A small blocking client for plain-HTTP endpoints (the management listener the CLI and the
/// demo talk to, and the listeners the tests reach), over libcurl (`CurlHTTP`): one request per
/// call, an overall timeout, no redirects, the path sent as given, and errors that say whether
/// nobody listens, the peer timed out, or the answer was not HTTP.
public struct HTTPClient: Sendable {
    public var endpoint: HTTPEndpoint
    public var timeoutSeconds: Double
    /// Largest response accepted, so a confused peer cannot exhaust memory.
    public var maxResponseBytes = 64 << 20
    /// For `stream`: longest wait for more body bytes before a timeout; nil waits forever (a follow).
    public var bodyIdleTimeoutSeconds: Double?

    public init(_ endpoint: HTTPEndpoint, timeoutSeconds: Double = 5) {
        self.endpoint = endpoint
        self.timeoutSeconds = timeoutSeconds
    }

    public func get(_ target: String, headers: [(String, String)] = []) throws(HTTPClientError) -> HTTPClientResponse {
        try request("GET", target, headers: headers)
    }

    /// Sends one request (`target` is the path with any query) and reads the whole response.
    public func request(_ method: String, _ target: String, headers: [(String, String)] = [],
                        body: [UInt8] = []) throws(HTTPClientError) -> HTTPClientResponse {
        var options = self.options
        options.totalTimeoutSeconds = timeoutSeconds
        options.maxResponseBytes = maxResponseBytes
        do {
            let answer = try CurlClient(options).perform(CurlRequest(url: url(target), method: method, headers: headers, body: body))
            return HTTPClientResponse(status: answer.status, headers: answer.headers, body: answer.body)
        } catch {
            throw failure(error, "\(method) \(endpoint)\(target)")
        }
    }

    /// Sends a GET and hands the body to `receive` as it arrives (chunked coding removed) until
    /// the server ends it or `receive` returns false; the head must arrive within the timeout,
    /// the body may take forever (a follow). A non-2xx answer is read whole and returned instead;
    /// a 2xx one is returned (without body) when the stream ends.
    public func stream(_ target: String, headers: [(String, String)] = [],
                       receive: ([UInt8]) -> Bool) throws(HTTPClientError) -> HTTPClientResponse {
        var options = self.options
        options.headTimeoutSeconds = timeoutSeconds
        options.idleTimeoutSeconds = bodyIdleTimeoutSeconds
        do {
            let answer = try CurlClient(options).stream(CurlRequest(url: url(target), headers: headers), maxKeptBytes: maxResponseBytes,
                                                        head: { (200..<300).contains($0.status) }) { receive(Array($0)) }
            return HTTPClientResponse(status: answer.status, headers: answer.headers, body: answer.body)
        } catch {
            throw failure(error, "GET \(endpoint)\(target)")
        }
    }

    var options: CurlOptions {
        var options = CurlOptions()
        options.maxRedirects = 0
        options.http2 = false
        options.connectTimeoutSeconds = timeoutSeconds
        options.idleTimeoutSeconds = nil
        options.pathAsIs = true
        return options
    }

    func url(_ target: String) -> String { endpoint.description + target }

    /// The adapter's error in this client's terms: errno for refused and timed-out requests
    /// (what callers test), EPROTO for an answer that was not HTTP.
    func failure(_ error: CurlError, _ operation: String) -> HTTPClientError {
        switch error.kind {
        case .connectionRefused: return HTTPClientError("connect to \(endpoint.authority)", errno: ECONNREFUSED)
        case .timeout: return HTTPClientError(operation, errno: ETIMEDOUT, reason: "no answer within \(timeoutSeconds) s")
        case .unresolved: return HTTPClientError("resolve \(endpoint.host)", errno: EHOSTUNREACH, reason: error.message)
        case .unreachable: return HTTPClientError("connect to \(endpoint.authority)", errno: error.errno != 0 ? error.errno : EHOSTUNREACH)
        case .bodyTooLarge: return HTTPClientError(operation, errno: EFBIG, reason: "response larger than \(maxResponseBytes) bytes")
        default: return HTTPClientError(operation, errno: error.errno != 0 ? error.errno : EPROTO, reason: error.description)
        }
    }
}
