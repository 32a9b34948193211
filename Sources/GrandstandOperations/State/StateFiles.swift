import GrandstandCore
#if canImport(Glibc)
import Glibc
#endif

/// A state or config file could not be read or written: the operation, the path and errno (or
/// a reason when the content itself is wrong).
public struct StateFileError: Error, CustomStringConvertible, Equatable {
    public let operation: String
    public let path: String
    public let errno: Int32
    public var reason: String? = nil

    public init(operation: String, path: String, errno: Int32, reason: String? = nil) {
        self.operation = operation
        self.path = path
        self.errno = errno
        self.reason = reason
    }

    public var description: String {
        let cause = reason ?? "\(String(cString: strerror(errno))) (errno \(errno))"
        return "\(operation) \(path): \(cause)"
    }
}

/// Whole-file reads and crash-safe replacement (temporary file, fsync, rename, fsync of the
/// directory), so a power cut leaves either the old or the new file, never a torn one.
public enum AtomicFile {
    /// The file's bytes, or nil when it does not exist.
    public static func read(_ path: String, limit: Int = 1 << 20) throws(StateFileError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw StateFileError(operation: "open", path: path, errno: errno)
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = Glibc.read(fd, &chunk, chunk.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw StateFileError(operation: "read", path: path, errno: errno)
            }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
            guard bytes.count <= limit else {
                throw StateFileError(operation: "read", path: path, errno: EFBIG, reason: "larger than \(limit) bytes")
            }
        }
    }

    public static func write(_ bytes: [UInt8], to path: String, mode: mode_t) throws(StateFileError) {
        let directory = path.contains("/") ? String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]) : "."
        let base = path.split(separator: "/").last.map(String.init) ?? path
        let temporary = (directory.isEmpty ? "" : directory + "/") + ".\(base).tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw StateFileError(operation: "create", path: temporary, errno: errno) }
        var failure: StateFileError?
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { failure = StateFileError(operation: "write", path: temporary, errno: errno); break }
            written += count
        }
        if failure == nil, fchmod(fd, mode) != 0 { failure = StateFileError(operation: "chmod", path: temporary, errno: errno) }
        if failure == nil, fsync(fd) != 0 { failure = StateFileError(operation: "fsync", path: temporary, errno: errno) }
        close(fd)
        if failure == nil, rename(temporary, path) != 0 { failure = StateFileError(operation: "rename to", path: path, errno: errno) }
        if let failure {
            unlink(temporary)
            throw failure
        }
        let directoryFD = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            fsync(directoryFD)
            close(directoryFD)
        }
    }
}

/// The management API's bearer token: the configured one, else the one generated at first start
/// into `stateDirectory/management-token` (0600, 32 random bytes as 64 hex digits) and reused.
public enum TokenStore {
    static let fileName = "management-token"

    public enum Source: Equatable { case config, file, generated }

    public static func path(stateDirectory: String) -> String {
        (stateDirectory.hasSuffix("/") ? stateDirectory : stateDirectory + "/") + fileName
    }

    public static func resolve(_ config: GatewayConfig) throws(StateFileError) -> (token: String, source: Source) {
        if let token = config.managementToken { return (token, .config) }
        let path = path(stateDirectory: config.stateDirectory)
        if let token = try read(path) { return (token, .file) }
        // The stdlib's system generator is getrandom(2) on Linux (blocking until the pool is seeded).
        var generator = SystemRandomNumberGenerator()
        let token = ManagementToken.text(fromRandom: (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        try AtomicFile.write(Array((token + "\n").utf8), to: path, mode: 0o600)
        return (token, .generated)
    }

    /// The stored token, nil when there is none yet; a clear error when unreadable or corrupt.
    public static func read(_ path: String) throws(StateFileError) -> String? {
        guard let bytes = try AtomicFile.read(path, limit: 4096) else { return nil }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw StateFileError(operation: "read management token", path: path, errno: EINVAL,
                                 reason: "not text; delete the file to have a new token generated")
        }
        let token = text.hasSuffix("\n") ? String(text.dropLast()) : text
        if token.isEmpty || ManagementToken.problem(token) != nil {
            let why = token.isEmpty ? "empty" : ManagementToken.problem(token) ?? ""
            throw StateFileError(operation: "read management token", path: path, errno: EINVAL,
                                 reason: "corrupt (\(why)); delete the file to have a new token generated")
        }
        return token
    }
}
