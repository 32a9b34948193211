import GrandstandCore
import HTTPServer
import GrandstandServing
#if canImport(Glibc)
import Glibc
#endif

/// The fan listener's `/items/ID/PATH`: an item's stored files. HLS playlists are rewritten as
/// they are served: references to stored files become `/items/ID/…`, the rest absolute origin
/// URLs, so a partially cached item plays its first part from the box and the rest from the origin.
public struct CacheFanRoutes: Sendable {
    public let cache: ContentCache
    /// `cache.fans`: what fans may request, and the per-client limit on it; nil: no requests
    /// (FanItemRequests.swift).
    let fans: GatewayConfig.FanRequests?
    let limiter: FanRequestBuckets?

    /// `/items.json`: the items a fan can fetch (files stored, not failed), newest first:
    /// `{"items":[{id, source, category, state, title, type, thumbnail, bytes, files:[{path, size, url}], play, share}]}`
    /// (CacheItemLinks). Origin URLs, headers and tokens stay with the operator.
    func list() -> HTTPResponse {
        let items = cache.items().filter { !$0.files.isEmpty && $0.state != .failed }
            .sorted { ($0.createdNanoseconds, $0.id) > ($1.createdNanoseconds, $1.id) }
        return FanListing.response(.object([("items", .array(items.map(Self.listing)))]))
    }

    /// One item as fans see it (no origin URLs, headers or tokens).
    static func listing(_ item: CacheItem) -> JSONValue {
        let links = CacheItemLinks(item)
        let files: [JSONValue] = item.files.map { file in
            .object([("path", .string(file.path)), ("size", .number(Double(file.size))), ("url", .string(links.url(file.path)))])
        }
        let optional: (String?) -> JSONValue = { $0.map(JSONValue.string) ?? .null }
        return .object([("id", .string(item.id)), ("source", .string(item.source.description)), ("category", .string(item.category)),
                        ("state", .string(item.state.rawValue)), ("title", optional(item.title)), ("type", optional(item.type)),
                        ("thumbnail", optional(links.thumbnail)), ("bytes", .number(Double(item.storedBytes))), ("files", .array(files)),
                        ("play", optional(links.play)), ("share", .string(links.share))])
    }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let rest = request.path.dropFirst("/items/".count)
        guard let slash = rest.firstIndex(of: "/") else { return .text(404, "not found") }
        let id = String(rest[..<slash]), path = String(rest[rest.index(after: slash)...])
        guard !id.isEmpty, !path.isEmpty, !path.split(separator: "/").contains(".."),
              let (item, file, localPath) = cache.file(id, path: path) else { return .text(404, "not cached") }
        if CacheItemLinks.isMedia(path) { cache.served(id) }
        let type = file.contentType ?? MediaType.forPath(path)
        // Playlists are small and rewritten; every other file is sent from disk in ranges.
        if path.hasSuffix(".m3u8"), let master = item.originURL, let bytes = Self.readFile(localPath), bytes.count == file.size,
           let playlist = VODPlaylist(String(decoding: bytes, as: UTF8.self)) {
            let playlistURL = OriginURL.resolve(path, against: master)
            let text = playlist.rewritten { uri in
                guard !OriginURL.isForeign(uri) else { return uri }
                let absolute = OriginURL.resolve(uri, against: playlistURL)
                let local = OriginURL.localPath(absolute, root: master)
                return item.file(local) != nil ? "/items/\(id)/\(local)" : absolute
            }
            return HTTPResponse(status: 200, headers: [("Content-Type", "application/vnd.apple.mpegurl"), ("Cache-Control", "no-cache")],
                                body: Array(text.utf8))
        }
        let answer = DiskFileAnswer.response(path: localPath, contentType: type, entityTag: "\"\(file.sha256.prefix(32))\"",
                                             cacheControl: "public, max-age=86400")
        guard answer.file?.range.count == file.size else { return .text(503, "stored file unreadable") }
        return answer
    }

    static func readFile(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(fd, &chunk, chunk.count)
            if count < 0 { return nil }
            if count == 0 { return out }
            out += chunk[0..<count]
        }
    }

    public init(cache: ContentCache, fans: GatewayConfig.FanRequests? = nil) {
        self.cache = cache
        self.fans = fans
        limiter = fans.map { FanRequestBuckets(FanRequestLimiter(perHour: $0.perClientPerHour)) }
    }
}
