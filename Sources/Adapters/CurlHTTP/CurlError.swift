#if canImport(Glibc)
import Glibc
#endif

/// A request failed: the operation (method and URL), libcurl's code, the system's errno when
/// it had one, libcurl's own message, and what it means (`kind`) in words an operator reads.
public struct CurlError: Error, Equatable, CustomStringConvertible, Sendable {
    public enum Kind: String, Sendable, Equatable {
        case badURL = "bad URL"
        case unresolved = "host not found"
        case connectionRefused = "connection refused"
        case unreachable = "origin unreachable"
        case timeout
        case tooManyRedirects = "too many redirects"
        case certificateExpired = "certificate expired"
        case certificateNotYetValid = "certificate not yet valid"
        case certificateWrongHost = "certificate for another host"
        case certificateUntrusted = "certificate not trusted"
        case pinnedKeyMismatch = "public key does not match the pin"
        case tls = "TLS handshake failed"
        case caFile = "CA file unusable"
        case proxy = "proxy failed"
        /// The origin closed the connection before the announced end of the body.
        case partialBody = "body cut short"
        case connectionLost = "connection lost"
        case bodyTooLarge = "body too large"
        /// A response head past `Transfer.maxHeaderBytes` (or one header line past libcurl's own limit).
        case headersTooLarge = "response headers too large"
        /// The stop signal was raised (shutdown, pause, delete).
        case stopped
        case other = "transfer failed"
    }

    public let operation: String
    /// libcurl's CURLcode (0 for failures the adapter itself detects).
    public let code: Int32
    /// CURLINFO_OS_ERRNO (0: none).
    public let errno: Int32
    public let kind: Kind
    /// libcurl's message (its error buffer, else curl_easy_strerror).
    public let message: String

    public init(_ operation: String, code: Int32, errno: Int32 = 0, kind: Kind, message: String) {
        self.operation = operation
        self.code = code
        self.errno = errno
        self.kind = kind
        self.message = message
    }

    public var isTimeout: Bool { kind == .timeout }
    public var isConnectionRefused: Bool { kind == .connectionRefused }
    /// A certificate or pin problem: retrying will not help until someone fixes the origin or the config.
    public var isCertificateProblem: Bool {
        [.certificateExpired, .certificateNotYetValid, .certificateWrongHost, .certificateUntrusted, .pinnedKeyMismatch, .caFile].contains(kind)
    }

    /// What it means first, then libcurl's words: `GET https://…: the origin's certificate has
    /// expired (curl 60: SSL certificate problem: certificate has expired)`.
    public var description: String {
        var text = "\(operation): \(meaning)"
        if code != 0 { text += " (curl \(code): \(message)" + (errno != 0 ? "; \(String(cString: strerror(errno)))" : "") + ")" }
        else if !message.isEmpty, message != meaning { text += " (\(message))" }
        return text
    }

    private var meaning: String {
        switch kind {
        case .certificateExpired: "the origin's certificate has expired"
        case .certificateNotYetValid: "the origin's certificate is not valid yet (check the box's clock)"
        case .certificateWrongHost: "the origin's certificate is for another host name"
        case .certificateUntrusted: "the origin's certificate is not signed by a trusted CA"
        case .pinnedKeyMismatch: "the origin's public key does not match the pinned key"
        case .tooManyRedirects: "too many redirects"
        case .partialBody: "the origin closed the connection before the end of the body"
        case .stopped: "stopped"
        default: kind.rawValue
        }
    }
}
