import ArgumentParser
import GrandstandCore
import HTTPClient
#if canImport(Glibc)
import Glibc
#endif
import GrandstandOperations

/// What every management client (`status`, `channels`, `stats`, `logs`) shares: where the daemon's
/// management listener is and its token (from `--url`/`--token`, else the daemon's config file and
/// state directory), the timeout, and `--json`. Exit codes: 69 daemon not running, 75 timeout,
/// 77 token refused, 1 anything else.
struct ManagementOptions: ParsableArguments {
    @Option(help: "The daemon's configuration file (management address and token).")
    var config: String = "/etc/grandstand/config.json"

    @Option(help: "Management URL, e.g. http://127.0.0.1:8081 (instead of the config's listener).")
    var url: String?

    @Option(help: "Management bearer token (instead of the config's or the state directory's).")
    var token: String?

    @Option(help: "Seconds to wait for the daemon's answer.")
    var timeout: Double = 5

    @Flag(help: "Print the daemon's JSON as is.")
    var json = false

    /// The endpoint and token to use.
    func resolve() throws -> (HTTPEndpoint, String) {
        var endpoint: HTTPEndpoint?
        if let url {
            guard let parsed = HTTPEndpoint(url: url) else { throw ValidationError("--url \(url) is not http://HOST:PORT") }
            endpoint = parsed
        }
        if let endpoint, let token { return (endpoint, token) }
        let gatewayConfig: GatewayConfig
        do {
            guard let bytes = try AtomicFile.read(config) else {
                throw ManagementClientError("cannot read \(config): no such file (pass --config, or --url and --token)", exitCode: 1)
            }
            gatewayConfig = try GatewayConfig.decode(bytes)
        } catch let error as ManagementClientError {
            throw error
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
        do {
            guard let stored = try TokenStore.read(path) else {
                throw ManagementClientError("no management token: \(config) sets none and \(path) does not exist yet "
                                            + "(the daemon writes it at its first start)", exitCode: 1)
            }
            return (resolvedEndpoint, stored)
        } catch let error as StateFileError {
            let hint = error.errno == EACCES ? " (run as root or a member of group grandstand, or pass --token)" : ""
            throw ManagementClientError("\(error)\(hint)", exitCode: 1)
        }
    }

    /// Sends one request and returns the body of a 2xx answer; any other outcome is a clear error.
    func call(_ target: String, method: String = "GET", body: [UInt8] = []) throws -> HTTPClientResponse {
        let (endpoint, token) = try resolve()
        let client = HTTPClient(endpoint, timeoutSeconds: timeout)
        let response: HTTPClientResponse
        do throws(HTTPClientError) {
            response = try client.request(method, target, headers: [("Authorization", "Bearer \(token)")], body: body)
        } catch {
            throw Self.failure(error, endpoint: endpoint, timeout: timeout)
        }
        try Self.check(response, method, target, endpoint: endpoint)
        return response
    }

    private static func failure(_ error: HTTPClientError, endpoint: HTTPEndpoint, timeout: Double) -> ManagementClientError {
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
                                        + "check --token, the config's management.token or the state directory's token", exitCode: 77)
        default:
            throw ManagementClientError("\(method) \(target) answered HTTP \(response.status): \(response.text.trimmingNewlines)",
                                        exitCode: 1)
        }
    }

    /// Streams a 2xx answer's body to `receive` (log follow); other outcomes as `call`.
    func stream(_ target: String, receive: ([UInt8]) -> Bool) throws -> HTTPClientResponse {
        let (endpoint, token) = try resolve()
        let client = HTTPClient(endpoint, timeoutSeconds: timeout)
        let response: HTTPClientResponse
        do throws(HTTPClientError) {
            response = try client.stream(target, headers: [("Authorization", "Bearer \(token)"), ("Accept", "text/event-stream")],
                                         receive: receive)
        } catch {
            throw Self.failure(error, endpoint: endpoint, timeout: timeout)
        }
        try Self.check(response, "GET", target, endpoint: endpoint)
        return response
    }

    /// A 2xx JSON answer parsed; `--json` prints it and returns nil.
    func document(_ target: String) throws -> JSONValue? {
        let response = try call(target)
        if json {
            print(response.text, terminator: response.text.hasSuffix("\n") ? "" : "\n")
            return nil
        }
        do {
            return try JSONParser.parse(response.body)
        } catch {
            throw ManagementClientError("\(target) did not answer JSON: \(error)", exitCode: 1)
        }
    }
}

/// A client failure: the message printed and the exit code.
struct ManagementClientError: Error, CustomStringConvertible {
    let description: String
    let exitCode: Int32

    init(_ description: String, exitCode: Int32) {
        self.description = description
        self.exitCode = exitCode
    }
}

extension ManagementClientError {
    /// Prints the message and exits with the code (ArgumentParser would print its own prefix).
    static func run(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as ManagementClientError {
            printError("grandstand: \(error.description)")
            throw ExitCode(error.exitCode)
        }
    }
}

extension String {
    var trimmingNewlines: String {
        var text = self
        while text.hasSuffix("\n") { text.removeLast() }
        return text
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters (query values).
    var percentEncoded: String {
        var out = ""
        for byte in utf8 {
            let unreserved = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
                || byte == 0x2d || byte == 0x2e || byte == 0x5f || byte == 0x7e
            if unreserved {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                out += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 15)])
            }
        }
        return out
    }
}
