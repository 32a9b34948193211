#if canImport(Glibc)
import Glibc
#endif

/// A filesystem call of the content store failed: the operation, the path, and errno (ENOSPC:
/// the disk is full; EROFS: mounted read-only), or a reason when the data itself was wrong.
public struct ContentStoreError: Error, CustomStringConvertible, Sendable, Equatable {
    public let operation: String
    public let path: String
    public let code: Int32
    public let reason: String?

    public init(_ operation: String, _ path: String, code: Int32, reason: String? = nil) {
        self.operation = operation
        self.path = path
        self.code = code
        self.reason = reason
    }

    static func errno(_ operation: String, _ path: String) -> ContentStoreError {
        ContentStoreError(operation, path, code: Glibc.errno)
    }

    public var isDiskFull: Bool { code == ENOSPC || code == EDQUOT }
    public var isReadOnly: Bool { code == EROFS }

    public var description: String {
        if let reason { return "\(operation) \(path): \(reason)" }
        let hint = isDiskFull ? " — the cache disk is full" : isReadOnly ? " — the cache filesystem is read-only" : ""
        return "\(operation) \(path): \(String(cString: strerror(code))) (errno \(code))\(hint)"
    }
}
