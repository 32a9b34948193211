import GrandstandCore
import HTTPServer

/// Items by URL (docs/cache.md "Items by URL"): no metadata document; the URL itself is fetched,
/// an HLS playlist through the HLS path (master, variants, segments), anything else as one file
/// (an MP4 then gets its HLS rendition, MP4Rendition.swift). Same policies, retries, events and
/// per-item token hook as origin items.
extension ContentCache {
    /// What `POST /api/v1/items {"url"}` (and a timeline's URL clip) asks for.
    struct URLAddRequest {
        var url: String
        var category: String?
        /// The item's token hook (`headers`, `cookies`, `query`, `perType`), as for items by id.
        var token = OriginTokenHook()
        /// Download once discovered even when `itemDownloadBehavior` is None or ThumbnailOnly.
        var download = false
    }

    /// The transport settings of URL items: the configured origin's timeouts, attempts, proxy
    /// and redirect limit, without its CA file, pin or token hook (they belong to its host).
    var urlOrigin: GatewayConfig.Origin {
        var origin = GatewayConfig.Origin(metadataURL: "")
        if let configured = configuration.origin {
            origin.timeoutSeconds = configured.timeoutSeconds
            origin.attempts = configured.attempts
            origin.proxy = configured.proxy
            origin.maxRedirects = configured.maxRedirects
            origin.connectTimeoutSeconds = configured.connectTimeoutSeconds
            origin.totalTimeoutSeconds = configured.totalTimeoutSeconds
        }
        return origin
    }

    /// Adds (or re-adds a deleted or failed) item for `request.url` as `CacheItem.urlItemID(url)`;
    /// an existing live item is returned as it is (a waiting `discovered` one starts when asked to download).
    func add(url request: URLAddRequest) throws -> CacheItem {
        if let problem = CacheItem.urlProblem(request.url) { throw CacheRefusal(reason: "url: \(problem)") }
        let id = CacheItem.urlItemID(request.url)
        if let existing = self.item(id), existing.state != .deleted, existing.state != .failed {
            guard request.download else { return existing }
            if existing.state == .discovered { return try resume(id) ?? existing }
            _ = withState { $0.requested.insert(id) }
            return existing
        }
        if self.item(id) != nil { try deleteFiles(id, tombstone: true) }
        var fetch = OriginFetch(origin: urlOrigin)
        fetch.item = request.token
        var item = CacheItem(id: id, source: .url, category: request.category ?? "", state: .metadataNotReceived, now: now())
        item.originURL = request.url
        item.originToken = request.token
        withState { state in   // before the item exists: the scheduler may start it at once
            state.tokens[id] = fetch
            if request.download { state.requested.insert(id) } else { state.requested.remove(id) }
        }
        try insert(item)
        schedule()
        return item
    }
}

extension OriginMetadata {
    /// The metadata an item by URL stands in for: the URL as its HLS master, or as its one file.
    init(direct url: String) {
        self.init(url: url)
        if CacheItem.urlIsPlaylist(url) {
            hls = url
        } else {
            let name = CacheItem.urlFileName(url)
            let lower = name.lowercased()
            let type: String? = lower.hasSuffix(".mp4") || lower.hasSuffix(".m4v") ? "video/mp4" : lower.hasSuffix(".ts") ? "video/mp2t" : nil
            files = [File(url: url, path: name, contentType: type)]
        }
    }
}

extension CacheRoutes {
    /// `POST /api/v1/items {"url", "category"?, "headers"?, "cookies"?, "query"?, "perType"?, "download"?}`: 202 with the item.
    func addURL(_ url: String, _ document: JSONValue) -> HTTPResponse {
        if let problem = CacheItem.urlProblem(url) { return .text(400, "$.url: \(problem)") }
        var add = ContentCache.URLAddRequest(url: url)
        if case .string(let category)? = document["category"] { add.category = category }
        var reader = JSONReader()
        add.token = OriginTokenHook.decode(document: document, &reader)
        if let issue = reader.issues.first { return .text(400, issue.description) }
        if case .bool(let download)? = document["download"] { add.download = download }
        do {
            return .json(CacheItemView.api(try cache.add(url: add)).encoded + "\n", status: 202)
        } catch {
            return .text(409, "\(error)")
        }
    }
}
