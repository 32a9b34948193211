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
}

/// A state change the machine does not allow (e.g. `deleted` → `queued`).
public struct IllegalCacheTransition: Error, Equatable, CustomStringConvertible, Sendable {
    public let id: String
    public let from: CacheItemState
    public let to: CacheItemState
    public var description: String { "item \(id): \(from.rawValue) cannot become \(to.rawValue)" }
}
