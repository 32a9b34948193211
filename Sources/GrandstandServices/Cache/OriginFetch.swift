import GrandstandCore
import GrandstandRuntime
import HTTPClient
#if canImport(Glibc)
import Glibc
#endif

/// Why an origin request failed, already mapped to the item error code it means (docs/cache.md
/// "Error codes": 404 metadata → content-id-does-not-exist, other non-2xx → http-error, refused or
/// unreachable → no-network, no progress → timeout, short body → item-corrupted).
struct OriginFailure: Error, CustomStringConvertible {
    let code: CacheErrorCode
    let detail: String
    /// Worth another attempt (5xx, network trouble, a timeout, a short body).
    let retryable: Bool
    var description: String { "\(code.rawValue): \(detail)" }

    static func transport(_ error: any Error) -> OriginFailure {
        guard let error = error as? HTTPClientError else { return OriginFailure(code: .networkError, detail: "\(error)", retryable: true) }
        switch error.errno {
        case ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, ENETDOWN:
            return OriginFailure(code: .noNetwork, detail: error.description, retryable: true)
        case ETIMEDOUT, EAGAIN:
            return OriginFailure(code: .timeout, detail: error.description, retryable: true)
        default:
            return OriginFailure(code: .networkError, detail: error.description, retryable: true)
        }
    }
}

/// Requests to the configured origin with the token hook (configured and per-item headers and
/// query parameters), timeouts, and retries with doubling backoff.
struct OriginFetch: Sendable {
    let origin: GatewayConfig.Origin
    /// Per-item additions (POST /api/v1/items `headers`, `query`).
    var itemHeaders: [String: String] = [:]
    var itemQuery: String?
    /// Where the retry backoff waits (the cache's clock).
    var clock: any Clock = SystemClock()

    var headers: [(String, String)] {
        (origin.headers.merging(itemHeaders) { $1 }).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    func url(_ url: String) -> String {
        OriginURL.appending(query: itemQuery, to: OriginURL.appending(query: origin.query, to: url))
    }

    /// The client and request target for an absolute http URL.
    func client(_ url: String) throws(OriginFailure) -> (HTTPClient, String) {
        guard url.hasPrefix("http://") else {
            throw OriginFailure(code: .downloadFailed, detail: "\(url) is not an http:// URL", retryable: false)
        }
        let rest = url.dropFirst(7)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        guard let endpoint = HTTPEndpoint(url: "http://" + rest[..<slash]) else {
            throw OriginFailure(code: .downloadFailed, detail: "\(url) has no usable host", retryable: false)
        }
        var client = HTTPClient(endpoint, timeoutSeconds: origin.timeoutSeconds)
        client.bodyIdleTimeoutSeconds = origin.timeoutSeconds
        client.maxResponseBytes = 16 << 20
        return (client, slash == rest.endIndex ? "/" : String(rest[slash...]))
    }

    /// A small whole response (metadata, playlists); `notFound` is the code a 404 means.
    func get(_ url: String, notFound: CacheErrorCode, stop: StopSignal) throws(OriginFailure) -> [UInt8] {
        try retrying(stop: stop) { () throws(OriginFailure) -> [UInt8] in
            let (client, target) = try client(self.url(url))
            let response: HTTPClientResponse
            do { response = try client.get(target, headers: headers) } catch let error as HTTPClientError {
                throw OriginFailure.transport(error)
            } catch {
                throw OriginFailure(code: .networkError, detail: "\(error)", retryable: true)
            }
            try Self.check(response.status, url: url, notFound: notFound)
            return response.body
        }
    }

    /// Runs `body` up to `origin.attempts` times while it fails retryably, waiting 0.5 s, 1 s,
    /// 2 s… between attempts; `stop` ends a wait at once (the last failure is thrown).
    func retrying<T>(stop: StopSignal, _ body: () throws(OriginFailure) -> T) throws(OriginFailure) -> T {
        var delay: Int64 = 500_000_000
        var attempt = 1
        while true {
            do {
                return try body()
            } catch {
                guard error.retryable, attempt < origin.attempts, !clock.wait(nanoseconds: delay, or: stop) else { throw error }
                delay *= 2
                attempt += 1
            }
        }
    }

    static func check(_ status: Int, url: String, notFound: CacheErrorCode) throws(OriginFailure) {
        guard !(200..<300).contains(status) else { return }
        if status == 404 { throw OriginFailure(code: notFound, detail: "\(url): 404 Not Found", retryable: false) }
        throw OriginFailure(code: .httpError, detail: "\(url): HTTP \(status)", retryable: status >= 500)
    }
}
