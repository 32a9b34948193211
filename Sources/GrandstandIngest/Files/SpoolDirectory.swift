import GrandstandCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Spool files for FLUTE objects assembled on disk (`SymbolStoreProvider`): one file per object
/// in `path`, which must be on the sink's filesystem (so the sink renames it into place) and
/// cleared at start (`clear`), so a crash leaves no half object anywhere it is served from.
public struct SpoolDirectory: SymbolStoreProvider {
    public let path: String
    /// Free space left for everything else: an object is refused when its Transfer-Length does
    /// not fit the free space minus this floor.
    public let floorBytes: Int
    /// The free bytes of `path` (statvfs); injectable so tests can pretend a full disk.
    let freeBytes: @Sendable (String) -> Int?
    private static let counter = Mutex(0)

    public init(path: String, floorBytes: Int = 64 << 20, freeBytes: (@Sendable (String) -> Int?)? = nil) {
        self.path = path
        self.floorBytes = floorBytes
        self.freeBytes = freeBytes ?? Self.statvfsFree
    }

    static func statvfsFree(_ path: String) -> Int? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return Int(info.f_bavail) * Int(info.f_frsize)
    }

    /// Removes spool files a previous run left (their objects restart). A folder not made yet
    /// holds none: it is created with the first object on disk (`makeStore`), so a gateway that
    /// never assembles one leaves nothing behind (and a missing state directory stays missing).
    public func clear() throws(SymbolStoreError) {
        guard let folder = opendir(path) else {
            if errno == ENOENT { return }
            throw SymbolStoreError(operation: "open folder", path: path, errno: errno)
        }
        defer { closedir(folder) }
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix("flute-") { unlink(path + "/" + name) }
        }
    }

    public func makeStore(transferLength: Int) throws(SymbolStoreError) -> any SymbolStore {
        try makeFolder()
        guard let free = freeBytes(path) else { throw SymbolStoreError(operation: "statvfs", path: path, errno: errno) }
        guard transferLength <= free - floorBytes else { throw SymbolStoreError(operation: "reserve \(transferLength) bytes", path: path, errno: ENOSPC) }
        let number = Self.counter.withLock { value in
            value += 1
            return value
        }
        let file = "\(path)/flute-\(getpid())-\(number)"
        let fd = open(file, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SymbolStoreError(operation: "create", path: file, errno: errno) }
        return SpoolFile(fd: fd, path: file)
    }
}

extension SpoolDirectory {
    /// The folder and its parents (`mkdir -p`).
    func makeFolder() throws(SymbolStoreError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            prefix += "/" + part
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST { throw SymbolStoreError(operation: "create folder", path: prefix, errno: errno) }
        }
    }
}

/// One object's spool file: symbols written and read with pwrite/pread at their offsets (the
/// repair area past the object is cut off by `seal`). Closed, and removed unless a sink moved
/// it, when the last reference goes.
final class SpoolFile: SymbolStore {
    let fd: Int32
    let path: String

    init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit {
        close(fd)
        unlink(path)
    }

    var memoryBytes: Int { 0 }

    func write(_ bytes: ArraySlice<UInt8>, at offset: Int) throws(SymbolStoreError) {
        var done = 0
        while done < bytes.count {
            let count = bytes[(bytes.startIndex + done)...].withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(offset + done)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw SymbolStoreError(operation: "pwrite", path: path, errno: count == 0 ? ENOSPC : errno) }
            done += count
        }
    }

    func read(at offset: Int, count: Int) throws(SymbolStoreError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = out[done...].withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(offset + done)) }
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { throw SymbolStoreError(operation: "pread", path: path, errno: errno) }
            if got == 0 { break }   // past the end: never written, zeros
            done += got
        }
        return out
    }

    func discard(_ offsets: [Int]) {}

    func seal(length: Int, md5: [UInt8]) throws(SymbolStoreError) -> ObjectContent {
        guard ftruncate(fd, off_t(length)) == 0 else { throw SymbolStoreError(operation: "ftruncate", path: path, errno: errno) }
        guard fsync(fd) == 0 else { throw SymbolStoreError(operation: "fsync", path: path, errno: errno) }
        return .file(SpooledObject(path: path, size: length, md5: md5, owner: self))
    }

    /// Renames a sealed spool file to `target` and fsyncs `target`'s folder, so the file appears
    /// whole under its served name or not at all (docs/cache.md crash-safety rules).
    static func place(_ spool: SpooledObject, at target: String) throws(SymbolStoreError) {
        guard rename(spool.path, target) == 0 else { throw SymbolStoreError(operation: "rename to", path: target, errno: errno) }
        let folder = String(target[..<(target.lastIndex(of: "/") ?? target.endIndex)])
        let fd = open(folder.isEmpty ? "/" : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw SymbolStoreError(operation: "open folder", path: folder, errno: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw SymbolStoreError(operation: "fsync folder", path: folder, errno: errno) }
    }
}
