import GrandstandCore
#if canImport(Glibc)
import Glibc
#endif

/// The cache's durable store: content-addressed objects (`objects/SHA256`) and the item index
/// journal (`index.journal`). A file is written to `tmp/`, fsynced, renamed into `objects/` and
/// the directory fsynced before the journal records it, so the index never names bytes that are
/// not durable; recovery at open (ContentStoreRecovery.swift) removes what no record names.
/// Not thread-safe: the owner (the daemon's ContentCache) serialises calls.
public final class ContentStore {
    public let directory: String
    public private(set) var items: [String: CacheItem]
    /// What recovery found at open (torn tail, dropped files, orphans).
    public let recovery: RecoveryReport
    private var journal: Int32
    private var journalLength: Int
    private var recordsSinceCompaction: Int
    private var tempCounter = 0

    public var journalPath: String { directory + "/index.journal" }
    var objectsPath: String { directory + "/objects" }
    var tempPath: String { directory + "/tmp" }
    /// Resumable downloads (kept across restarts, never served).
    public var partialPath: String { directory + "/partial" }

    /// Opens (creating) the store at `directory` and recovers it; throws when the directory or
    /// the journal cannot be made or written (read-only, full, not a directory).
    public init(directory: String) throws(ContentStoreError) {
        self.directory = directory
        for path in [directory, directory + "/objects", directory + "/tmp", directory + "/partial"] { try FileIO.makeDirectory(path) }
        let opened = try ContentStoreRecovery.open(directory: directory)
        items = opened.items
        recovery = opened.report
        journal = opened.fd
        journalLength = opened.length
        recordsSinceCompaction = opened.report.records
        try compactIfWorthIt()
    }

    deinit { close(journal) }

    public func objectPath(_ sha256: String) -> String { objectsPath + "/" + sha256 }

    /// Records the item (insert or replace) durably.
    public func put(_ item: CacheItem) throws(ContentStoreError) {
        try append(.put(item))
        items[item.id] = item
    }

    /// Forgets the item and unlinks objects no other item names.
    public func remove(_ id: String) throws(ContentStoreError) {
        guard let item = items[id] else { return }
        try append(.remove(id))
        items[id] = nil
        unlinkUnreferenced(item.files)
    }

    /// Removes the item's files but keeps the item (`mutate` sets its new state).
    public func deleteFiles(_ id: String, _ mutate: (inout CacheItem) -> Void) throws(ContentStoreError) {
        guard var item = items[id] else { return }
        let old = item.files
        item.files = []
        mutate(&item)
        try put(item)
        unlinkUnreferenced(old)
    }

    /// Writes `bytes` durably as the item's file at `path` (replacing an older version), then
    /// records the item as `mutate` leaves it. Returns the stored file.
    @discardableResult
    public func store(_ bytes: [UInt8], itemID id: String, path: String, contentType: String? = nil, now: Int64,
                      _ mutate: (inout CacheItem) -> Void) throws(ContentStoreError) -> CacheFile {
        let temp = nextTempName()
        let fd = try FileIO.open(temp, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        do {
            try FileIO.writeAll(fd, bytes, path: temp)
            try FileIO.sync(fd, path: temp)
            close(fd)
        } catch {
            close(fd)
            unlink(temp)
            throw error
        }
        return try adopt(temp, sha256: SHA256.hex(bytes), size: bytes.count, itemID: id, path: path, contentType: contentType,
                         now: now, mutate)
    }

    /// Moves a finished, already fsynced file at `temp` (e.g. a completed download in `partial/`)
    /// into the store after checking its size and hash; a mismatch throws and leaves it in place.
    @discardableResult
    public func adopt(_ temp: String, sha256 expected: String? = nil, size expectedSize: Int? = nil, itemID id: String,
                      path: String, contentType: String? = nil, now: Int64, hashed: (digest: String, size: Int)? = nil,
                      _ mutate: (inout CacheItem) -> Void) throws(ContentStoreError) -> CacheFile {
        let digest: String, size: Int
        if let hashed { (digest, size) = hashed } else { (digest, size) = try FileIO.sha256(temp) }
        if let expectedSize, size != expectedSize {
            throw ContentStoreError("verify", temp, code: EIO, reason: "\(size) bytes, expected \(expectedSize)")
        }
        if let expected, expected.lowercased() != digest {
            throw ContentStoreError("verify", temp, code: EIO, reason: "SHA-256 \(digest), expected \(expected.lowercased())")
        }
        try FileIO.rename(temp, objectPath(digest))
        try FileIO.syncDirectory(objectsPath)
        let file = CacheFile(path: path, size: size, sha256: digest, contentType: contentType, storedNanoseconds: now)
        var item = items[id] ?? CacheItem(id: id, source: .origin, state: .discovered, now: now)
        let replaced = item.put(file)
        mutate(&item)
        try put(item)
        if let replaced, replaced.sha256 != digest { unlinkUnreferenced([replaced]) }
        return file
    }

    /// SHA-256 and size of a file, for hashing a large download before taking the caller's lock
    /// (then passed to `adopt` as `hashed`).
    public static func hash(_ path: String) throws(ContentStoreError) -> (digest: String, size: Int) { try FileIO.sha256(path) }

    /// Re-hashes every stored file: the ids whose bytes do not match their record.
    public func verify() -> [String] {
        items.values.filter { item in
            item.files.contains { file in
                guard let (digest, size) = try? FileIO.sha256(objectPath(file.sha256)) else { return true }
                return digest != file.sha256 || size != file.size
            }
        }.map(\.id).sorted()
    }

    /// Removes resumable downloads whose name starts with `prefix` (an item's).
    public func removePartials(prefix: String) {
        for name in FileIO.list(partialPath) where name.hasPrefix(prefix) { unlink(partialPath + "/" + name) }
    }

    public var freeDiskBytes: Int { FileIO.freeBytes(directory) ?? 0 }
    public var journalBytes: Int { journalLength }

    /// Rewrites the journal as one record per item when the log has grown well past that.
    public func compactIfWorthIt() throws(ContentStoreError) {
        guard recordsSinceCompaction > 4 * items.count + 256 else { return }
        try compact()
    }

    /// Writes the snapshot to a new file, fsyncs it, renames it over the journal, fsyncs the directory.
    public func compact() throws(ContentStoreError) {
        let snapshot = CacheJournal.snapshot(items)
        let temp = journalPath + ".compact"
        let fd = try FileIO.open(temp, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        do {
            try FileIO.writeAll(fd, snapshot, path: temp)
            try FileIO.sync(fd, path: temp)
        } catch {
            close(fd)
            unlink(temp)
            throw error
        }
        close(fd)
        try FileIO.rename(temp, journalPath)
        try FileIO.syncDirectory(directory)
        close(journal)
        journal = try FileIO.open(journalPath, O_WRONLY | O_APPEND)
        journalLength = snapshot.count
        recordsSinceCompaction = items.count
    }

    private func append(_ record: CacheJournal.Record) throws(ContentStoreError) {
        let bytes = CacheJournal.encode(record)
        do {
            try FileIO.writeAll(journal, bytes, path: journalPath)
            try FileIO.dataSync(journal, path: journalPath)
        } catch {
            // A short write (disk full) must not leave a torn record before the next append.
            _ = ftruncate(journal, off_t(journalLength))
            throw error
        }
        journalLength += bytes.count
        recordsSinceCompaction += 1
        try compactIfWorthIt()
    }

    private func unlinkUnreferenced(_ files: [CacheFile]) {
        let referenced = Set(items.values.flatMap { $0.files.map(\.sha256) })
        for file in files where !referenced.contains(file.sha256) { unlink(objectPath(file.sha256)) }
    }

    private func nextTempName() -> String {
        tempCounter += 1
        return "\(tempPath)/\(getpid())-\(tempCounter)"
    }
}
