import GrandstandCore
import HTTPServer

extension CacheRoutes {
    /// `POST /api/v1/items/batch` `{"action": "pause"|"resume"|"download"|"cancel"|"lock"|"unlock"|"delete-files"|"delete",
    /// "ids": [ID…]}` or `{"action", "filter": {"state": "a,b", "category": …}}` (the list's query
    /// names and values): the action on each item, one result each: `{"id", "status": 200|404|409|503,
    /// "state"?, "reason"?}`, in the order given (ids) or listed (filter), with `ok` and `failed` counts.
    func batch(_ request: HTTPRequest) -> HTTPResponse {
        guard let document = try? JSONParser.parse(request.body), case .object = document else {
            return .text(400, "$: expected {\"action\":ACTION,\"ids\":[ID…]} or {\"action\":ACTION,\"filter\":{…}}")
        }
        guard case .string(let action)? = document["action"], Self.actions.contains(action) else {
            return .text(400, "$.action: expected one of \(Self.actions.joined(separator: ", "))")
        }
        let ids: [String]
        switch (document["ids"], document["filter"]) {
        case (let list?, nil):
            guard case .array(let values) = list, (1...1000).contains(values.count) else { return .text(400, "$.ids: expected 1 to 1000 item ids") }
            var given: [String] = []
            for (index, value) in values.enumerated() {
                guard case .string(let id) = value, !id.isEmpty else { return .text(400, "$.ids[\(index)]: expected an item id (a string)") }
                given.append(id)
            }
            ids = given
        case (nil, let filter?):
            guard case .object(let members) = filter else { return .text(400, "$.filter: expected an object of the list's filters") }
            var parameters: [String: String] = [:]
            for (name, value) in members {
                guard CacheItemQuery.names.contains(name) else {
                    return .text(400, "$.filter.\(name): unknown filter (expected one of \(CacheItemQuery.names.sorted().joined(separator: ", ")))")
                }
                switch value {
                case .string(let text): parameters[name] = text
                case .bool(let flag): parameters[name] = String(flag)
                case .array(let list):
                    let texts = list.compactMap { if case .string(let text) = $0 { text } else { nil } }
                    guard texts.count == list.count else { return .text(400, "$.filter.\(name): expected strings") }
                    parameters[name] = texts.joined(separator: ",")
                default: return .text(400, "$.filter.\(name): expected a string, a list of strings or true/false")
                }
            }
            let query: CacheItemQuery
            do throws(CacheItemQuery.Invalid) { query = try CacheItemQuery(parameters) } catch {
                return .text(400, "$.filter." + error.description)
            }
            ids = query.apply(cache.items()) { cache.originURLs($0) }.map(\.id)
        default:
            return .text(400, "$: give either ids or filter")
        }
        var results: [JSONValue] = []
        var succeeded = 0
        for id in ids {
            var row: [(String, JSONValue)] = [("id", .string(id))]
            switch perform(action, id) {
            case .item(let item):
                succeeded += 1
                row += [("status", .number(200)), ("state", .string(item.state.rawValue))]
            case .notFound: row += [("status", .number(404)), ("reason", .string("no item \(id)"))]
            case .conflict(let reason): row += [("status", .number(409)), ("reason", .string(reason))]
            case .failure(let reason): row += [("status", .number(503)), ("reason", .string(reason))]
            case .unknownAction: row += [("status", .number(400)), ("reason", .string("no action \(action)"))]
            }
            results.append(.object(row))
        }
        return .json(JSONValue.object([("action", .string(action)), ("ok", .number(Double(succeeded))),
                                       ("failed", .number(Double(ids.count - succeeded))), ("results", .array(results))]).encoded + "\n")
    }
}

/// An item on the management API: its JSON (`CacheItem.json`) with what is derived from it:
/// `viewed`, `saved` (= `locked`), the served `thumbnail` URL (null until stored), `play` and
/// `share` on the fan listener (CacheItemLinks).
enum CacheItemView {
    static func api(_ item: CacheItem) -> JSONValue {
        guard case .object(var members) = item.json else { return item.json }
        let links = CacheItemLinks(item)
        members.removeAll { $0.key == "thumbnail" }
        members += [("viewed", .bool(item.viewed)), ("saved", .bool(item.locked)),
                    ("thumbnail", links.thumbnail.map(JSONValue.string) ?? .null),
                    ("play", links.play.map(JSONValue.string) ?? .null), ("share", .string(links.share))]
        return .object(members)
    }
}

extension ContentCache {
    /// The origin URLs of an item's progressive files (for `url=`; HLS files CacheItemQuery
    /// finds from the master): from its stored metadata document, resolved as the download did.
    func originURLs(_ item: CacheItem) -> [String] {
        var urls: [String] = []
        guard let origin = configuration.origin, item.file(OriginMetadata.fileName) != nil,
              let path = withState({ state in state.store.items[item.id]?.file(OriginMetadata.fileName).map { state.store.objectPath($0.sha256) } }),
              let bytes = CacheFanRoutes.readFile(path) else { return urls }
        let metadataURL = origin.metadataURL + (origin.metadataURL.hasSuffix("/") ? "" : "/") + OriginMetadata.escape(item.id)
        guard let metadata = try? OriginMetadata.parse(bytes, url: metadataURL) else { return urls }
        let base = origin.mediaBaseURL ?? origin.metadataURL
        for file in metadata.files + (metadata.thumbnail.map { [$0] } ?? []) { urls.append(OriginURL.resolve(file.url, against: base)) }
        return urls
    }
}
