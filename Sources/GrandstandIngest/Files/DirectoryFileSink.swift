import GrandstandCore
import GrandstandRuntime
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import GrandstandOperations

/// The plain `ReceivedFileSink`: files under `root/CHANNEL/PATH`, each written crash-safely
/// (temporary name, fsync, rename, fsync of the folder: `AtomicFile`). Until the content cache
/// lands this is what the daemon (state folder `files/`) and replay (`--out DIR/files`) use. A
/// file stored before a restart is found again on disk by `lookup`.
public final class DirectoryFileSink: ReceivedFileSink, Sendable {
    let root: String
    private let index = Mutex<[String: [String: StoredFile]]>([:])

    public init(root: String) {
        self.root = root.hasSuffix("/") && root.count > 1 ? String(root.dropLast()) : root
    }

    /// Beside the served tree (same filesystem, never served): `ROOT.spool`.
    public var spoolDirectory: String? { root + ".spool" }

    private func localPath(_ channelID: String, _ path: String) -> String { "\(root)/\(channelID)/\(path)" }

    public func store(_ file: ReceivedFile) throws -> StoredFile {
        guard ContentLocation.relativePath(file.path) == file.path, ContentLocation.relativePath(file.channelID) == file.channelID,
              !file.channelID.contains("/") else {
            throw StateFileError(operation: "store received file", path: file.path, errno: EINVAL, reason: "not a safe relative path")
        }
        let target = localPath(file.channelID, file.path)
        let folder = String(target[..<(target.lastIndex(of: "/") ?? target.endIndex)])
        try Self.makeDirectories(folder)
        let md5: [UInt8]
        if let spool = file.spool {
            try SpoolFile.place(spool, at: target)
            md5 = spool.md5
        } else {
            try AtomicFile.write(file.bytes, to: target, mode: 0o644)
            md5 = MD5.digest(file.bytes)
        }
        let digest = md5.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        let stored = StoredFile(channelID: file.channelID, path: file.path, localPath: target, size: file.size,
                                contentType: file.contentType, etag: "\"\(digest)\"", storedNanoseconds: file.completedNanoseconds)
        index.withLock { $0[file.channelID, default: [:]][file.path] = stored }
        return stored
    }

    public func lookup(channelID: String, path: String) -> StoredFile? {
        if let known = index.withLock({ $0[channelID]?[path] }) { return known }
        // A file from before a restart: only a safe name, and only a regular file.
        guard ContentLocation.relativePath(path) == path, ContentLocation.relativePath(channelID) == channelID,
              !channelID.contains("/") else { return nil }
        let target = localPath(channelID, path)
        var info = stat()
        guard stat(target, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let mtime = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        return StoredFile(channelID: channelID, path: path, localPath: target, size: Int(info.st_size), contentType: nil,
                          etag: "\"\(String(info.st_size, radix: 16))-\(String(mtime, radix: 16))\"", storedNanoseconds: mtime)
    }

    public func files(channelID: String) -> [StoredFile] {
        index.withLock { ($0[channelID] ?? [:]).values.sorted { $0.path < $1.path } }
    }

    /// `mkdir -p` (relative or absolute), 0755.
    static func makeDirectories(_ path: String) throws(StateFileError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            prefix += "/" + part
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw StateFileError(operation: "create folder", path: prefix, errno: errno)
            }
        }
    }
}
