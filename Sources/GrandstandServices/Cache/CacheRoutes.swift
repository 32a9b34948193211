import GrandstandCore
import HTTPServer

/// The management API of the cache (docs/cache.md "API"): `/api/v1/items` (list by ids, URL and
/// filters, sorted; add by content id), `/api/v1/items/batch` (one action on many items),
/// `/api/v1/items/ID` (get, DELETE), `/api/v1/items/ID/ACTION` (pause, resume, cancel, lock,
/// unlock, delete-files, consumption) and `/api/v1/cache/policy`.
public struct CacheRoutes: Sendable {
    public let cache: ContentCache

    public var routes: [HTTPRoute] {
        [
            HTTPRoute("GET", "/api/v1/cache/policy") { _ in .json(cache.policyStatus().encoded + "\n") },
            HTTPRoute("GET", "/api/v1/items") { list($0) },
            HTTPRoute("POST", "/api/v1/items") { add($0) },
            HTTPRoute("POST", "/api/v1/items/batch") { batch($0) },
            HTTPRoute("GET", "/api/v1/items/{id}") { request in
                let id = request.parameters["id"] ?? ""
                return cache.item(id).map { .json(CacheItemView.api($0).encoded + "\n") } ?? .text(404, "no item \(id)")
            },
            HTTPRoute("DELETE", "/api/v1/items/{id}") { request in let id = request.parameters["id"] ?? ""; return respond(perform("delete", id), id) },
            HTTPRoute("POST", "/api/v1/items/{id}/{action}") { request in
                action(request.parameters["id"] ?? "", request.parameters["action"] ?? "", request)
            },
        ]
    }

    private func action(_ id: String, _ name: String, _ request: HTTPRequest) -> HTTPResponse {
        guard name == "consumption" else { return respond(perform(name, id), id) }
        guard let document = try? JSONParser.parse(request.body), case .number(let start)? = document["startPosition"],
              case .number(let end)? = document["endPosition"], start >= 0, end >= start else {
            return .text(400, "expected {\"startPosition\":SECONDS,\"endPosition\":SECONDS} with 0 <= start <= end")
        }
        let at = cache.now()
        return respond(outcome(id) { id in
            try cache.update(id) { $0.consumption.append(ConsumptionRecord(startPosition: start, endPosition: end, recordedNanoseconds: at)) }
        }, id)
    }

    /// What an action on one item came to (one item's answer, or one row of a batch).
    enum Outcome {
        case item(CacheItem)
        case notFound
        /// An illegal transition: the reason names both states.
        case conflict(String)
        case failure(String)
        case unknownAction
    }

    static let actions = ["pause", "resume", "download", "cancel", "lock", "unlock", "delete-files", "delete"]

    /// Runs action `name` (`actions`) on item `id`.
    func perform(_ name: String, _ id: String) -> Outcome {
        switch name {
        case "pause": return outcome(id) { try cache.pause($0) }
        // `download`: a discovered item (itemDownloadBehavior None or ThumbnailOnly) downloads.
        case "resume", "download": return outcome(id) { try cache.resume($0) }
        case "cancel": return outcome(id) { try cache.cancel($0) }
        case "lock", "unlock": return outcome(id) { id in try cache.update(id) { $0.locked = name == "lock" } }
        case "delete-files": return outcome(id) { id in try cache.deleteFiles(id); return cache.item(id) }
        case "delete": return outcome(id) { id in try cache.deleteFiles(id, tombstone: true); return cache.item(id) }
        default: return .unknownAction
        }
    }

    private func outcome(_ id: String, _ body: (String) throws -> CacheItem?) -> Outcome {
        guard cache.item(id) != nil else { return .notFound }
        do {
            guard let item = try body(id) else { return .notFound }
            return .item(item)
        } catch let error as IllegalCacheTransition {
            return .conflict(error.description)
        } catch {
            return .failure("\(error)")
        }
    }

    private func respond(_ outcome: Outcome, _ id: String) -> HTTPResponse {
        switch outcome {
        case .item(let item): return .json(CacheItemView.api(item).encoded + "\n")
        case .notFound: return .text(404, "no item \(id)")
        case .conflict(let reason): return .text(409, reason)
        case .failure(let reason): return .text(503, reason)
        case .unknownAction: return .text(404, "no such action (\(Self.actions.joined(separator: ", ")), consumption)")
        }
    }

    /// `GET /api/v1/items?ids=&url=&state=&source=&category=&type=&viewed=&saved=&sort=&order=` (CacheItemQuery);
    /// with `ids`, `missing` lists the ids no item has.
    private func list(_ request: HTTPRequest) -> HTTPResponse {
        let query: CacheItemQuery
        do throws(CacheItemQuery.Invalid) { query = try CacheItemQuery(request.query) } catch { return .text(400, error.description) }
        let all = cache.items()
        let items = query.apply(all) { cache.originURLs($0) }
        var members: [(String, JSONValue)] = [("items", .array(items.map(CacheItemView.api)))]
        if query.ids != nil { members.append(("missing", .array(query.missing(in: all).map(JSONValue.string)))) }
        return .json(JSONValue.object(members).encoded + "\n")
    }

    /// `POST /api/v1/items` `{"id":…, "category"?, "prepositionSeconds"?, "quality"?, "headers"?, "cookies"?, "query"?,
    /// "perType"?, "download"?}`.
    private func add(_ request: HTTPRequest) -> HTTPResponse {
        // An item by URL (docs/cache.md "Items by URL"; URLItems.swift).
        if let document = try? JSONParser.parse(request.body), case .string(let url)? = document["url"] { return addURL(url, document) }
        guard let document = try? JSONParser.parse(request.body), case .string(let id)? = document["id"],
              CacheItem.acceptsContentID(id) else {
            return .text(400, "$.id: expected {\"id\":\"CONTENT-ID\"} (no slash, at most 200 bytes)")
        }
        var add = ContentCache.AddRequest(id: id)
        if case .string(let category)? = document["category"] { add.category = category }
        if case .number(let seconds)? = document["prepositionSeconds"] {
            guard seconds > 0 else { return .text(400, "$.prepositionSeconds: expected a positive number of seconds") }
            add.prepositionSeconds = seconds
        }
        if let quality = document["quality"] {
            guard let choice = VariantChoice.parse(quality) else { return .text(400, "$.quality: " + VariantChoice.expected) }
            add.quality = choice
        }
        var reader = JSONReader()
        add.token = OriginTokenHook.decode(document: document, &reader)
        if let issue = reader.issues.first { return .text(400, issue.description) }
        if case .bool(let download)? = document["download"] { add.download = download }
        do {
            return .json(CacheItemView.api(try cache.add(add)).encoded + "\n", status: 202)
        } catch {
            return .text(409, "\(error)")
        }
    }

    public init(cache: ContentCache) {
        self.cache = cache
    }
}
