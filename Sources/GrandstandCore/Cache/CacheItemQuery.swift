/// Which items a list or a batch action means (docs/cache.md "API"): several ids, an origin URL,
/// and the filters (state, source, category, type, viewed, saved), with the list's sort and
/// order. Parsed from query parameters (or a batch's `filter` object, the same names); pure.
public struct CacheItemQuery: Sendable, Equatable {
    public var ids: [String]?
    public var url: String?
    public var states: Set<CacheItemState>?
    /// `origin`, `url`, `file-channel` (any channel) or `file-channel:ID`.
    public var source: String?
    public var category: String?
    public var types: Set<String>?
    /// `viewed=false`: no consumption record and never served to a fan.
    public var viewed: Bool?
    /// `saved=true`: locked, kept whatever the cache needs (the SDK's saved items).
    public var saved: Bool?
    public var sort = "created"
    public var descending = false

    /// A parameter that cannot be used: its name and why (a 400 on the API).
    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public let field: String
        public let reason: String
        public var description: String { "\(field): \(reason)" }
    }

    public static let names: Set<String> = ["ids", "url", "state", "source", "category", "type", "viewed", "saved", "sort", "order"]
    static let sorts = ["created", "id", "lastAccess", "size", "state"]

    public init() {}

    public init(_ parameters: [String: String]) throws(Invalid) {
        if let text = parameters["ids"] {
            let ids = text.split(separator: ",").map(String.init)
            guard !ids.isEmpty, ids.count <= 1000 else { throw Invalid(field: "ids", reason: "expected 1 to 1000 comma-separated item ids") }
            self.ids = ids
        }
        if let url = parameters["url"] {
            guard url.contains("://") else { throw Invalid(field: "url", reason: "expected an absolute origin URL") }
            self.url = url
        }
        if let text = parameters["state"] {
            var states: Set<CacheItemState> = []
            for name in text.split(separator: ",") {
                guard let state = CacheItemState(rawValue: String(name)) else {
                    throw Invalid(field: "state", reason: "expected one of \(CacheItemState.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                states.insert(state)
            }
            self.states = states
        }
        source = parameters["source"]
        category = parameters["category"]
        if let text = parameters["type"] { types = Set(text.split(separator: ",").map { $0.lowercased() }) }
        viewed = try Self.flag(parameters, "viewed")
        saved = try Self.flag(parameters, "saved")
        if let sort = parameters["sort"] {
            guard Self.sorts.contains(sort) else { throw Invalid(field: "sort", reason: "expected one of \(Self.sorts.sorted().joined(separator: ", "))") }
            self.sort = sort
        }
        switch parameters["order"] ?? "asc" {
        case "asc": descending = false
        case "desc": descending = true
        default: throw Invalid(field: "order", reason: "expected asc or desc")
        }
    }

    private static func flag(_ parameters: [String: String], _ name: String) throws(Invalid) -> Bool? {
        guard let text = parameters[name] else { return nil }
        guard let value = Bool(text) else { throw Invalid(field: name, reason: "expected true or false") }
        return value
    }

    /// Whether `item` is meant; `originURLs` gives the origin URLs of an item's files (asked only
    /// with `url`).
    public func matches(_ item: CacheItem, originURLs: (CacheItem) -> [String] = { _ in [] }) -> Bool {
        if let ids, !ids.contains(item.id) { return false }
        if let states, !states.contains(item.state) { return false }
        if let source {
            if source == "file-channel" {
                guard case .fileChannel = item.source else { return false }
            } else if item.source.description != source { return false }
        }
        if let category, item.category != category { return false }
        if let types, !types.contains(item.type ?? "") { return false }
        if let viewed, item.viewed != viewed { return false }
        if let saved, item.locked != saved { return false }
        if let url {
            let wanted = Self.withoutQuery(url)
            let known = (item.originURL.map { [$0] } ?? []) + Self.hlsFileURLs(item) + originURLs(item)
            if !known.contains(where: { Self.withoutQuery($0) == wanted }) { return false }
        }
        return true
    }

    /// The items meant, sorted (ties by id) and ordered.
    public func apply(_ items: [CacheItem], originURLs: (CacheItem) -> [String] = { _ in [] }) -> [CacheItem] {
        var out = items.filter { matches($0, originURLs: originURLs) }
        switch sort {
        case "id": out.sort { $0.id < $1.id }
        case "lastAccess": out.sort { ($0.lastAccessNanoseconds, $0.id) < ($1.lastAccessNanoseconds, $1.id) }
        case "size": out.sort { ($0.storedBytes, $0.id) < ($1.storedBytes, $1.id) }
        case "state": out.sort { ($0.state.rawValue, $0.id) < ($1.state.rawValue, $1.id) }
        default: out.sort { ($0.createdNanoseconds, $0.id) < ($1.createdNanoseconds, $1.id) }
        }
        return descending ? out.reversed() : out
    }

    /// The ids asked for that no item has (`ids` only).
    public func missing(in items: [CacheItem]) -> [String] {
        guard let ids else { return [] }
        let known = Set(items.map(\.id))
        return ids.filter { !known.contains($0) }
    }

    /// The origin URLs of an HLS item's stored files: each resolved against its master (files
    /// outside the master's directory, `ext/…`, its thumbnail and metadata are not).
    public static func hlsFileURLs(_ item: CacheItem) -> [String] {
        guard let master = item.originURL, CacheItem.urlIsPlaylist(master) else { return [] }
        return item.files.map(\.path).filter { !$0.hasPrefix("ext/") && !$0.hasPrefix("thumbnail/") && $0 != "metadata.json" }
            .map { OriginURL.resolve($0, against: master) }
    }

    static func withoutQuery(_ url: String) -> String { String(url.prefix { $0 != "?" && $0 != "#" }) }
}
