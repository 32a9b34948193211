/// The download-to-go states of a cache item (docs/cache.md "States"); raw values are the API names.
public enum CacheItemState: String, CaseIterable, Sendable {
    case metadataNotReceived = "metadata-not-received"
    case discovered
    case queued
    case downloading
    case idle
    case paused
    case cached
    case partiallyCached = "partially-cached"
    case failed
    case deleted

    /// Every legal move; anything else is an `IllegalCacheTransition` (docs/cache.md draws it).
    static let legal: [CacheItemState: Set<CacheItemState>] = [
        .metadataNotReceived: [.discovered, .failed, .deleted],
        .discovered: [.queued, .failed, .deleted],
        .queued: [.downloading, .idle, .paused, .failed, .deleted],
        .downloading: [.idle, .paused, .cached, .partiallyCached, .failed, .deleted],
        .idle: [.queued, .downloading, .paused, .failed, .deleted],
        .paused: [.queued, .discovered, .deleted],
        .cached: [.partiallyCached, .discovered, .failed, .deleted],
        .partiallyCached: [.queued, .downloading, .paused, .cached, .discovered, .failed, .deleted],
        .failed: [.queued, .discovered, .deleted],
        .deleted: [],
    ]

    public func canMove(to next: CacheItemState) -> Bool {
        Self.legal[self]?.contains(next) ?? false
    }

    /// Whether the item holds bytes a fan may be served (all of them only when `cached`).
    public var hasContent: Bool { self == .cached || self == .partiallyCached }
}

/// Why an item failed (docs/cache.md "Error codes"); raw values are the API names.
public enum CacheErrorCode: String, CaseIterable, Sendable {
    case noNetwork = "no-network"
    case timeout
    case networkError = "network-error"
    case httpError = "http-error"
    case itemCorrupted = "item-corrupted"
    case cancelled
    case downloadFailed = "download-failed"
    case contentIDDoesNotExist = "content-id-does-not-exist"
    /// Why an `idle` item waits (the policy's block); it resumes on its own once the block lifts.
    case outsidePermittedHours = "outside-permitted-hours"
    case dailyLimitReached = "daily-limit-reached"
    case diskFloorReached = "disk-floor-reached"

    /// The idle reason for a policy block (nil: a concurrency limit only queues).
    public init?(block: CachePolicy.Block) {
        switch block {
        case .outsidePermittedHours: self = .outsidePermittedHours
        case .dailyLimitReached: self = .dailyLimitReached
        case .diskFloorReached: self = .diskFloorReached
        case .concurrencyLimit: return nil
        }
    }
}

/// A state change the machine does not allow (e.g. `deleted` → `queued`).
public struct IllegalCacheTransition: Error, Equatable, CustomStringConvertible, Sendable {
    public let id: String
    public let from: CacheItemState
    public let to: CacheItemState
    public var description: String { "item \(id): \(from.rawValue) cannot become \(to.rawValue)" }
}
