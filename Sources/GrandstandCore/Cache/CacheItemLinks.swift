/// The fan listener's URLs of an item (docs/cache.md "Fan listener"): each stored file at
/// `/items/ID/PATH`, what plays it (its first playlist, else its first media file), its stored
/// thumbnail, and the share URL `/items/ID`, a page that plays it on the venue network. Pure.
public struct CacheItemLinks: Sendable, Equatable {
    public let id: String
    public let play: String?
    public let thumbnail: String?

    public init(_ item: CacheItem) {
        id = item.id
        let media = item.files.filter { Self.isMedia($0.path) }
        let first = media.first { $0.path.hasSuffix(".m3u8") } ?? media.first
        play = first.map { "/items/\(item.id)/\($0.path)" }
        thumbnail = item.thumbnail.flatMap { item.file($0) }.map { "/items/\(item.id)/\($0.path)" }
    }

    public func url(_ path: String) -> String { "/items/\(id)/\(path)" }

    /// The page a fan opens to watch the item (title, thumbnail, a player).
    public var share: String { "/items/\(id)" }

    /// Whether serving `path` means the item is being watched: not its metadata document, not its thumbnail.
    public static func isMedia(_ path: String) -> Bool { path != "metadata.json" && !path.hasPrefix("thumbnail/") }
}
