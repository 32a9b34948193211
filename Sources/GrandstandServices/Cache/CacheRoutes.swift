import GrandstandCore
import HTTPServer

/// The management API of the cache (docs/cache.md "API"): `/api/v1/items` (list with filters and
/// sorting, add by content id), `/api/v1/items/ID` (get, DELETE), `/api/v1/items/ID/ACTION`
/// (pause, resume, cancel, lock, unlock, delete-files, consumption) and `/api/v1/cache/policy`.
public struct CacheRoutes: Sendable {
    public let cache: ContentCache

    public var routes: [HTTPRoute] {
        [
            HTTPRoute("GET", "/api/v1/cache/policy") { _ in .json(cache.policyStatus().encoded + "\n") },
            HTTPRoute("GET", "/api/v1/items") { list($0) },
            HTTPRoute("POST", "/api/v1/items") { add($0) },
            HTTPRoute("GET", "/api/v1/items/{id}") { request in
                let id = request.parameters["id"] ?? ""
                return cache.item(id).map { .json($0.json.encoded + "\n") } ?? .text(404, "no item \(id)")
            },
            HTTPRoute("DELETE", "/api/v1/items/{id}") { request in
                act(request.parameters["id"] ?? "") { id in try cache.deleteFiles(id, tombstone: true); return cache.item(id) }
            },
            HTTPRoute("POST", "/api/v1/items/{id}/{action}") { request in
                action(request.parameters["id"] ?? "", request.parameters["action"] ?? "", request)
            },
        ]
    }

    private func action(_ id: String, _ name: String, _ request: HTTPRequest) -> HTTPResponse {
        switch name {
        case "pause": return act(id) { try cache.pause($0) }
        // `download`: a discovered item (itemDownloadBehavior None or ThumbnailOnly) downloads.
        case "resume", "download": return act(id) { try cache.resume($0) }
        case "cancel": return act(id) { try cache.cancel($0) }
        case "lock", "unlock": return act(id) { id in try cache.update(id) { $0.locked = name == "lock" } }
        case "delete-files": return act(id) { id in try cache.deleteFiles(id); return cache.item(id) }
        case "consumption":
            guard let document = try? JSONParser.parse(request.body), case .number(let start)? = document["startPosition"],
                  case .number(let end)? = document["endPosition"], start >= 0, end >= start else {
                return .text(400, "expected {\"startPosition\":SECONDS,\"endPosition\":SECONDS} with 0 <= start <= end")
            }
            let at = cache.now()
            return act(id) { id in
                try cache.update(id) { $0.consumption.append(ConsumptionRecord(startPosition: start, endPosition: end, recordedNanoseconds: at)) }
            }
        default: return .text(404, "no action \(name) (pause, resume, download, cancel, lock, unlock, delete-files, consumption)")
        }
    }

    private func act(_ id: String, _ body: (String) throws -> CacheItem?) -> HTTPResponse {
        guard cache.item(id) != nil else { return .text(404, "no item \(id)") }
        do {
            guard let item = try body(id) else { return .text(404, "no item \(id)") }
            return .json(item.json.encoded + "\n")
        } catch let error as IllegalCacheTransition {
            return .text(409, error.description)
        } catch {
            return .text(503, "\(error)")
        }
    }

    /// `GET /api/v1/items?state=&source=&category=&sort=id|created|lastAccess|size|state&order=asc|desc`.
    private func list(_ request: HTTPRequest) -> HTTPResponse {
        var items = cache.items()
        if let state = request.query["state"] {
            let wanted = state.split(separator: ",").map(String.init)
            guard wanted.allSatisfy({ CacheItemState(rawValue: $0) != nil }) else {
                return .text(400, "state: expected one of \(CacheItemState.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            items.removeAll { !wanted.contains($0.state.rawValue) }
        }
        if let source = request.query["source"] {
            items.removeAll { source == "file-channel" ? $0.source == .origin : $0.source.description != source }
        }
        if let category = request.query["category"] { items.removeAll { $0.category != category } }
        let sort = request.query["sort"] ?? "created"
        let orders: [String: (CacheItem, CacheItem) -> Bool] = [
            "id": { $0.id < $1.id }, "created": { ($0.createdNanoseconds, $0.id) < ($1.createdNanoseconds, $1.id) },
            "lastAccess": { ($0.lastAccessNanoseconds, $0.id) < ($1.lastAccessNanoseconds, $1.id) },
            "size": { ($0.storedBytes, $0.id) < ($1.storedBytes, $1.id) }, "state": { ($0.state.rawValue, $0.id) < ($1.state.rawValue, $1.id) },
        ]
        guard let order = orders[sort] else { return .text(400, "sort: expected one of \(orders.keys.sorted().joined(separator: ", "))") }
        items.sort(by: order)
        switch request.query["order"] ?? "asc" {
        case "asc": break
        case "desc": items.reverse()
        default: return .text(400, "order: expected asc or desc")
        }
        return .json(JSONValue.object([("items", .array(items.map(\.json)))]).encoded + "\n")
    }

    /// `POST /api/v1/items` `{"id":…, "category"?, "prepositionSeconds"?, "quality"?, "headers"?: {…}, "query"?}`.
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
        if case .object(let headers)? = document["headers"] {
            for (name, value) in headers {
                guard case .string(let text) = value, !name.contains(":"), !(name + text).contains("\r"), !(name + text).contains("\n") else {
                    return .text(400, "$.headers.\(name): expected a string without line breaks")
                }
                add.headers[name] = text
            }
        }
        if case .string(let query)? = document["query"] { add.query = query }
        if case .bool(let download)? = document["download"] { add.download = download }
        do {
            return .json(try cache.add(add).json.encoded + "\n", status: 202)
        } catch {
            return .text(409, "\(error)")
        }
    }

    public init(cache: ContentCache) {
        self.cache = cache
    }
}
