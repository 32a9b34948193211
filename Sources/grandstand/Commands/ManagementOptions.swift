import ArgumentParser
import GrandstandCore
import HTTPClient
#if canImport(Glibc)
import Glibc
#endif
import GrandstandOperations

/// What every management client (`status`, `channels`, `stats`, `logs`) shares: where the daemon's
/// management listener is and its token (from `--url`/`--token`, else the daemon's config file and
/// state directory), the timeout, and `--json`; `ManagementClient` (GrandstandOperations) talks.
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

    /// The client for `--url`/`--token`, else the config's listener and token.
    func client() throws -> ManagementClient {
        var endpoint: HTTPEndpoint?
        if let url {
            guard let parsed = HTTPEndpoint(url: url) else { throw ValidationError("--url \(url) is not http://HOST:PORT") }
            endpoint = parsed
        }
        return try ManagementClient(config: config, url: endpoint, token: token, timeoutSeconds: timeout)
    }

    /// Sends one request and returns the body of a 2xx answer; any other outcome is a clear error.
    func call(_ target: String, method: String = "GET", body: [UInt8] = []) throws -> HTTPClientResponse {
        try client().call(target, method: method, body: body)
    }

    /// Streams a 2xx answer's body to `receive` (log follow); other outcomes as `call`.
    func stream(_ target: String, receive: ([UInt8]) -> Bool) throws -> HTTPClientResponse {
        try client().stream(target, receive: receive)
    }

    /// A 2xx JSON answer parsed; `--json` prints it and returns nil.
    func document(_ target: String) throws -> JSONValue? {
        guard json else { return try client().document(target) }
        let response = try call(target)
        print(response.text, terminator: response.text.hasSuffix("\n") ? "" : "\n")
        return nil
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
