import ContentStore
import GrandstandCore
import GrandstandRuntime
#if canImport(Glibc)
import Glibc
#endif
import GrandstandIngest

/// The content cache service: one store for files received on file channels and items
/// prefetched from the origin (docs/cache.md). Serialises the `ContentStore`, applies the
/// policies (eviction before a write, the daily limit, permitted hours, disk floor) and runs
/// downloads on their own threads (Prefetcher.swift).
public final class ContentCache: ReceivedFileSink, @unchecked Sendable {
    // @unchecked: `store`, `daily`, `downloads`, `accessed`, `tokens` are only touched under `lock`.
    let configuration: GatewayConfig.Cache
    private let store: ContentStore
    private let lock = Lock()
    private var daily = DailyDownloadCounter()
    var downloads: [String: DownloadControl] = [:]
    /// Last access per item since its last record (kept in memory: a lookup must not write).
    private var accessed: [String: Int64] = [:]
    var tokens: [String: OriginFetch] = [:]
    let clock: any Clock
    private var scheduler: ServiceThread?
    /// One thread per running download (`download-N`), each joined (Prefetcher.swift).
    let downloadThreads: ServiceGroup

    var policy: CachePolicy { configuration.policy }
    var recovery: RecoveryReport { store.recovery }

    public init(_ configuration: GatewayConfig.Cache, clock: any Clock = SystemClock(),
         downloadThreadName: String = "download") throws(ContentStoreError) {
        self.configuration = configuration
        self.clock = clock
        downloadThreads = ServiceGroup(name: downloadThreadName)
        store = try ContentStore(directory: configuration.directory)
        // A download the last run left in flight goes back to the queue (its partial file resumes).
        for item in store.items.values where item.state == .downloading {
            var item = item
            item.restore(.queued)
            try store.put(item)
        }
    }

    /// Runs `body` under the cache's lock (the download table and tokens in Prefetcher.swift).
    func withStateLock<T>(_ body: () throws -> T) rethrows -> T { try lock.withLock(body) }

    // MARK: Reading

    func items() -> [CacheItem] { lock.withLock { store.items.values.map(withAccess) } }

    func item(_ id: String) -> CacheItem? { lock.withLock { store.items[id].map(withAccess) } }

    /// The on-disk path and record of an item's file, counting as an access.
    func file(_ id: String, path: String) -> (CacheItem, CacheFile, String)? {
        lock.withLock {
            guard let item = store.items[id], item.state != .deleted, let file = item.file(path) else { return nil }
            accessed[id] = now()
            return (item, file, store.objectPath(file.sha256))
        }
    }

    private func withAccess(_ item: CacheItem) -> CacheItem {
        var item = item
        if let at = accessed[item.id] { item.lastAccessNanoseconds = max(item.lastAccessNanoseconds, at) }
        return item
    }

    // MARK: ReceivedFileSink

    static func channelItemID(_ channelID: String) -> String { "file-channel-" + channelID }

    public func store(_ file: ReceivedFile) throws -> StoredFile {
        let id = Self.channelItemID(file.channelID)
        let stored = try lock.withLock { () throws -> CacheFile in
            try makeRoom(for: file.bytes.count, keep: id)
            return try store.store(file.bytes, itemID: id, path: file.path, contentType: file.contentType,
                                   now: file.completedNanoseconds) { item in
                item.source = .fileChannel(file.channelID)
                if item.category.isEmpty { item.category = "file-channel" }
                item.restore(.cached)
                item.lastAccessNanoseconds = file.completedNanoseconds
            }
        }
        return storedFile(file.channelID, stored)
    }

    public func lookup(channelID: String, path: String) -> StoredFile? {
        file(Self.channelItemID(channelID), path: path).map { storedFile(channelID, $0.1) }
    }

    public func files(channelID: String) -> [StoredFile] {
        item(Self.channelItemID(channelID))?.files.map { storedFile(channelID, $0) } ?? []
    }

    private func storedFile(_ channelID: String, _ file: CacheFile) -> StoredFile {
        StoredFile(channelID: channelID, path: file.path, localPath: store.objectPath(file.sha256), size: file.size,
                   contentType: file.contentType, etag: String(file.sha256.prefix(32)), storedNanoseconds: file.storedNanoseconds)
    }

    // MARK: Writing (callers hold no lock)

    /// Evicts least-recently-used unlocked items so `bytes` more fit; throws when they cannot.
    private func makeRoom(for bytes: Int, keep: String?) throws {
        if let refusal = policy.refusal(fileBytes: bytes) { throw CacheRefusal(reason: refusal) }
        let items = store.items.values.map(withAccess)
        guard let victims = CacheEviction.plan(items, limit: policy.sizeBytes, incoming: bytes, keep: keep) else {
            throw CacheRefusal(reason: "no room for \(bytes) bytes: the rest of the cache is locked")
        }
        for id in victims {
            try store.deleteFiles(id) { item in
                item.restore(item.state == .deleted ? .deleted : .discovered)
            }
        }
    }

    /// Stores bytes as one of an item's files (playlists, metadata), evicting first.
    func storeBytes(_ bytes: [UInt8], id: String, path: String, contentType: String?) throws {
        try lock.withLock {
            try makeRoom(for: bytes.count, keep: id)
            try store.store(bytes, itemID: id, path: path, contentType: contentType, now: now()) { _ in }
        }
    }

    /// Moves a finished partial download into the item after size and hash checks.
    func adopt(_ partial: String, sha256: String?, size: Int, id: String, path: String, contentType: String?) throws {
        let hashed = try ContentStore.hash(partial)   // outside the lock: fans keep being served meanwhile
        try lock.withLock {
            try makeRoom(for: size, keep: id)
            try store.adopt(partial, sha256: sha256, size: size, itemID: id, path: path, contentType: contentType, now: now(),
                            hashed: hashed) { _ in }
        }
    }

    /// Applies `change` to the item and records it; nil when there is no such item.
    @discardableResult
    func update(_ id: String, _ change: (inout CacheItem) throws -> Void) throws -> CacheItem? {
        try lock.withLock {
            guard var item = store.items[id] else { return nil }
            try change(&item)
            if let at = accessed.removeValue(forKey: id) { item.lastAccessNanoseconds = max(item.lastAccessNanoseconds, at) }
            try store.put(item)
            return item
        }
    }

    func insert(_ item: CacheItem) throws { try lock.withLock { try store.put(item) } }

    /// Deletes the files (the item stays, back to `discovered`); partial downloads too.
    func deleteFiles(_ id: String, tombstone: Bool = false) throws {
        cancelDownload(id)
        try lock.withLock {
            try store.deleteFiles(id) { item in
                item.restore(tombstone ? .deleted : .discovered)
                item.error = nil
            }
        }
        removePartials(id)
    }

    /// The resumable download file of an item's path: `partial/HASH(id)-HASH(path)`.
    func partialPath(_ id: String, _ path: String) -> String {
        store.partialPath + "/" + Self.partialPrefix(id) + SHA256.hex(Array(path.utf8)).prefix(16)
    }

    private static func partialPrefix(_ id: String) -> String { String(SHA256.hex(Array(id.utf8)).prefix(16)) + "-" }

    private func removePartials(_ id: String) {
        lock.withLock { store.removePartials(prefix: Self.partialPrefix(id)) }
    }

    // MARK: Policy

    func recordDownloaded(_ bytes: Int) {
        let seconds = now() / 1_000_000_000
        lock.withLock { daily.add(bytes, nowSeconds: seconds) }
    }

    func usage() -> CachePolicy.Usage {
        let seconds = now() / 1_000_000_000
        return lock.withLock {
            CachePolicy.Usage(storedBytes: store.items.values.reduce(0) { $0 + $1.storedBytes }, freeDiskBytes: store.freeDiskBytes,
                              activeDownloads: downloads.count, downloadedTodayBytes: daily.today(nowSeconds: seconds))
        }
    }

    /// `GET /api/v1/cache/policy`: the limits, the usage and why downloads are held, if they are.
    func policyStatus() -> JSONValue {
        let usage = usage()
        var blocks = policy.blocks(usage, nowSeconds: now() / 1_000_000_000)
        blocks.removeAll { $0 == .concurrencyLimit }
        return .object([
            ("downloadsAllowed", .bool(blocks.isEmpty)), ("blocked", .array(blocks.map { .string($0.rawValue) })),
            ("sizeBytes", .number(Double(policy.sizeBytes))), ("usedBytes", .number(Double(usage.storedBytes))),
            ("maxFileBytes", .number(Double(policy.maxFileBytes))),
            ("maxConcurrentDownloads", .number(Double(policy.maxConcurrentDownloads))),
            ("activeDownloads", .number(Double(usage.activeDownloads))),
            ("dailyDownloadBytes", policy.dailyDownloadBytes.map { .number(Double($0)) } ?? .null),
            ("downloadedTodayBytes", .number(Double(usage.downloadedTodayBytes))),
            ("permittedHours", .array(policy.permittedHours.map { .string($0.description) })),
            ("diskFloorBytes", .number(Double(policy.diskFloorBytes))), ("freeDiskBytes", .number(Double(usage.freeDiskBytes))),
            ("journalBytes", .number(Double(lock.withLock { store.journalBytes }))),
        ])
    }

    // MARK: Lifecycle

    /// Wall-clock time (item times, the daily limit, permitted hours).
    func now() -> Int64 { clock.wallNanoseconds() }

    /// Starts the scheduler thread (`cache-schedule`, twice a second: queued items start when the
    /// policy allows).
    public func start() throws(RuntimeError) {
        scheduler = try ServiceThread(name: "cache-schedule") { [self] stop in
            repeat { schedule() } while !clock.wait(nanoseconds: 500_000_000, or: stop)
        }
    }

    /// Stops scheduling and asks running downloads to stop (they stay `downloading` on disk and
    /// resume at the next start): a backoff or a transfer in progress ends at once.
    public func stop() {
        scheduler?.stop()
        scheduler = nil
        lock.withLock { for control in downloads.values { control.shutdown() } }
        downloadThreads.stop()
    }
}

/// A write the policy refuses (over the file limit, no room among locked items).
struct CacheRefusal: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}
