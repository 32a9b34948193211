import GrandstandCore
import Synchronization
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
    /// `cache.fans`: what fans may request, and the per-client limit on it; nil: no requests.
    let fans: GatewayConfig.FanRequests?
    private let limiter: Limiter?

    /// The per-client buckets, shared by every copy of the routes.
    final class Limiter: Sendable {
        let buckets: Mutex<FanRequestLimiter>
        init(_ limiter: FanRequestLimiter) { buckets = Mutex(limiter) }
    }

    /// `/items.json`: the items a fan can fetch (every file stored), newest first:
    /// `{"items":[{id, source, category, state, bytes, files:[{path, size, url}], play}]}` with `play` the
    /// first playlist or else the first file. Origin URLs, headers and tokens stay with the operator.
    func list() -> HTTPResponse {
        let items = cache.items().filter { !$0.files.isEmpty }.sorted { ($0.createdNanoseconds, $0.id) > ($1.createdNanoseconds, $1.id) }
        let listed = items.map(Self.listing)
        return HTTPResponse(status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-cache")],
                            body: Array((JSONValue.object([("items", .array(listed))]).encoded + "\n").utf8))
    }

    /// One item as fans see it (no origin URLs, headers or tokens).
    static func listing(_ item: CacheItem) -> JSONValue {
        let files: [JSONValue] = item.files.map { file in
            .object([("path", .string(file.path)), ("size", .number(Double(file.size))), ("url", .string("/items/\(item.id)/\(file.path)"))])
        }
        let play = item.files.first { $0.path.hasSuffix(".m3u8") } ?? item.files.first
        return .object([("id", .string(item.id)), ("source", .string(item.source.description)), ("category", .string(item.category)),
                        ("state", .string(item.state.rawValue)), ("bytes", .number(Double(item.storedBytes))), ("files", .array(files)),
                        ("play", play.map { .string("/items/\(item.id)/\($0.path)") } ?? .null)])
    }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let rest = request.path.dropFirst("/items/".count)
        guard let slash = rest.firstIndex(of: "/") else { return .text(404, "not found") }
        let id = String(rest[..<slash]), path = String(rest[rest.index(after: slash)...])
        guard !id.isEmpty, !path.isEmpty, !path.split(separator: "/").contains(".."),
              let (item, file, localPath) = cache.file(id, path: path) else { return .text(404, "not cached") }
        let type = file.contentType ?? MediaType.forPath(path)
        // Playlists are small and rewritten; every other file is sent from disk in ranges.
        if path.hasSuffix(".m3u8"), let master = item.originURL, let bytes = Self.readFile(localPath), bytes.count == file.size,
           let playlist = VODPlaylist(String(decoding: bytes, as: UTF8.self)) {
            let playlistURL = OriginURL.resolve(path, against: master)
            let text = playlist.rewritten { uri in
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
        limiter = fans.map { Limiter(FanRequestLimiter(perHour: $0.perClientPerHour)) }
    }

    /// `POST /items` `{"id", "category"}` from a fan: the item is fetched as if the operator had
    /// added it (202 with its fan listing entry), when `cache.fans` lets fans request that
    /// category (else 403) and the client's hourly allowance has a request left (else 429 with
    /// `Retry-After`). Ids are checked as the management API checks them (400).
    func request(_ request: HTTPRequest) -> HTTPResponse {
        guard let fans, let limiter else { return .text(403, "fans cannot request items on this gateway") }
        guard let document = try? JSONParser.parse(request.body), case .string(let id)? = document["id"], !id.isEmpty,
              !id.contains("/"), id.utf8.count <= 200, case .string(let category)? = document["category"] else {
            return .text(400, "expected {\"id\":\"CONTENT-ID\",\"category\":\"CATEGORY\"} (id without slash, at most 200 bytes)")
        }
        guard fans.categories.contains(category) else {
            return .text(403, "fans may request \(fans.categories.joined(separator: ", ")), not \(category)")
        }
        let client = request.client ?? "-"
        if case .limited(let seconds) = limiter.buckets.withLock({ $0.admit(client: client, nowNanoseconds: cache.clock.monotonicNanoseconds()) }) {
            return HTTPResponse(status: 429, headers: [("Retry-After", String(seconds)), ("Content-Type", "text/plain; charset=utf-8")],
                                body: Array("too many requests from \(client): try again in \(seconds) s\n".utf8))
        }
        var add = ContentCache.AddRequest(id: id)
        add.category = category
        do {
            let item = try cache.add(add)
            return HTTPResponse(status: 202, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
                                body: Array((Self.listing(item).encoded + "\n").utf8))
        } catch {
            return .text(409, "\(error)")
        }
    }
}
