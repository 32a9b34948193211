#if canImport(Glibc)
import Glibc
#endif

/// A libsystemd call failed: the operation and the negative errno it returned.
public struct SystemdError: Error, Equatable, CustomStringConvertible, Sendable {
    public let operation: String
    public let errno: Int32

    public init(_ operation: String, errno: Int32) {
        self.operation = operation
        self.errno = errno < 0 ? -errno : errno
    }

    public var description: String {
        "\(operation): \(String(cString: strerror(errno))) (errno \(errno))"
    }

    /// Turns libsystemd's "negative errno on failure" convention into a throw.
    @discardableResult
    static func check(_ result: Int32, _ operation: @autoclosure () -> String) throws(SystemdError) -> Int32 {
        if result < 0 { throw SystemdError(operation(), errno: result) }
        return result
    }
}
