#if canImport(Glibc)
import Glibc
#endif

/// A request failed: the operation (with the peer), errno when the system said why, or a
/// reason when the peer's answer was not HTTP.
public struct HTTPClientError: Error, Equatable, CustomStringConvertible, Sendable {
    public let operation: String
    public let errno: Int32
    public let reason: String?

    public init(_ operation: String, errno: Int32, reason: String? = nil) {
        self.operation = operation
        self.errno = errno
        self.reason = reason
    }

    /// Nobody listens at the address (the daemon is not running there).
    public var isConnectionRefused: Bool { errno == ECONNREFUSED }

    /// The peer did not answer within the client's timeout.
    public var isTimeout: Bool { errno == ETIMEDOUT || errno == EAGAIN || errno == EWOULDBLOCK }

    public var description: String {
        if let reason { return "\(operation): \(reason)" }
        return "\(operation): \(String(cString: strerror(errno))) (errno \(errno))"
    }
}
