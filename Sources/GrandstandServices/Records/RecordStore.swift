import GrandstandCore
#if canImport(Glibc)
import Glibc
#endif
import GrandstandOperations

/// Where recordings live: `stateDirectory/records/NAME.ts` (the media), `NAME.json` (metadata,
/// written at start and at the end, each time by temporary file + fsync + rename), `NAME.segments`
/// (the segment journal while it records) and `NAME.m3u8` (the VOD playlist, written at the end).
/// The only type that knows the layout, so the content cache can take the directory over later.
struct RecordStore: Sendable {
    let directory: String

    init(stateDirectory: String) { directory = stateDirectory + "/records" }

    func tsPath(_ name: String) -> String { "\(directory)/\(name).ts" }
    func playlistPath(_ name: String) -> String { "\(directory)/\(name).m3u8" }
    func metadataPath(_ name: String) -> String { "\(directory)/\(name).json" }
    func journalPath(_ name: String) -> String { "\(directory)/\(name).segments" }

    func prepare() throws(RecordError) {
        if mkdir(directory, 0o755) != 0 && errno != EEXIST { throw RecordError("mkdir", path: directory, errno: errno) }
    }

    /// True when any file of `name` is on disk: a name is never reused over an old file.
    func exists(_ name: String) -> Bool {
        for path in [tsPath(name), metadataPath(name), journalPath(name), playlistPath(name)] {
            var info = stat()
            if lstat(path, &info) == 0 { return true }
        }
        return false
    }

    /// Names of recordings on disk: those with metadata, and `.ts` files without any (left by a
    /// crash of a version that wrote metadata only at the end). Removes temporary files a crash
    /// left behind (`.NAME.json.tmp-PID`).
    func storedNames() -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names = Set<String>()
        while let entry = readdir(dir) {
            let file = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if file.hasPrefix("."), file.contains(".tmp-") { unlink("\(directory)/\(file)"); continue }
            for suffix in [".json", ".ts"] where file.hasSuffix(suffix) {
                let base = String(file.dropLast(suffix.count))
                if RecordName.problem(base) == nil { names.insert(base) }
            }
        }
        return names.sorted()
    }

    func writeMetadata(_ record: Recording) throws(RecordError) {
        do {
            try AtomicFile.write(Array((record.json.encoded + "\n").utf8), to: metadataPath(record.name), mode: 0o644)
        } catch {
            throw RecordError(error)
        }
    }

    func writePlaylist(_ record: Recording) throws(RecordError) {
        do {
            try AtomicFile.write(Array(VODPlaylist.render(record.segments).utf8), to: playlistPath(record.name), mode: 0o644)
        } catch {
            throw RecordError(error)
        }
    }

    /// Makes the directory's entries durable (new files' names survive a power cut with their data).
    func syncDirectory() throws(RecordError) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw RecordError("open", path: directory, errno: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw RecordError("fsync", path: directory, errno: errno) }
    }

    /// Removes every file of `name`.
    func remove(_ name: String) {
        for path in [tsPath(name), playlistPath(name), metadataPath(name), journalPath(name)] { unlink(path) }
    }

    // MARK: Loading and recovery

    /// A recording left on disk, made listable: a finished one as stored (segments from its
    /// playlist); one cut while recording (its metadata says `recording`, or there is none)
    /// recovered as `failed: interrupted` with its playable part — the journaled segments, the
    /// rest measured by its PCRs, the file cut to whole TS packets — and stored so. `interrupted`
    /// says it was recovered now.
    func load(_ name: String, now: Int64) -> (record: Recording, interrupted: Bool)? {
        var stored: Recording?
        var recording = true
        if let bytes = try? AtomicFile.read(metadataPath(name)), let document = try? JSONParser.parse(bytes) {
            stored = Recording.decode(document, name: name)
            recording = document["state"] == .string("recording")
        }
        if var record = stored, !recording {
            if let text = try? AtomicFile.read(playlistPath(name), limit: 16 << 20),
               let segments = VODPlaylist.segments(String(decoding: text, as: UTF8.self)) {
                record.segments = segments
            }
            return (record, false)
        }
        var info = stat()
        // No metadata and no TS: nothing to list (a half-written metadata temporary was removed).
        guard stored != nil || stat(tsPath(name), &info) == 0 else { return nil }
        var record = stored ?? Recording(name: name, channel: "", state: .failed(RecordState.interrupted),
                                         startedAt: Int64(info.st_mtim.tv_sec) * 1_000_000_000)
        record.state = .failed(RecordState.interrupted)
        record.segments = []
        record.bytes = 0
        if record.stoppedAtNanoseconds == nil { record.stoppedAtNanoseconds = now }
        let entries = RecordJournal.parse((try? AtomicFile.read(journalPath(name), limit: 64 << 20)) ?? []).entries
        let fd = open(tsPath(name), O_RDWR | O_CLOEXEC)
        if fd >= 0 {
            defer { close(fd) }
            var size = stat()
            fstat(fd, &size)
            let fileSize = Int(size.st_size)
            let plan = RecordRecovery.plan(entries: entries, fileSize: fileSize)
            var kept = plan.entries
            var keptBytes = plan.keptBytes
            if let tail = plan.tail, let bytes = Self.read(fd, tail),
               let segment = RecordRecovery.tailSegment(bytes[...], offset: tail.lowerBound) {
                kept.append(segment)
                keptBytes = tail.upperBound
            }
            if keptBytes != fileSize { _ = ftruncate(fd, off_t(keptBytes)) }
            fsync(fd)
            for entry in kept { record.append(length: entry.length, durationSeconds: entry.durationSeconds, discontinuity: entry.discontinuity) }
        }
        // Stored as failed (so the next start does not recover it again), then the journal goes.
        do throws(RecordError) {
            try writePlaylist(record)
            try writeMetadata(record)
            unlink(journalPath(name))
        } catch {}
        return (record, true)
    }

    /// `range` of the open file `fd` (nil when it is not all there).
    static func read(_ fd: Int32, _ range: Range<Int>) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: range.count)
        var done = 0
        while done < bytes.count {
            let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, $0.count - done, off_t(range.lowerBound + done)) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { return nil }
            done += got
        }
        return bytes
    }
}

/// A recording could not be made, written or served: the operation, the path and errno (0 when
/// the request itself was wrong), with a readable reason.
struct RecordError: Error, CustomStringConvertible, Equatable {
    let operation: String
    let path: String?
    let errno: Int32
    var reason: String?

    init(_ operation: String, path: String? = nil, errno: Int32, reason: String? = nil) {
        self.operation = operation
        self.path = path
        self.errno = errno
        self.reason = reason
    }

    init(_ error: StateFileError) {
        self.init(error.operation, path: error.path, errno: error.errno, reason: error.reason)
    }

    var description: String {
        let subject = path.map { "\(operation) \($0)" } ?? operation
        if let reason { return "\(subject): \(reason)" }
        return "\(subject): \(String(cString: strerror(errno))) (errno \(errno))"
    }

    /// What a failed recording lists as its reason.
    var stateReason: String { errno == ENOSPC ? RecordState.diskFull : description }
}

/// A recording's append-only file (its TS, or its segment journal).
final class RecordFile {
    private let fd: Int32
    let path: String
    private(set) var size = 0

    /// Creates the file; an existing one is never replaced (O_EXCL).
    init(creating path: String) throws(RecordError) {
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw RecordError("create", path: path, errno: errno) }
        self.path = path
    }

    deinit { close(fd) }

    func append(_ bytes: [UInt8]) throws(RecordError) {
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                // What went in of a failed write is cut off again: the file ends where it did.
                let error = RecordError("write", path: path, errno: count == 0 ? ENOSPC : errno)
                _ = ftruncate(fd, off_t(size))
                _ = lseek(fd, off_t(size), SEEK_SET)
                throw error
            }
            written += count
        }
        size += written
    }

    /// Cuts the file back to `length` bytes (a failed batch of segments).
    func truncate(to length: Int) {
        _ = ftruncate(fd, off_t(length))
        _ = lseek(fd, off_t(length), SEEK_SET)
        size = length
    }

    func sync() throws(RecordError) {
        guard fdatasync(fd) == 0 else { throw RecordError("fdatasync", path: path, errno: errno) }
    }
}
