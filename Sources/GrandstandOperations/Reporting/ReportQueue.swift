import GrandstandCore
#if canImport(Glibc)
import Glibc
#endif

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
    init(directory: String, limit: Int) throws(StateFileError) {
        self.directory = directory
        self.limit = max(1, limit)
        try Self.makeDirectories(directory)
        var found: [UInt64] = []
        guard let dir = opendir(directory) else { throw StateFileError(operation: "open folder", path: directory, errno: errno) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let sequence = UploadQueuePolicy.sequence(ofFileName: name) {
                found.append(sequence)
            } else if name.hasPrefix(".") && name.contains(".tmp") {   // AtomicFile's leftovers
                unlink(directory + "/" + name)
            }
        }
        closedir(dir)
        sequences = found.sorted()
    }

    var count: Int { sequences.count }

    /// Stores `report` after the newest; drops the oldest first when the queue is full.
    func enqueue(_ report: [UInt8]) throws(StateFileError) {
        for old in UploadQueuePolicy.toDrop(queued: sequences, limit: limit) {
            unlink(path(old))
            sequences.removeAll { $0 == old }
            dropped += 1
        }
        let next = (sequences.last ?? 0) + 1
        try AtomicFile.write(report, to: path(next), mode: 0o600)
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

    /// A queued report's bytes; nil when it vanished or cannot be read (it is skipped).
    static func read(_ path: String) -> [UInt8]? {
        (try? AtomicFile.read(path, limit: 16 << 20)) ?? nil
    }

    /// mkdir -p (mode 0700 for new folders).
    static func makeDirectories(_ path: String) throws(StateFileError) {
        var prefix = ""
        for part in path.split(separator: "/") {
            prefix += "/" + part
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                throw StateFileError(operation: "create folder", path: prefix, errno: errno)
            }
        }
    }
}

/// The device UUID: created once (random, v4) in `stateDirectory/device-uuid`, then reused.
enum DeviceIdentity {
    static let fileName = "device-uuid"

    static func load(stateDirectory: String) throws(StateFileError) -> ReportUUID {
        let path = (stateDirectory.hasSuffix("/") ? stateDirectory : stateDirectory + "/") + fileName
        if let bytes = ReportQueue.read(path), let uuid = ReportUUID(String(decoding: bytes, as: UTF8.self)) {
            return uuid
        }
        try ReportQueue.makeDirectories(stateDirectory)
        let uuid = randomUUID()
        try AtomicFile.write(Array((uuid.description + "\n").utf8), to: path, mode: 0o644)
        return uuid
    }
}

/// A fresh random UUID (getrandom(2) through the stdlib's system generator).
func randomUUID() -> ReportUUID {
    var generator = SystemRandomNumberGenerator()
    return ReportUUID(randomHigh: generator.next(), low: generator.next())
}
