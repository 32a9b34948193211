import GrandstandCore
#if canImport(Glibc)
import Glibc
#endif

/// Where recordings live: `stateDirectory/records/NAME.ts`, `NAME.m3u8`, `NAME.json`. The only
/// type that knows the layout, so the content cache can take the directory over later.
struct RecordStore: Sendable {
    let directory: String

    init(stateDirectory: String) { directory = stateDirectory + "/records" }

    func tsPath(_ name: String) -> String { "\(directory)/\(name).ts" }
    func playlistPath(_ name: String) -> String { "\(directory)/\(name).m3u8" }
    func metadataPath(_ name: String) -> String { "\(directory)/\(name).json" }

    func prepare() throws(RecordError) {
        if mkdir(directory, 0o755) != 0 && errno != EEXIST { throw RecordError("mkdir \(directory)", errno: errno) }
    }

    /// Names of recordings with metadata on disk (left by an earlier run).
    func storedNames() -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasSuffix(".json") {
                let base = String(name.dropLast(5))
                if RecordName.problem(base) == nil { names.append(base) }
            }
        }
        return names.sorted()
    }
}

/// A recording could not be made, written or served: the operation and errno (0 when the
/// request itself was wrong), with a readable reason.
struct RecordError: Error, CustomStringConvertible, Equatable {
    let operation: String
    let errno: Int32
    var reason: String?

    init(_ operation: String, errno: Int32, reason: String? = nil) {
        self.operation = operation
        self.errno = errno
        self.reason = reason
    }

    var description: String {
        if let reason { return "\(operation): \(reason)" }
        return "\(operation): \(String(cString: strerror(errno))) (errno \(errno))"
    }

    /// What a failed recording lists as its reason.
    var stateReason: String { errno == ENOSPC ? "disk full" : description }
}

/// An append-only file descriptor for a recording's TS.
final class RecordFile {
    private let fd: Int32
    let path: String
    private(set) var size = 0

    init(path: String) throws(RecordError) {
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw RecordError("create \(path)", errno: errno) }
        self.path = path
    }

    deinit { close(fd) }

    func append(_ bytes: [UInt8]) throws(RecordError) {
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw RecordError("write \(path)", errno: count == 0 ? ENOSPC : errno) }
            written += count
        }
        size += written
    }

    func sync() { fsync(fd) }
}
