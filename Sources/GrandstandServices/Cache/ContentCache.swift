import ContentStore
import GrandstandCore
import GrandstandRuntime
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import GrandstandIngest

/// The content cache service: one store for files received on file channels and items
/// prefetched from the origin (docs/cache.md). Serialises the `ContentStore`, applies the
/// policies (eviction before a write, the daily limit, permitted hours, disk floor) and runs
/// downloads on their own threads (Prefetcher.swift).
public final class ContentCache: ReceivedFileSink, Sendable {
    let configuration: GatewayConfig.Cache
    /// The store (not thread-safe) and what goes with it, under one lock.
    struct State {
        let store: ContentStore
        var daily = DailyDownloadCounter()
        var downloads: [String: DownloadControl] = [:]
        /// Last access per item since its last record (kept in memory: a lookup must not write).
        var accessed: [String: Int64] = [:]
        var tokens: [String: OriginFetch] = [:]
        /// Items asked to download whatever `itemDownloadBehavior` says (fans' requests, a
        /// POST with `download`), until their metadata arrives. In memory: after a restart an
        /// item still waiting for its metadata follows the behavior.
        var requested: Set<String> = []
        var progress = CacheProgressThrottle()
        /// When an item whose content id was unknown asks for its metadata again (monotonic ns).
        var metadataRetry: [String: Int64] = [:]
        /// Item events of the change under way, sent once the lock is released (`changing`).
        var pending: [CacheItemEvent] = []

        /// Queues the events of `before` becoming `after`; a download that ended forgets its throttle.
        mutating func note(_ before: CacheItem?, _ after: CacheItem, removal: CacheItemEvent.Removal = .request, now: Int64) {
            pending += CacheItemEvent.transition(before, after, removal: removal, wallNanoseconds: now)
            if after.state != .downloading { progress.finish(after.id) }
        }

        func withAccess(_ item: CacheItem) -> CacheItem {
            var item = item
            if let at = accessed[item.id] { item.lastAccessNanoseconds = max(item.lastAccessNanoseconds, at) }
            return item
        }

        /// Evicts least-recently-used unlocked items so `bytes` more fit; throws when they cannot.
        mutating func makeRoom(for bytes: Int, keep: String?, policy: CachePolicy, now: Int64) throws {
            if let refusal = policy.refusal(fileBytes: bytes) { throw CacheRefusal(reason: refusal) }
            let items = store.items.values.map(withAccess)
            guard let victims = CacheEviction.plan(items, limit: policy.sizeBytes, incoming: bytes, keep: keep) else {
                throw CacheRefusal(reason: "no room for \(bytes) bytes: the rest of the cache is locked")
            }
            guard victims.isEmpty || policy.autoPurge else {
                throw CacheRefusal(reason: "no room for \(bytes) bytes and autoPurge is off (nothing is evicted)")
            }
            for id in victims {
                let before = store.items[id]
                try store.deleteFiles(id) { item in
                    item.restore(item.state == .deleted ? .deleted : .discovered)
                }
                if let after = store.items[id] { note(before, after, removal: .eviction, now: now) }
            }
        }
    }
    private let state: Mutex<State>
    let clock: any Clock
    /// Where item events go: the journal, the management stream, the fans' stream.
    public let events: ItemEventRelay
    private let scheduler = Mutex<ServiceThread?>(nil)
    /// One thread per running download (`download-N`), each joined (Prefetcher.swift).
    let downloadThreads: ServiceGroup
    /// What recovery found when the store opened.
    let recovery: RecoveryReport

    var policy: CachePolicy { configuration.policy }

    public init(_ configuration: GatewayConfig.Cache, clock: any Clock = SystemClock(), events: ItemEventRelay = ItemEventRelay(),
                downloadThreadName: String = "download") throws(ContentStoreError) {
        self.configuration = configuration
        self.clock = clock
        self.events = events
        downloadThreads = ServiceGroup(name: downloadThreadName)
        let store = try ContentStore(directory: configuration.directory)
        // A download the last run left in flight goes back to the queue (its partial file resumes).
        for item in store.items.values where item.state == .downloading {
            var item = item
            item.restore(.queued)
            try store.put(item)
        }
        recovery = store.recovery
        state = Mutex(State(store: store))
    }

    /// Runs `body` on the cache's state under its lock (the download table and tokens in
    /// Prefetcher.swift). Not re-entrant: `body` must not call back into the cache.
    func withState<T: Sendable>(_ body: (inout State) -> T) -> T { state.withLock { body(&$0) } }

    /// `withState` for changes: runs `body` under the lock, then publishes the item events it
    /// queued (after the lock: the journal and the streams are I/O).
    func changing<T: Sendable>(_ body: (inout State) throws -> T) throws -> T {
        var queued: [CacheItemEvent] = []
        defer { for event in queued { events.publish(event) } }
        return try state.withLock { state throws -> T in
            defer { queued = state.pending; state.pending = [] }
            return try body(&state)
        }
    }

    // MARK: Reading

    func items() -> [CacheItem] { state.withLock { state in state.store.items.values.map { state.withAccess($0) } } }

    func item(_ id: String) -> CacheItem? { state.withLock { state in state.store.items[id].map { state.withAccess($0) } } }

    /// The on-disk path and record of an item's file, counting as an access.
    func file(_ id: String, path: String) -> (CacheItem, CacheFile, String)? {
        let now = now()
        return state.withLock { state in
            // A failed item's files stay on disk (a retry resumes them) but are never served.
            guard let item = state.store.items[id], item.state != .deleted, item.state != .failed, let file = item.file(path) else { return nil }
            state.accessed[id] = now
            return (item, file, state.store.objectPath(file.sha256))
        }
    }

    /// A fan was served the item's media: recorded once, so `viewed` survives a restart.
    func served(_ id: String) {
        guard state.withLock({ $0.store.items[id]?.firstServedNanoseconds == nil }) else { return }
        let now = now()
        _ = try? update(id) { item in if item.firstServedNanoseconds == nil { item.firstServedNanoseconds = now } }
    }

    // MARK: ReceivedFileSink

    static func channelItemID(_ channelID: String) -> String { "file-channel-" + channelID }

    /// A file received on a channel; one assembled on disk is hashed (outside the lock) and its
    /// spool file renamed into `objects/` (`adopt`), never copied.
    public func store(_ file: ReceivedFile) throws -> StoredFile {
        let id = Self.channelItemID(file.channelID)
        let policy = policy
        let hashed = try file.spool.map { spool throws in try ContentStore.hash(spool.path) }
        return try changing { state throws -> StoredFile in
            try state.makeRoom(for: file.size, keep: id, policy: policy, now: file.completedNanoseconds)
            let mutate = { (item: inout CacheItem) in
                item.source = .fileChannel(file.channelID)
                if item.category.isEmpty { item.category = "file-channel" }
                item.restore(.cached)
                item.lastAccessNanoseconds = file.completedNanoseconds
            }
            let stored: CacheFile
            if let spool = file.spool {
                stored = try state.store.adopt(spool.path, size: spool.size, itemID: id, path: file.path, contentType: file.contentType,
                                               now: file.completedNanoseconds, hashed: hashed, mutate)
            } else {
                stored = try state.store.store(file.bytes, itemID: id, path: file.path, contentType: file.contentType,
                                               now: file.completedNanoseconds, mutate)
            }
            return Self.storedFile(file.channelID, stored, localPath: state.store.objectPath(stored.sha256))
        }
    }

    /// Spool files go to the store's `tmp/` (same filesystem as `objects/`, emptied at open).
    public var spoolDirectory: String? { configuration.directory + "/tmp" }

    public func lookup(channelID: String, path: String) -> StoredFile? {
        file(Self.channelItemID(channelID), path: path).map { Self.storedFile(channelID, $0.1, localPath: $0.2) }
    }

    public func files(channelID: String) -> [StoredFile] {
        let id = Self.channelItemID(channelID)
        return state.withLock { state in
            state.store.items[id]?.files.map { Self.storedFile(channelID, $0, localPath: state.store.objectPath($0.sha256)) } ?? []
        }
    }

    private static func storedFile(_ channelID: String, _ file: CacheFile, localPath: String) -> StoredFile {
        StoredFile(channelID: channelID, path: file.path, localPath: localPath, size: file.size,
                   contentType: file.contentType, etag: String(file.sha256.prefix(32)), storedNanoseconds: file.storedNanoseconds)
    }

    // MARK: Writing (callers hold no lock)

    /// Stores bytes as one of an item's files (playlists, metadata), evicting first.
    func storeBytes(_ bytes: [UInt8], id: String, path: String, contentType: String?) throws {
        let policy = policy, now = now()
        try changing { state throws in
            try state.makeRoom(for: bytes.count, keep: id, policy: policy, now: now)
            try state.store.store(bytes, itemID: id, path: path, contentType: contentType, now: now) { _ in }
        }
    }

    /// Moves a finished partial download into the item after size and hash checks.
    func adopt(_ partial: String, sha256: String?, size: Int, id: String, path: String, contentType: String?) throws {
        let hashed = try ContentStore.hash(partial)   // outside the lock: fans keep being served meanwhile
        let policy = policy, now = now()
        try changing { state throws in
            try state.makeRoom(for: size, keep: id, policy: policy, now: now)
            try state.store.adopt(partial, sha256: sha256, size: size, itemID: id, path: path, contentType: contentType, now: now,
                                  hashed: hashed) { _ in }
        }
    }

    /// Applies `change` to the item and records it; nil when there is no such item.
    @discardableResult
    func update(_ id: String, _ change: (inout CacheItem) throws -> Void) throws -> CacheItem? {
        let now = now()
        return try changing { state throws -> CacheItem? in
            guard var item = state.store.items[id] else { return nil }
            let before = item
            try change(&item)
            if let at = state.accessed.removeValue(forKey: id) { item.lastAccessNanoseconds = max(item.lastAccessNanoseconds, at) }
            try state.store.put(item)
            state.note(before, item, now: now)
            return item
        }
    }

    func insert(_ item: CacheItem) throws { try state.withLock { state throws in try state.store.put(item) } }

    /// Deletes the files (the item stays, back to `discovered`); partial downloads too.
    func deleteFiles(_ id: String, tombstone: Bool = false) throws {
        cancelDownload(id)
        let now = now()
        try changing { state throws in
            let before = state.store.items[id]
            try state.store.deleteFiles(id) { item in
                item.restore(tombstone ? .deleted : .discovered)
                item.error = nil
            }
            if let after = state.store.items[id] { state.note(before, after, now: now) }
        }
        removePartials(id)
    }

    /// The resumable download file of an item's path: `partial/HASH(id)-HASH(path)`.
    func partialPath(_ id: String, _ path: String) -> String {
        state.withLock { $0.store.partialPath } + "/" + Self.partialPrefix(id) + SHA256.hex(Array(path.utf8)).prefix(16)
    }

    private static func partialPrefix(_ id: String) -> String { String(SHA256.hex(Array(id.utf8)).prefix(16)) + "-" }

    private func removePartials(_ id: String) {
        state.withLock { $0.store.removePartials(prefix: Self.partialPrefix(id)) }
    }

    // MARK: Policy

    /// `count` more origin bytes of item `id`'s file `path`, now `fileBytes` of `fileSize`: the
    /// daily counter, and a `progress` event when the throttle lets one out.
    func received(_ count: Int, id: String, path: String, fileBytes: Int, fileSize: Int?) {
        let wall = now(), monotonic = clock.monotonicNanoseconds()
        let event = state.withLock { state -> CacheItemEvent? in
            state.daily.add(count, nowSeconds: wall / 1_000_000_000)
            guard state.progress.admit(id, monotonicNanoseconds: monotonic), let item = state.store.items[id] else { return nil }
            return CacheItemEvent.progress(item, path: path, fileBytes: fileBytes, fileSize: fileSize, wallNanoseconds: wall)
        }
        if let event { events.publish(event) }
    }

    func usage() -> CachePolicy.Usage {
        let seconds = now() / 1_000_000_000
        return state.withLock { state in
            CachePolicy.Usage(storedBytes: state.store.items.values.reduce(0) { $0 + $1.storedBytes }, freeDiskBytes: state.store.freeDiskBytes,
                              activeDownloads: state.downloads.count, downloadedTodayBytes: state.daily.today(nowSeconds: seconds))
        }
    }

    /// `GET /api/v1/cache/policy`: the limits, the usage and why downloads are held, if they are.
    func policyStatus() -> JSONValue {
        let usage = usage()
        let journalBytes = state.withLock { $0.store.journalBytes }
        var blocks = policy.blocks(usage, nowSeconds: now() / 1_000_000_000)
        blocks.removeAll { $0 == .concurrencyLimit }
        return .object([
            ("downloadsAllowed", .bool(blocks.isEmpty)), ("blocked", .array(blocks.map { .string($0.rawValue) })),
            ("sizeBytes", .number(Double(policy.sizeBytes))), ("usedBytes", .number(Double(usage.storedBytes))),
            ("maxFileBytes", .number(Double(policy.maxFileBytes))),
            ("maxConcurrentDownloads", policy.maxConcurrentDownloads.map { .number(Double($0)) } ?? .null),
            ("itemDownloadBehavior", .string(policy.itemDownloadBehavior.rawValue)), ("autoPurge", .bool(policy.autoPurge)),
            ("activeDownloads", .number(Double(usage.activeDownloads))),
            ("dailyDownloadBytes", policy.dailyDownloadBytes.map { .number(Double($0)) } ?? .null),
            ("downloadedTodayBytes", .number(Double(usage.downloadedTodayBytes))),
            ("permittedHours", .array(policy.permittedHours.map { .string($0.description) })),
            ("diskFloorBytes", .number(Double(policy.diskFloorBytes))), ("freeDiskBytes", .number(Double(usage.freeDiskBytes))),
            ("journalBytes", .number(Double(journalBytes))),
        ])
    }

    // MARK: Lifecycle

    /// Wall-clock time (item times, the daily limit, permitted hours).
    func now() -> Int64 { clock.wallNanoseconds() }

    /// Starts the scheduler thread (`cache-schedule`, twice a second: queued items start when the
    /// policy allows).
    public func start() throws(RuntimeError) {
        try scheduler.withLock { (scheduler: inout ServiceThread?) throws(RuntimeError) in
            scheduler = try ServiceThread(name: "cache-schedule") { [self] stop in
                repeat { schedule() } while !clock.wait(nanoseconds: 500_000_000, or: stop)
            }
        }
    }

    /// Stops scheduling and asks running downloads to stop (they stay `downloading` on disk and
    /// resume at the next start): a backoff or a transfer in progress ends at once.
    public func stop() {
        scheduler.withLock { thread in defer { thread = nil }; return thread }?.stop()
        state.withLock { state in for control in state.downloads.values { control.shutdown() } }
        downloadThreads.stop()
        events.fans.finishAll()   // before the listener that carries them
    }
}

/// A write the policy refuses (over the file limit, no room among locked items).
struct CacheRefusal: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}
