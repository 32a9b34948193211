import GrandstandCore
import GrandstandOperations
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A large file of a `--files` directory, read one source block at a time with pread (the
/// carousel never holds it whole); its MD5 is computed once, streaming, when it is opened.
final class FluteFileSource: FluteFileReader {
    let fd: Int32
    let path: String
    let size: Int
    let md5: [UInt8]
    let version: String

    /// Files above this size are sent from a reader (16 MiB).
    static let threshold = 16 << 20
    /// Readers kept across the directory's re-reads while the file is unchanged (no new MD5 pass).
    private static let open = Mutex<[String: FluteFileSource]>([:])

    private init(fd: Int32, path: String, size: Int, version: String) throws(StateFileError) {
        self.fd = fd
        self.path = path
        self.size = size
        self.version = version
        var md5 = MD5()
        var offset = 0
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while offset < size {
            let count = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, min($0.count, size - offset), off_t(offset)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { close(fd); throw StateFileError(operation: "read", path: path, errno: count == 0 ? EIO : errno) }
            md5.update(chunk[..<count])
            offset += count
        }
        self.md5 = md5.finalize()
    }

    deinit { close(fd) }

    /// The reader of `path` (regular file described by `info`), reused while it is unchanged.
    static func reader(_ path: String, _ info: stat) throws(StateFileError) -> FluteFileSource {
        let version = "\(info.st_dev)-\(info.st_ino)-\(info.st_size)-\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        if let known = open.withLock({ $0[path] }), known.version == version { return known }
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StateFileError(operation: "open", path: path, errno: errno) }
        let reader = try FluteFileSource(fd: fd, path: path, size: Int(info.st_size), version: version)
        open.withLock { $0[path] = reader }
        return reader
    }

    func read(at offset: Int, count: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = out[done...].withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(offset + done)) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { return nil }
            done += got
        }
        return out
    }
}
