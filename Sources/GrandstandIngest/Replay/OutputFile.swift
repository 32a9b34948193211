#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A replay output could not be written: the operation, the path and errno.
struct ReplayError: Error, CustomStringConvertible {
    let operation: String
    let path: String
    let code: Int32

    init(_ operation: String, _ path: String, code: Int32 = errno) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    var description: String {
        code == 0 ? "\(operation) \(path)" : "\(operation) \(path): \(String(cString: strerror(code))) (errno \(code))"
    }
}

/// A file written through stdio's buffer (replay writes many small pieces). Truncated on open;
/// closed on `close()` or deinit.
final class OutputFile {
    static let bufferBytes = 1 << 20
    let path: String
    private var stream: UnsafeMutablePointer<FILE>?

    init(path: String) throws(ReplayError) {
        self.path = path
        guard let stream = fopen(path, "wb") else { throw ReplayError("open", path) }
        // A large buffer: a TS file gets ~1.3 KB per packet, and stdio's default (4 KiB) would
        // make a write(2) every few packets (docs/performance.md). Failure keeps the default.
        _ = setvbuf(stream, nil, _IOFBF, OutputFile.bufferBytes)
        self.stream = stream
    }

    deinit { if let stream { fclose(stream) } }

    func write(_ bytes: ArraySlice<UInt8>) throws(ReplayError) {
        guard let stream, !bytes.isEmpty else { return }
        // One writer per file: stdio's per-call locking is not needed where glibc offers that.
        #if canImport(Glibc)
        let written = bytes.withUnsafeBufferPointer { fwrite_unlocked($0.baseAddress, 1, $0.count, stream) }
        #else
        let written = bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, stream) }
        #endif
        guard written == bytes.count else { throw ReplayError("write", path) }
    }

    func write(_ text: String) throws(ReplayError) { try write(Array(text.utf8)[...]) }

    func close() throws(ReplayError) {
        guard let stream else { return }
        self.stream = nil
        guard fclose(stream) == 0 else { throw ReplayError("close", path) }
    }

    /// `mkdir -p` for one directory and its parents.
    static func makeDirectory(_ path: String) throws(ReplayError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for part in path.split(separator: "/") {
            prefix += part + "/"
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST { throw ReplayError("create directory", prefix) }
        }
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { throw ReplayError("not a directory:", path, code: ENOTDIR) }
    }
}
