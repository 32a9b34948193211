import GrandstandCore
#if canImport(Glibc)
import Glibc
#endif

/// A failed state-file operation of the reporter: what, where, errno.
struct ReportStoreError: Error, CustomStringConvertible, Equatable {
    let operation: String
    let path: String
    let errno: Int32
    var description: String { "\(operation) \(path): \(String(cString: strerror(errno))) (errno \(errno))" }
}

/// The reports waiting for the Reporter: one file per report in one folder, named by
/// `UploadQueuePolicy` (sequence order = send order), written atomically (temporary file,
/// fsync, rename, fsync of the folder), so a crash or power cut loses none and tears none.
/// Bounded: enqueuing into a full queue deletes the oldest and counts them in `dropped`.
final class ReportQueue {
    let directory: String
    let limit: Int
    private(set) var sequences: [UInt64]
    /// Reports deleted unsent because the queue was full (this run).
    private(set) var dropped = 0

    /// Opens (creating if needed) the folder and lists what an earlier run left; stray
    /// temporary files of an interrupted write are removed.
    init(directory: String, limit: Int) throws(ReportStoreError) {
        self.directory = directory
        self.limit = max(1, limit)
        try Self.makeDirectories(directory)
        var found: [UInt64] = []
        guard let dir = opendir(directory) else { throw ReportStoreError(operation: "open folder", path: directory, errno: errno) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let sequence = UploadQueuePolicy.sequence(ofFileName: name) {
                found.append(sequence)
            } else if name.hasPrefix(".") && name.hasSuffix(".tmp") {
                unlink(directory + "/" + name)
            }
        }
        closedir(dir)
        sequences = found.sorted()
    }

    var count: Int { sequences.count }

    /// Stores `report` after the newest; drops the oldest first when the queue is full.
    func enqueue(_ report: [UInt8]) throws(ReportStoreError) {
        for old in UploadQueuePolicy.toDrop(queued: sequences, limit: limit) {
            unlink(path(old))
            sequences.removeAll { $0 == old }
            dropped += 1
        }
        let next = (sequences.last ?? 0) + 1
        try Self.writeAtomically(report, to: path(next), directory: directory)
        sequences.append(next)
    }

    /// The oldest queued report, nil when empty. A vanished or unreadable file is skipped.
    func oldest() -> (sequence: UInt64, bytes: [UInt8])? {
        while let first = sequences.first {
            if let bytes = Self.read(path(first)) { return (first, bytes) }
            sequences.removeFirst()
        }
        return nil
    }

    /// Deletes a delivered (or rejected) report.
    func remove(_ sequence: UInt64) {
        unlink(path(sequence))
        sequences.removeAll { $0 == sequence }
    }

    func path(_ sequence: UInt64) -> String { directory + "/" + UploadQueuePolicy.fileName(sequence) }

    static func read(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = Glibc.read(fd, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            if count < 0 { return nil }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[..<count])
        }
    }

    /// tmp + fsync + rename + fsync(folder): the file appears whole or not at all.
    static func writeAtomically(_ bytes: [UInt8], to path: String, directory: String, mode: mode_t = 0o600) throws(ReportStoreError) {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let temporary = directory + "/." + name + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw ReportStoreError(operation: "create", path: temporary, errno: errno) }
        var failure: ReportStoreError?
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { failure = ReportStoreError(operation: "write", path: temporary, errno: errno); break }
            written += count
        }
        if failure == nil, fsync(fd) != 0 { failure = ReportStoreError(operation: "fsync", path: temporary, errno: errno) }
        close(fd)
        if failure == nil, rename(temporary, path) != 0 { failure = ReportStoreError(operation: "rename to", path: path, errno: errno) }
        if let failure {
            unlink(temporary)
            throw failure
        }
        let folder = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }

    /// mkdir -p (mode 0700 for new folders).
    static func makeDirectories(_ path: String) throws(ReportStoreError) {
        var prefix = ""
        for part in path.split(separator: "/") {
            prefix += "/" + part
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                throw ReportStoreError(operation: "create folder", path: prefix, errno: errno)
            }
        }
    }
}

/// The device UUID: created once (random, v4) in `stateDirectory/device-uuid`, then reused.
enum DeviceIdentity {
    static let fileName = "device-uuid"

    static func load(stateDirectory: String) throws(ReportStoreError) -> ReportUUID {
        let path = (stateDirectory.hasSuffix("/") ? stateDirectory : stateDirectory + "/") + fileName
        if let bytes = ReportQueue.read(path), let uuid = ReportUUID(String(decoding: bytes, as: UTF8.self)) {
            return uuid
        }
        try ReportQueue.makeDirectories(stateDirectory)
        let uuid = randomUUID()
        try ReportQueue.writeAtomically(Array((uuid.description + "\n").utf8), to: path, directory: stateDirectory, mode: 0o644)
        return uuid
    }
}

/// A fresh random UUID (getrandom(2) through the stdlib's system generator).
func randomUUID() -> ReportUUID {
    var generator = SystemRandomNumberGenerator()
    return ReportUUID(randomHigh: generator.next(), low: generator.next())
}
