/// Where an item came from: a FLUTE file channel (by channel id), the configured origin (by
/// content id and its metadata document), or a URL fetched directly (`url`: docs/cache.md "Items by URL").
public enum CacheItemSource: Sendable, Equatable, Hashable, CustomStringConvertible {
    case fileChannel(String)
    case origin
    case url

    /// `origin` or `file-channel:ID` (the API's `source` value and filter).
    public var description: String {
        switch self {
        case .origin: "origin"
        case .url: "url"
        case .fileChannel(let id): "file-channel:\(id)"
        }
    }

    public init?(_ text: String) {
        if text == "origin" { self = .origin; return }
        if text == "url" { self = .url; return }
        guard text.hasPrefix("file-channel:"), text.count > 13 else { return nil }
        self = .fileChannel(String(text.dropFirst(13)))
    }
}

/// One stored file of an item: the served relative path and the content-addressed object holding it.
public struct CacheFile: Sendable, Equatable {
    public var path: String
    public var size: Int
    /// Lowercase hex SHA-256 of the bytes; also the object's file name in the store.
    public var sha256: String
    public var contentType: String?
    public var storedNanoseconds: Int64

    public init(path: String, size: Int, sha256: String, contentType: String? = nil, storedNanoseconds: Int64) {
        self.path = path
        self.size = size
        self.sha256 = sha256
        self.contentType = contentType
        self.storedNanoseconds = storedNanoseconds
    }
}

/// Where a fan stopped and started watching an item (seconds into it), as the app reported.
public struct ConsumptionRecord: Sendable, Equatable {
    public var startPosition: Double
    public var endPosition: Double
    public var recordedNanoseconds: Int64

    public init(startPosition: Double, endPosition: Double, recordedNanoseconds: Int64) {
        self.startPosition = startPosition
        self.endPosition = endPosition
        self.recordedNanoseconds = recordedNanoseconds
    }
}

/// A cache item: identity, origin, state machine position, its stored files and usage facts.
public struct CacheItem: Sendable, Equatable {
    public var id: String
    public var source: CacheItemSource
    public var category: String
    public private(set) var state: CacheItemState
    /// Why it failed (`failed`), waits (`idle`) or has no metadata (`metadata-not-received` for an
    /// unknown content id); nil otherwise.
    public var error: CacheErrorCode?
    public var errorDetail: String?
    public var files: [CacheFile] = []
    /// Bytes the complete item holds, when the metadata said.
    public var expectedBytes: Int?
    /// The origin URL of the item's HLS master (or media) playlist, which its stored paths are relative to.
    public var originURL: String?
    /// Seconds of an HLS item to pre-position (nil: all of it).
    public var prepositionSeconds: Double?
    /// Which variants of an HLS item are downloaded (nil: all).
    public var quality: VariantChoice?
    public var locked = false
    public var createdNanoseconds: Int64
    public var lastAccessNanoseconds: Int64
    public var consumption: [ConsumptionRecord] = []
    /// The per-item token hook (POST /api/v1/items `headers`, `cookies`, `query`, `perType`): kept
    /// in the journal so a download resumed after a restart still sends it; never shown on the APIs.
    public var originToken = OriginTokenHook()
    /// From the origin's metadata (`title`, `type`; else the type the metadata implies: `hls`,
    /// `video`, `audio`, `file`), for lists, filters and fans.
    public var title: String?
    public var type: String?
    /// The stored path of its thumbnail (`thumbnail/NAME`), named by the metadata.
    public var thumbnail: String?
    /// When a fan was first served one of its media files (not its thumbnail or metadata).
    public var firstServedNanoseconds: Int64?

    /// Viewed: a consumption record was reported, or a fan was served its media.
    public var viewed: Bool { !consumption.isEmpty || firstServedNanoseconds != nil }

    /// The token for all of the item's requests (the POST's `headers` and `query`).
    public var originHeaders: [String: String] {
        get { originToken.all.headers }
        set { originToken.all.headers = newValue }
    }
    public var originQuery: String? {
        get { originToken.all.query }
        set { originToken.all.query = newValue }
    }

    public init(id: String, source: CacheItemSource, category: String = "", state: CacheItemState, now: Int64) {
        self.id = id
        self.source = source
        self.category = category
        self.state = state
        createdNanoseconds = now
        lastAccessNanoseconds = now
    }

    /// Moves to `next` when legal; an error code (and detail) is kept only for `failed` and `idle`.
    public mutating func move(to next: CacheItemState, error: CacheErrorCode? = nil, detail: String? = nil)
        throws(IllegalCacheTransition) {
        guard state == next || state.canMove(to: next) else { throw IllegalCacheTransition(id: id, from: state, to: next) }
        state = next
        // A failed item keeps why; an idle one why it waits (it resumes on its own).
        self.error = next == .failed ? (error ?? .downloadFailed) : next == .idle ? error : nil
        errorDetail = next == .failed || next == .idle ? detail : nil
    }

    /// Sets the state without the machine: only for recovery, which restores or repairs a recorded state.
    public mutating func restore(_ recorded: CacheItemState) { state = recorded }

    /// Whether `id` may name an item on the APIs (management and fans): not empty, no `/` (it is
    /// a path segment of `/items/ID/…`), at most 200 bytes.
    public static func acceptsContentID(_ id: String) -> Bool { !id.isEmpty && !id.contains("/") && id.utf8.count <= 200 }

    /// The id of the item fetched directly from `url` (docs/cache.md "Items by URL"): `url-` and
    /// the first 32 hex digits of the SHA-256 of the URL exactly as given (stable across restarts
    /// and boxes; another spelling of the same URL is another item).
    public static func urlItemID(_ url: String) -> String { "url-" + SHA256.hex(Array(url.utf8)).prefix(32) }

    /// Whether `url` may be fetched as an item: absolute http(s) with a host, no spaces or line
    /// breaks, at most 4096 bytes. Nil when it may, else the reason.
    public static func urlProblem(_ url: String) -> String? {
        let lower = url.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { return "expected an http:// or https:// URL" }
        guard url.utf8.count <= 4096 else { return "a URL of at most 4096 bytes" }
        guard !url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else { return "a URL without spaces or control characters" }
        let host = url.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        guard host.count >= 3, !host[2].isEmpty else { return "a URL with a host" }
        return nil
    }

    /// The file name an item by URL stores its one file under: the URL path's last segment
    /// (query and fragment dropped), `file` when it has none usable.
    public static func urlFileName(_ url: String) -> String {
        let path = url.split(separator: "#", maxSplits: 1).first.map(String.init) ?? url
        let withoutQuery = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        let parts = withoutQuery.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count > 3, let last = parts.last, !last.isEmpty, last != "..", last != ".", last != "metadata.json" else { return "file" }
        return String(last)
    }

    /// Whether an item by URL is an HLS playlist (fetched as master, variants and segments) rather than one file.
    public static func urlIsPlaylist(_ url: String) -> Bool {
        let name = urlFileName(url).lowercased()
        return name.hasSuffix(".m3u8") || name.hasSuffix(".m3u")
    }

    /// Bytes on disk (what counts against the cache size).
    public var storedBytes: Int { files.reduce(0) { $0 + $1.size } }

    public func file(_ path: String) -> CacheFile? { files.first { $0.path == path } }

    /// Adds or replaces the file at `file.path`; returns the replaced one.
    @discardableResult
    public mutating func put(_ file: CacheFile) -> CacheFile? {
        if let index = files.firstIndex(where: { $0.path == file.path }) {
            let old = files[index]
            files[index] = file
            return old
        }
        files.append(file)
        return nil
    }
}
