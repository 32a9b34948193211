#if canImport(Glibc)
import Glibc
#endif

/// A failed runtime operation (a thread that could not be created, a condition variable that
/// could not be set up): the operation and the errno it returned, named like swift-system's
/// `Errno` (`EAGAIN: Resource temporarily unavailable`).
public struct RuntimeError: Error, Sendable, CustomStringConvertible {
    public let operation: String
    public let errno: Int32

    public init(_ operation: String, errno: Int32) {
        self.operation = operation
        self.errno = errno
    }

    public var description: String { "\(operation): \(Errno.describe(errno))" }
}

/// errno values as people read them: the symbolic name and strerror's text.
public enum Errno {
    /// `ENOENT: No such file or directory (errno 2)`.
    public static func describe(_ code: Int32) -> String {
        let text = strerror(code).map { String(cString: $0) } ?? "error"
        return "\(text) (errno \(code))"
    }
}
