/// What the download-to-go SDK tells an app about its items (Akamai PCD "Download to Go": an
/// item discovered when its metadata arrives, its download started, progress in bytes within a
/// file, downloaded, failed with its error code, evicted by the cache policy, deleted), derived
/// here from the item before and after a change (docs/cache.md "Item events"). Pure: times are
/// passed in. `errorDetail` may name origin URLs (and so tokens): operators only, never fans.
public struct CacheItemEvent: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case discovered, downloadStarted = "download-started", progress, downloaded, failed, evicted, deleted
    }

    public var kind: Kind
    public var id: String
    public var category: String
    /// The item's state after the change (`discovered` after an eviction or a `delete-files`:
    /// the item is still known, its content is gone; `deleted` for the tombstone).
    public var state: CacheItemState
    /// `progress`: the file (the item's relative path), bytes of it so far, its size when known.
    public var path: String?
    public var fileBytes: Int?
    public var fileSize: Int?
    /// `failed`: the SDK's error code, and for operators the adapter's message.
    public var error: CacheErrorCode?
    public var errorDetail: String?
    public var wallNanoseconds: Int64

    public init(_ kind: Kind, _ item: CacheItem, wallNanoseconds: Int64) {
        self.kind = kind
        id = item.id
        category = item.category
        state = item.state
        error = kind == .failed ? item.error : nil
        errorDetail = kind == .failed ? item.errorDetail : nil
        self.wallNanoseconds = wallNanoseconds
    }

    /// Why content went away: the cache policy (`evicted`) or a request (`deleted`).
    public enum Removal: Sendable { case eviction, request }

    /// The events of one change of an item (`before` nil: it is new): `discovered` when it
    /// leaves `metadata-not-received` (alone or before the event of where it went). Content
    /// gone while the item stays known (eviction, `delete-files`: back to `discovered`) is
    /// `evicted` or `deleted` by `removal`; otherwise the state it moved to decides. Staying in
    /// a state says nothing; `metadata-not-received` is not yet an item the app knows.
    public static func transition(_ before: CacheItem?, _ after: CacheItem, removal: Removal = .request,
                                  wallNanoseconds now: Int64) -> [CacheItemEvent] {
        let from = before?.state
        let kind: Kind?
        if let before, !before.files.isEmpty, after.files.isEmpty, after.state != .deleted {
            kind = removal == .eviction ? .evicted : .deleted
        } else if from == after.state {
            // An unknown content id stays `metadata-not-received`, failed with its code.
            let unknown = after.state == .metadataNotReceived && after.error != nil && before?.error == nil
            kind = unknown ? .failed : nil
        } else {
            switch after.state {
            case .discovered: kind = nil
            case .downloading: kind = .downloadStarted
            case .cached: kind = .downloaded
            case .partiallyCached: kind = from == .downloading ? .downloaded : nil
            case .failed: kind = .failed
            case .deleted: kind = .deleted
            case .metadataNotReceived, .queued, .idle, .paused: kind = nil
            }
        }
        // Its metadata arrived (the service may move it on to `queued` in the same change).
        let known = (from == nil || from == .metadataNotReceived) && ![.metadataNotReceived, .failed, .deleted].contains(after.state)
        return ((known ? [.discovered] : []) + (kind.map { [$0] } ?? [])).map { CacheItemEvent($0, after, wallNanoseconds: now) }
    }

    /// A `progress` event: `fileBytes` of `path` (of `fileSize`, when known) are stored.
    public static func progress(_ item: CacheItem, path: String, fileBytes: Int, fileSize: Int?, wallNanoseconds now: Int64) -> CacheItemEvent {
        var event = CacheItemEvent(.progress, item, wallNanoseconds: now)
        event.path = path
        event.fileBytes = fileBytes
        event.fileSize = fileSize
        return event
    }
}

/// At most one `progress` event per item per `intervalNanoseconds` (a download writes a chunk
/// per read, many a second; an app redraws a bar): the first chunk of a download is reported,
/// then the first after each interval. `finish` forgets an item whose download ended, so the
/// next one reports its first chunk again. Pure: monotonic time passed in.
public struct CacheProgressThrottle: Sendable {
    public let intervalNanoseconds: Int64
    private var last: [String: Int64] = [:]

    public init(intervalNanoseconds: Int64 = 1_000_000_000) { self.intervalNanoseconds = max(0, intervalNanoseconds) }

    /// Whether a progress event of item `id` goes out at `now` (and if so, it is the last one).
    public mutating func admit(_ id: String, monotonicNanoseconds now: Int64) -> Bool {
        if let at = last[id], now >= at, now - at < intervalNanoseconds { return false }
        last[id] = now
        return true
    }

    public mutating func finish(_ id: String) { last[id] = nil }

    /// Items with a download reporting now (for tests: bounded by the downloads running).
    public var tracked: Int { last.count }
}
