import GrandstandCore
import CurlHTTP
import HTTPClient
#if canImport(Glibc)
import Glibc
#endif

/// The management API's client (`grandstand status`, `stats`, `logs`, …; docs/management.md):
/// the daemon's management listener and token, one request per call, and the failures as exit
/// codes: 69 daemon not running, 75 timeout, 77 token refused, 1 anything else.
public struct ManagementClient: Sendable {
    public let endpoint: HTTPEndpoint
    public let token: String
    public let timeoutSeconds: Double

    public init(endpoint: HTTPEndpoint, token: String, timeoutSeconds: Double = 5) {
        self.endpoint = endpoint
        self.token = token
        self.timeoutSeconds = timeoutSeconds
    }

    /// The endpoint and token from `url`/`token` when given, else from the daemon's config file
    /// (its management listener, `management.token`) and the token its state directory holds.
    public init(config: String, url: HTTPEndpoint?, token: String?, timeoutSeconds: Double = 5) throws(ManagementClientError) {
        let (endpoint, token) = try Self.resolve(config: config, endpoint: url, token: token)
        self.init(endpoint: endpoint, token: token, timeoutSeconds: timeoutSeconds)
    }

    private static func resolve(config: String, endpoint: HTTPEndpoint?, token: String?) throws(ManagementClientError) -> (HTTPEndpoint, String) {
        if let endpoint, let token { return (endpoint, token) }
        let bytes: [UInt8]?, gatewayConfig: GatewayConfig
        do {
            bytes = try AtomicFile.read(config)
        } catch {
            throw ManagementClientError("cannot use \(config) (pass --url and --token instead):\n\(error)", exitCode: 1)
        }
        guard let bytes else {
            throw ManagementClientError("cannot read \(config): no such file (pass --config, or --url and --token)", exitCode: 1)
        }
        do {
            gatewayConfig = try GatewayConfig.decode(bytes)
        } catch {
            throw ManagementClientError("cannot use \(config) (pass --url and --token instead):\n\(error)", exitCode: 1)
        }
        let listener = gatewayConfig.listeners.management
        // A wildcard listener is reached on the loopback address of its family.
        let host = listener.host == "0.0.0.0" ? "127.0.0.1" : listener.host == "::" ? "::1" : listener.host
        let resolvedEndpoint = endpoint ?? HTTPEndpoint(host: host, port: listener.port)
        if let token { return (resolvedEndpoint, token) }
        if let configured = gatewayConfig.managementToken { return (resolvedEndpoint, configured) }
        let path = TokenStore.path(stateDirectory: gatewayConfig.stateDirectory)
        let stored: String?
        do {
            stored = try TokenStore.read(path)
        } catch {
            let hint = error.errno == EACCES ? " (run as root or a member of group grandstand, or pass --token)" : ""
            throw ManagementClientError("\(error)\(hint)", exitCode: 1)
        }
        guard let stored else {
            throw ManagementClientError("no management token: \(config) sets none and \(path) does not exist yet "
                                        + "(the daemon writes it at its first start)", exitCode: 1)
        }
        return (resolvedEndpoint, stored)
    }

    /// Sends one request and returns the body of a 2xx answer; any other outcome is a clear error.
    public func call(_ target: String, method: String = "GET", body: [UInt8] = []) throws(ManagementClientError) -> HTTPClientResponse {
        var options = curlOptions
        options.totalTimeoutSeconds = timeoutSeconds
        options.idleTimeoutSeconds = timeoutSeconds
        let response: HTTPClientResponse
        do throws(CurlError) {
            var request = CurlRequest(url: endpoint.description + target, method: method, headers: [("Authorization", "Bearer \(token)")])
            request.body = body
            let answer = try CurlClient(options).perform(request)
            response = HTTPClientResponse(status: answer.status, headers: answer.headers, body: answer.body)
        } catch {
            throw Self.failure(error, endpoint: endpoint, timeout: timeoutSeconds)
        }
        try Self.check(response, method, target, endpoint: endpoint)
        return response
    }

    /// libcurl for the management listener: plain http, no proxy, no redirects, connect within the timeout.
    private var curlOptions: CurlOptions {
        var options = CurlOptions()
        options.connectTimeoutSeconds = timeoutSeconds
        options.maxRedirects = 0
        options.maxResponseBytes = 64 << 20
        return options
    }

    private static func failure(_ error: CurlError, endpoint: HTTPEndpoint, timeout: Double) -> ManagementClientError {
        if error.isConnectionRefused {
            return ManagementClientError("the daemon is not running at \(endpoint) (\(error))", exitCode: 69)
        }
        if error.isTimeout {
            return ManagementClientError("no answer from \(endpoint) within \(timeout) s (\(error))", exitCode: 75)
        }
        return ManagementClientError("\(error)", exitCode: 1)
    }

    /// Passes a 2xx answer; 401 and other statuses become clear errors.
    private static func check(_ response: HTTPClientResponse, _ method: String, _ target: String,
                              endpoint: HTTPEndpoint) throws(ManagementClientError) {
        switch response.status {
        case 200..<300:
            return
        case 401:
            throw ManagementClientError("the daemon at \(endpoint) refused the management token (HTTP 401); "
                                        + "check --token, the config's management.token or the state directory's token", exitCode: 77, status: 401)
        default:
            throw ManagementClientError("\(method) \(target) answered HTTP \(response.status): \(response.text.trimmingNewlines)",
                                        exitCode: 1, status: response.status)
        }
    }

    /// Streams a 2xx answer's body to `receive` (log follow); other outcomes as `call`.
    public func stream(_ target: String, receive: ([UInt8]) -> Bool) throws(ManagementClientError) -> HTTPClientResponse {
        var options = curlOptions
        options.idleTimeoutSeconds = nil   // a follow may be quiet for hours…
        options.headTimeoutSeconds = timeoutSeconds   // …once the daemon has answered
        let response: HTTPClientResponse
        do throws(CurlError) {
            let request = CurlRequest(url: endpoint.description + target,
                                      headers: [("Authorization", "Bearer \(token)"), ("Accept", "text/event-stream")])
            let answer = try CurlClient(options).stream(request, head: { (200..<300).contains($0.status) }) { chunk in
                receive(Array(chunk))
            }
            response = HTTPClientResponse(status: answer.status, headers: answer.headers, body: answer.body)
        } catch {
            throw Self.failure(error, endpoint: endpoint, timeout: timeoutSeconds)
        }
        try Self.check(response, "GET", target, endpoint: endpoint)
        return response
    }

    /// A 2xx JSON answer parsed.
    public func document(_ target: String) throws(ManagementClientError) -> JSONValue {
        let response = try call(target)
        do {
            return try JSONParser.parse(response.body)
        } catch {
            throw ManagementClientError("\(target) did not answer JSON: \(error)", exitCode: 1)
        }
    }
}

/// A client failure: the message printed, the exit code, and the HTTP status when the daemon
/// answered (nil: no answer, e.g. refused or timed out).
public struct ManagementClientError: Error, CustomStringConvertible {
    public let description: String
    public let exitCode: Int32
    public let status: Int?

    public init(_ description: String, exitCode: Int32, status: Int? = nil) {
        self.description = description
        self.exitCode = exitCode
        self.status = status
    }
}

extension String {
    var trimmingNewlines: String {
        var text = self
        while text.hasSuffix("\n") { text.removeLast() }
        return text
    }
}
