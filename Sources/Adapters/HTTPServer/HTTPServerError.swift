#if canImport(Glibc)
import Glibc
#endif

/// A listener could not start or was misconfigured: the operation and errno.
public struct HTTPServerError: Error, Equatable, CustomStringConvertible, Sendable {
    public let operation: String
    public let errno: Int32

    public init(_ operation: String, errno: Int32) {
        self.operation = operation
        self.errno = errno
    }

    public var description: String {
        errno == 0 ? operation : "\(operation): \(String(cString: strerror(errno))) (errno \(errno))"
    }
}
