import CurlHTTP
import GrandstandCore
import GrandstandRuntime
#if canImport(Glibc)
import Glibc
#endif

/// Why an origin request failed, already mapped to the item error code it means (docs/cache.md
/// "Error codes": 404 metadata → content-id-does-not-exist, other non-2xx → http-error, refused or
/// unreachable → no-network, no progress → timeout, short body → item-corrupted, a certificate
/// the box cannot trust → network-error, not retried).
struct OriginFailure: Error, CustomStringConvertible {
    let code: CacheErrorCode
    let detail: String
    /// Worth another attempt (5xx, network trouble, a timeout, a short body).
    let retryable: Bool
    var description: String { "\(code.rawValue): \(detail)" }

    static func transport(_ error: CurlError) -> OriginFailure {
        switch error.kind {
        case .unresolved, .connectionRefused, .unreachable, .proxy:
            return OriginFailure(code: .noNetwork, detail: error.description, retryable: true)
        case .timeout:
            return OriginFailure(code: .timeout, detail: error.description, retryable: true)
        case .certificateExpired, .certificateNotYetValid, .certificateWrongHost, .certificateUntrusted, .pinnedKeyMismatch, .caFile:
            // Another attempt in a second meets the same certificate: fail now, with the reason.
            return OriginFailure(code: .networkError, detail: error.description, retryable: false)
        case .tooManyRedirects, .headersTooLarge:
            // The origin misbehaves the same way next time: fail now, with the reason.
            return OriginFailure(code: .httpError, detail: error.description, retryable: false)
        case .badURL, .bodyTooLarge:
            return OriginFailure(code: .downloadFailed, detail: error.description, retryable: false)
        case .partialBody:
            return OriginFailure(code: .itemCorrupted, detail: error.description, retryable: true)
        case .stopped:
            return OriginFailure(code: .networkError, detail: error.description, retryable: false)
        case .tls, .connectionLost, .other:
            return OriginFailure(code: .networkError, detail: error.description, retryable: true)
        }
    }
}

/// Requests to the configured origin over libcurl (`CurlHTTP`: TLS, pins, proxy, redirects,
/// timeouts) with the token hook (configured and per-item headers and query parameters), and
/// retries with capped doubling backoff on the cache's clock.
struct OriginFetch: Sendable {
    let origin: GatewayConfig.Origin
    /// The item's token hook (POST /api/v1/items `headers`, `cookies`, `query`, `perType`).
    var item = OriginTokenHook()
    /// Where the retry backoff waits (the cache's clock).
    var clock: any Clock = SystemClock()
    var backoff = Backoff()

    /// What a request of file `type` carries: the origin's token for that type (or for all),
    /// with the item's for that type (or for all) over it.
    func token(for type: String) -> OriginToken {
        origin.token.token(for: type).layered(under: item.token(for: type))
    }

    /// `url` with the query hook of a request of `type`.
    func url(_ url: String, type: String) -> String {
        OriginURL.appending(query: token(for: type).query, to: url)
    }

    /// The origin's transport settings as the adapter takes them.
    var client: CurlClient {
        var options = CurlOptions()
        options.caFile = origin.caFile
        options.pinnedPublicKey = origin.pinnedPublicKey
        options.proxy = origin.proxy
        options.maxRedirects = origin.maxRedirects
        options.connectTimeoutSeconds = origin.connectTimeoutSeconds
        options.idleTimeoutSeconds = origin.timeoutSeconds
        // An origin dripping under 1 KiB/s for the idle timeout is given up on (and retried).
        options.minimumBytesPerSecond = 1024
        options.totalTimeoutSeconds = origin.totalTimeoutSeconds
        options.maxResponseBytes = 16 << 20
        return CurlClient(options)
    }

    /// The request for `url` with the token hook of its file `type` (default: its extension):
    /// query appended, headers and cookies set.
    func request(_ url: String, type: String? = nil) -> CurlRequest {
        let token = token(for: type ?? OriginTokenHook.fileType(of: url))
        return CurlRequest(url: OriginURL.appending(query: token.query, to: url), headers: token.requestHeaders)
    }

    /// A small whole response (metadata, playlists); `notFound` is the code a 404 means.
    func get(_ url: String, type: String? = nil, notFound: CacheErrorCode, stop: StopSignal) throws(OriginFailure) -> [UInt8] {
        try retrying(stop: stop) { () throws(OriginFailure) -> [UInt8] in
            let response: CurlResponse
            do throws(CurlError) { response = try client.perform(request(url, type: type), stop: stop) } catch {
                throw OriginFailure.transport(error)
            }
            try Self.check(response.status, url: url, notFound: notFound)
            return response.body
        }
    }

    /// Runs `body` up to `origin.attempts` times while it fails retryably, waiting 0.5 s, 1 s,
    /// 2 s… (at most 30 s) between attempts; `stop` ends a wait at once (the last failure is thrown).
    func retrying<T>(stop: StopSignal, _ body: () throws(OriginFailure) -> T) throws(OriginFailure) -> T {
        var attempt = 1
        while true {
            do {
                return try body()
            } catch {
                guard error.retryable, attempt < origin.attempts, !backoff.wait(afterAttempt: attempt, clock: clock, stop: stop) else {
                    throw error
                }
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
