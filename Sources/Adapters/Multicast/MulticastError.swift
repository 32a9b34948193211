#if canImport(Glibc)
import Glibc
#endif

/// A socket call of the Multicast adapter failed: the operation and its errno.
public struct MulticastError: Error, CustomStringConvertible, Sendable, Equatable {
    public let operation: String
    public let code: Int32

    public init(_ operation: String, code: Int32) {
        self.operation = operation
        self.code = code
    }

    /// Captures the current errno.
    static func errno(_ operation: String) -> MulticastError { MulticastError(operation, code: Glibc.errno) }

    public var description: String {
        "\(operation): \(String(cString: strerror(code))) (errno \(code))"
    }
}
