import CGSCurl
import CGSCurlSystem
import GrandstandRuntime
#if canImport(Glibc)
import Glibc
#endif

/// Outgoing HTTP(S) on libcurl: one easy handle per request driven by a multi handle in 100 ms
/// polls, so a raised stop signal ends a transfer (connect, handshake, body) within 0.1 s.
/// TLS against the system CA store or `options.caFile`, an optional public-key pin, bounded
/// redirects (never from https to http), the configured proxy only, HTTP/2 when the origin
/// offers it, connect/idle/total timeouts. Bodies are either handed over as they arrive
/// (`stream`) or kept whole up to `options.maxResponseBytes` (`perform`).
public struct CurlClient: Sendable {
    public var options: CurlOptions

    public init(_ options: CurlOptions = CurlOptions()) { self.options = options }

    /// libcurl's run-time version ("8.14.1") and whether it speaks HTTP/2.
    public static var libraryVersion: String { CurlLibrary.ready(); return String(cString: gs_curl_version_text()) }
    public static var supportsHTTP2: Bool { CurlLibrary.ready(); return gs_curl_has_http2() != 0 }

    /// Sends `request` and keeps the whole response body (bounded by `options.maxResponseBytes`).
    public func perform(_ request: CurlRequest, stop: StopSignal? = nil) throws(CurlError) -> CurlResponse {
        var body: [UInt8] = []
        let limit = options.maxResponseBytes
        var response = try stream(request, stop: stop, maxKeptBytes: limit, head: { _ in true }) { chunk in
            guard body.count + chunk.count <= limit else { return false }
            body.append(contentsOf: chunk)
            return true
        }
        if !response.complete {
            throw CurlError("\(request.method) \(request.url)", code: 0, errno: EFBIG, kind: .bodyTooLarge,
                            message: "response body larger than \(limit) bytes")
        }
        response.body = body
        return response
    }

    /// Sends `request`; when the final response's head is in, `head` says whether its body goes
    /// to `body` (true: chunk by chunk as it arrives; return false to end the transfer) or is
    /// kept in the returned response (false: an error page, up to `maxKeptBytes`).
    public func stream(_ request: CurlRequest, stop: StopSignal? = nil, maxKeptBytes: Int = 65536,
                       head: (CurlResponseHead) -> Bool,
                       body: (UnsafeRawBufferPointer) -> Bool) throws(CurlError) -> CurlResponse {
        CurlLibrary.ready()
        let operation = "\(request.method) \(request.url)"
        guard let easy = curl_easy_init() else {
            throw CurlError(operation, code: 0, errno: ENOMEM, kind: .other, message: "curl_easy_init failed")
        }
        defer { curl_easy_cleanup(easy) }
        let errorSize = gs_curl_error_size() + 1
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: errorSize)   // libcurl writes it during the transfer
        errorBuffer.initialize(repeating: 0, count: errorSize)
        defer { errorBuffer.deallocate() }
        var lists: [UnsafeMutablePointer<curl_slist>] = []   // freed after the transfer
        defer { for list in lists { curl_slist_free_all(list) } }

        let outcome = withoutActuallyEscaping(head) { head -> Result<CurlResponse, CurlError> in
            withoutActuallyEscaping(body) { body -> Result<CurlResponse, CurlError> in
                let transfer = Transfer(easy: easy, onHead: head, onBody: body, maxKept: maxKeptBytes)
                transfer.following = options.maxRedirects > 0
                do throws(CurlError) {
                    try configure(easy, request, operation: operation, context: Unmanaged.passUnretained(transfer).toOpaque(),
                                  errorBuffer: errorBuffer, lists: &lists)
                    let result = try run(easy, operation: operation, stop: stop, head: transfer)
                    if transfer.headersTooLarge {
                        return .failure(CurlError(operation, code: Int32(result.rawValue), kind: .headersTooLarge,
                                                  message: "response headers over \(Transfer.maxHeaderBytes) bytes"))
                    }
                    if result != CURLE_OK, !(transfer.consumerEnded && result == CURLE_WRITE_ERROR) {
                        let message = String(cString: errorBuffer)
                        // One header line past libcurl's own limit: 27 (out of memory) before
                        // curl 8.6, 100 (CURLE_TOO_LARGE) since.
                        if !transfer.headComplete, !transfer.headDelivered, result.rawValue == 27 || result.rawValue == 100 {
                            return .failure(CurlError(operation, code: Int32(result.rawValue), kind: .headersTooLarge,
                                                      message: message.isEmpty ? String(cString: curl_easy_strerror(result)) : message))
                        }
                        return .failure(Self.error(easy, operation: operation, code: result,
                                                   message: message.isEmpty ? String(cString: curl_easy_strerror(result)) : message))
                    }
                    if !transfer.headDelivered { transfer.deliverHead() }
                    return .success(CurlResponse(head: transfer.head ?? transfer.currentHead(), body: transfer.kept,
                                                 complete: !transfer.consumerEnded, bodyBytes: transfer.bodyBytes))
                } catch {
                    return .failure(error)
                }
            }
        }
        switch outcome {
        case .success(let response): return response
        case .failure(let error): throw error
        }
    }

    // MARK: Setup

    private func configure(_ easy: UnsafeMutableRawPointer, _ request: CurlRequest, operation: String, context: UnsafeMutableRawPointer,
                           errorBuffer: UnsafeMutablePointer<CChar>,
                           lists: inout [UnsafeMutablePointer<curl_slist>]) throws(CurlError) {
        var failed: (String, CURLcode)?
        func set(_ what: String, _ code: CURLcode) { if code != CURLE_OK, failed == nil { failed = (what, code) } }
        let https = request.url.lowercased().hasPrefix("https://")
        guard https || request.url.lowercased().hasPrefix("http://") else {
            throw CurlError(operation, code: 0, kind: .badURL, message: "not an http:// or https:// URL")
        }
        set("url", gs_curl_set_string(easy, CURLOPT_URL, request.url))
        set("error buffer", gs_curl_set_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer))
        set("nosignal", gs_curl_set_long(easy, CURLOPT_NOSIGNAL, 1))
        set("protocols", gs_curl_set_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"))
        // An https origin never hands the request (and its token) to plain http.
        set("redirect protocols", gs_curl_set_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, https ? "https" : "http,https"))
        set("follow", gs_curl_set_long(easy, CURLOPT_FOLLOWLOCATION, options.maxRedirects > 0 ? 1 : 0))
        set("max redirects", gs_curl_set_long(easy, CURLOPT_MAXREDIRS, max(0, options.maxRedirects)))
        set("user agent", gs_curl_set_string(easy, CURLOPT_USERAGENT, options.userAgent))
        if options.pathAsIs { set("path as is", gs_curl_set_long(easy, CURLOPT_PATH_AS_IS, 1)) }
        set("connect timeout", gs_curl_set_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(options.connectTimeoutSeconds)))
        if let total = options.totalTimeoutSeconds {
            set("timeout", gs_curl_set_long(easy, CURLOPT_TIMEOUT_MS, Self.milliseconds(total)))
        }
        if let idle = options.idleTimeoutSeconds {
            set("low speed limit", gs_curl_set_long(easy, CURLOPT_LOW_SPEED_LIMIT, max(1, options.minimumBytesPerSecond)))
            set("low speed time", gs_curl_set_long(easy, CURLOPT_LOW_SPEED_TIME, max(1, Int(idle.rounded(.up)))))
        }
        set("http version", gs_curl_set_long(easy, CURLOPT_HTTP_VERSION,
                                             options.http2 ? gs_curl_http_version_2tls() : gs_curl_http_version_1_1()))
        // Only what the config says: no proxy unless configured (the environment is not read).
        set("proxy", gs_curl_set_string(easy, CURLOPT_PROXY, options.proxy ?? ""))
        if let caFile = options.caFile {
            set("ca file", gs_curl_set_string(easy, CURLOPT_CAINFO, caFile))
            set("ca path", gs_curl_set_string(easy, CURLOPT_CAPATH, nil))
        }
        if let pin = options.pinnedPublicKey { set("pinned key", gs_curl_set_string(easy, CURLOPT_PINNEDPUBLICKEY, pin)) }
        if !options.resolve.isEmpty {
            var list: UnsafeMutablePointer<curl_slist>?
            for entry in options.resolve { list = curl_slist_append(list, entry) }
            if let list { lists.append(list) }
            set("resolve", gs_curl_set_pointer(easy, CURLOPT_RESOLVE, UnsafeMutableRawPointer(list)))
        }
        var lines = request.headers.map { "\($0.0): \($0.1)" }
        if let offset = request.resumeFrom, offset > 0 {
            lines.append("Range: bytes=\(offset)-")
            if let validator = request.ifRange { lines.append("If-Range: \(validator)") }
        }
        lines.append("Expect:")   // no 100-continue round trip for bodies
        var list: UnsafeMutablePointer<curl_slist>? = nil
        for line in lines { list = curl_slist_append(list, line) }
        if let list { lists.append(list) }
        set("headers", gs_curl_set_pointer(easy, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(list)))
        switch request.method {
        case "GET": break
        case "HEAD": set("nobody", gs_curl_set_long(easy, CURLOPT_NOBODY, 1))
        default:
            set("body size", gs_curl_set_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count)))
            request.body.withUnsafeBytes { bytes in
                set("body", gs_curl_set_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!)))
            }
            if request.method != "POST" { set("method", gs_curl_set_string(easy, CURLOPT_CUSTOMREQUEST, request.method)) }
        }
        set("write function", gs_curl_set_data_function(easy, CURLOPT_WRITEFUNCTION, curlWrite))
        set("write data", gs_curl_set_pointer(easy, CURLOPT_WRITEDATA, context))
        set("header function", gs_curl_set_data_function(easy, CURLOPT_HEADERFUNCTION, curlHeader))
        set("header data", gs_curl_set_pointer(easy, CURLOPT_HEADERDATA, context))
        if let (what, code) = failed {
            throw CurlError(operation, code: Int32(code.rawValue), kind: code == CURLE_URL_MALFORMAT ? .badURL : .other,
                            message: "setting \(what): \(String(cString: curl_easy_strerror(code)))")
        }
    }

    static func milliseconds(_ seconds: Double) -> Int { max(1, Int((seconds * 1000).rounded(.up))) }

    // MARK: Running

    /// Drives the transfer in 100 ms polls; the stop signal is checked between them.
    private func run(_ easy: UnsafeMutableRawPointer, operation: String, stop: StopSignal?, head transfer: Transfer) throws(CurlError) -> CURLcode {
        let headDeadline = options.headTimeoutSeconds.map { SystemClock().monotonicNanoseconds() + Int64($0 * 1e9) }
        guard let multi = curl_multi_init() else {
            throw CurlError(operation, code: 0, errno: ENOMEM, kind: .other, message: "curl_multi_init failed")
        }
        defer { curl_multi_cleanup(multi) }
        curl_multi_add_handle(multi, easy)
        defer { curl_multi_remove_handle(multi, easy) }
        var running: Int32 = 1
        while true {
            let status = curl_multi_perform(multi, &running)
            guard status == CURLM_OK else {
                throw CurlError(operation, code: Int32(status.rawValue), kind: .other, message: String(cString: curl_multi_strerror(status)))
            }
            if running == 0 { break }
            if stop?.isRaised == true {
                throw CurlError(operation, code: 0, kind: .stopped, message: "")
            }
            if let headDeadline, !transfer.headComplete, SystemClock().monotonicNanoseconds() >= headDeadline {
                throw CurlError(operation, code: 0, errno: ETIMEDOUT, kind: .timeout,
                                message: "no response head within \(options.headTimeoutSeconds ?? 0) s")
            }
            var ready: Int32 = 0
            _ = curl_multi_poll(multi, nil, 0, 100, &ready)
        }
        var done: UnsafeMutableRawPointer?
        var result = CURLE_OK
        guard gs_curl_multi_next_done(multi, &done, &result) != 0 else {
            throw CurlError(operation, code: 0, kind: .other, message: "libcurl reported no result")
        }
        return result
    }

    static func error(_ easy: UnsafeMutableRawPointer, operation: String, code: CURLcode, message: String) -> CurlError {
        var osErrno = 0
        _ = gs_curl_get_long(easy, CURLINFO_OS_ERRNO, &osErrno)
        var verify = 0
        _ = gs_curl_get_long(easy, CURLINFO_SSL_VERIFYRESULT, &verify)
        let lower = message.lowercased()
        let kind: CurlError.Kind
        switch code {
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL: kind = .badURL
        case CURLE_COULDNT_RESOLVE_HOST: kind = .unresolved
        case CURLE_COULDNT_RESOLVE_PROXY: kind = .proxy
        case CURLE_COULDNT_CONNECT:
            kind = osErrno == Int(ECONNREFUSED) ? .connectionRefused : (lower.contains("proxy") ? .proxy : .unreachable)
        case CURLE_OPERATION_TIMEDOUT: kind = .timeout
        case CURLE_TOO_MANY_REDIRECTS: kind = .tooManyRedirects
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH: kind = .pinnedKeyMismatch
        case CURLE_SSL_CACERT_BADFILE: kind = .caFile
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR:
            // OpenSSL's verify result (X509_V_ERR_*), else libcurl's own host-name check.
            switch verify {
            case 10: kind = .certificateExpired
            case 9: kind = .certificateNotYetValid
            case 2, 18, 19, 20, 21: kind = .certificateUntrusted
            case 62: kind = .certificateWrongHost
            default:
                if lower.contains("subject name") || lower.contains("does not match") || lower.contains("no alternative certificate") {
                    kind = .certificateWrongHost
                } else if lower.contains("expired") {
                    kind = .certificateExpired
                } else if code == CURLE_PEER_FAILED_VERIFICATION {
                    kind = .certificateUntrusted
                } else {
                    kind = .tls
                }
            }
        case CURLE_PROXY: kind = .proxy
        case CURLE_PARTIAL_FILE: kind = .partialBody
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_HTTP2, CURLE_HTTP2_STREAM: kind = .connectionLost
        case CURLE_ABORTED_BY_CALLBACK: kind = .stopped
        default: kind = .other
        }
        return CurlError(operation, code: Int32(code.rawValue), errno: Int32(osErrno), kind: kind, message: message)
    }
}

/// libcurl's global state, set up once before the first handle (curl_global_init is not
/// thread-safe against itself on older libcurl; Swift runs this initializer exactly once).
enum CurlLibrary {
    private static let initialized: Int32 = Int32(curl_global_init(gs_curl_global_default()).rawValue)
    static func ready() { _ = initialized }
}

/// One transfer's callback state (libcurl calls back on the thread that drives it).
final class Transfer {
    let easy: UnsafeMutableRawPointer
    let onHead: (CurlResponseHead) -> Bool
    let onBody: (UnsafeRawBufferPointer) -> Bool
    let maxKept: Int
    var status = 0
    var headers: [String: String] = [:]
    var head: CurlResponseHead?
    var headDelivered = false
    /// The final response's head has ended (its blank line), before any body.
    var headComplete = false
    var following = false
    var deliverBody = true
    var consumerEnded = false
    var kept: [UInt8] = []
    var bodyBytes = 0

    init(easy: UnsafeMutableRawPointer, onHead: @escaping (CurlResponseHead) -> Bool,
         onBody: @escaping (UnsafeRawBufferPointer) -> Bool, maxKept: Int) {
        self.easy = easy
        self.onHead = onHead
        self.onBody = onBody
        self.maxKept = maxKept
    }

    /// The most response-head bytes taken (redirect hops included): a hostile origin's endless
    /// headers end the request (`headersTooLarge`) instead of growing `headers`.
    static let maxHeaderBytes = 64 << 10
    var headerBytes = 0
    var headersTooLarge = false

    /// False ends the transfer (the head is too large).
    func headerLine(_ bytes: UnsafeRawBufferPointer) -> Bool {
        headerBytes += bytes.count
        guard headerBytes <= Self.maxHeaderBytes else { headersTooLarge = true; return false }
        var end = bytes.count
        while end > 0, bytes[end - 1] == 10 || bytes[end - 1] == 13 || bytes[end - 1] == 32 { end -= 1 }
        let line = String(decoding: bytes[..<end], as: UTF8.self)
        if line.isEmpty {
            if status >= 200, !(following && (300..<400).contains(status) && headers["location"] != nil) { headComplete = true }
            return true
        }
        if line.hasPrefix("HTTP/") {
            // A new response (a redirect hop, 100 Continue, the final one): start over.
            headers = [:]
            let parts = line.split(separator: " ", maxSplits: 2)
            status = parts.count >= 2 ? Int(parts[1]) ?? 0 : 0
            return true
        }
        guard let colon = line.firstIndex(of: ":") else { return true }
        let name = line[..<colon].lowercased()
        let value = String(line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" })
        headers[name] = headers[name].map { $0 + ", " + value } ?? value
        return true
    }

    func currentHead() -> CurlResponseHead {
        var code = 0
        if gs_curl_get_long(easy, CURLINFO_RESPONSE_CODE, &code) != CURLE_OK || code == 0 { code = status }
        var version = 0
        _ = gs_curl_get_long(easy, CURLINFO_HTTP_VERSION, &version)
        var url: UnsafePointer<CChar>?
        _ = gs_curl_get_string(easy, CURLINFO_EFFECTIVE_URL, &url)
        var redirects = 0
        _ = gs_curl_get_long(easy, CURLINFO_REDIRECT_COUNT, &redirects)
        let versionText = switch version {
        case gs_curl_http_version_1_0(): "1.0"
        case gs_curl_http_version_2(): "2"
        case gs_curl_http_version_3(): "3"
        default: "1.1"
        }
        return CurlResponseHead(status: code, headers: headers, httpVersion: versionText, url: url.map { String(cString: $0) } ?? "",
                                redirects: redirects)
    }

    func deliverHead() {
        let current = currentHead()
        head = current
        headDelivered = true
        deliverBody = onHead(current)
    }

    /// False ends the transfer (the consumer is done, or an error page outgrew its bound).
    func bodyChunk(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if !headDelivered { deliverHead() }
        bodyBytes += bytes.count
        if deliverBody {
            guard onBody(bytes) else { consumerEnded = true; return false }
            return true
        }
        if kept.count < maxKept { kept.append(contentsOf: bytes.prefix(maxKept - kept.count)) }
        return true
    }
}

private let curlWrite: gs_curl_data_fn = { data, size, count, context in
    guard let context else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    return transfer.bodyChunk(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}

private let curlHeader: gs_curl_data_fn = { data, size, count, context in
    guard let context else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.headerLine(UnsafeRawBufferPointer(start: data, count: size * count)) ? size * count : 0
}
