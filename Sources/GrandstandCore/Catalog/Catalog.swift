/// The loaded fixtures and the search over them. Live state is not stored: each call gets the
/// channels the gateway serves now, so `isLive` is always current.
public struct Catalog: Sendable {
    public private(set) var fixtures: [Fixture]
    private var index: [String: Int] = [:]

    public init(_ fixtures: [Fixture] = []) {
        self.fixtures = fixtures
        for (position, fixture) in fixtures.enumerated() where index[fixture.id] == nil { index[fixture.id] = position }
    }

    public func fixture(id: String) -> Fixture? { index[id].map { fixtures[$0] } }

    /// One page of answers: the matching count, the page bounds and the fixtures on it.
    public struct Page: Sendable {
        public var total: Int
        public var limit: Int
        public var offset: Int
        public var items: [(fixture: Fixture, live: LiveChannel?)]

        public var json: JSONValue {
            .object([("total", .number(Double(total))), ("limit", .number(Double(limit))), ("offset", .number(Double(offset))),
                     ("items", .array(items.map { Catalog.json($0.fixture, live: $0.live) }))])
        }
    }

    public func search(_ query: CatalogQuery, channels: [LiveChannel]) -> Page {
        var matched: [(fixture: Fixture, live: LiveChannel?)] = []
        for fixture in fixtures {
            let live = fixture.liveChannel(in: channels)
            guard inRange(fixture, query), query.conditions.allSatisfy({ $0.matches(fixture, isLive: live != nil) }) else { continue }
            matched.append((fixture, live))
        }
        matched.sort { a, b in
            for key in query.sort {
                let order = Self.order(a.fixture.value(key.field, isLive: a.live != nil), b.fixture.value(key.field, isLive: b.live != nil))
                if abs(order) == 2 { return order < 0 }
                if order != 0 { return key.descending ? order > 0 : order < 0 }
            }
            return a.fixture.id < b.fixture.id
        }
        let start = min(query.offset, matched.count), end = min(start + query.limit, matched.count)
        return Page(total: matched.count, limit: query.limit, offset: query.offset, items: Array(matched[start..<end]))
    }

    private func inRange(_ fixture: Fixture, _ query: CatalogQuery) -> Bool {
        guard query.dateFrom != nil || query.dateTo != nil else { return true }
        guard let date = query.dateField == .endDate ? fixture.endDate : fixture.startDate else { return false }
        if let from = query.dateFrom, date.seconds < from.seconds { return false }
        // dateTo is inclusive: a bare date includes its whole day.
        if let to = query.dateTo, to.wholeDay ? date.seconds >= to.end : date.seconds > to.seconds { return false }
        return true
    }

    /// -1, 0, 1 between present values; ±2 when one is missing (missing values sort last either way).
    private static func order(_ a: CatalogFieldValue, _ b: CatalogFieldValue) -> Int {
        func cmp<T: Comparable>(_ x: T?, _ y: T?) -> Int {
            switch (x, y) {
            case (nil, nil): 0
            case (nil, _): 2
            case (_, nil): -2
            case let (x?, y?): x < y ? -1 : (y < x ? 1 : 0)
            }
        }
        switch (a, b) {
        case let (.string(x), .string(y)): return cmp(x?.lowercased(), y?.lowercased())
        case let (.number(x), .number(y)): return cmp(x, y)
        case let (.date(x), .date(y)): return cmp(x?.seconds, y?.seconds)
        case let (.bool(x), .bool(y)): return cmp(x ? 1 : 0, y ? 1 : 0)
        case let (.strings(x), .strings(y)): return cmp(x.first?.lowercased(), y.first?.lowercased())
        default: return 0
        }
    }

    /// A fixture as answered: the feed's object plus `isLive` and, when live, the channel's playlist.
    public static func json(_ fixture: Fixture, live: LiveChannel?) -> JSONValue {
        var members: [(key: String, value: JSONValue)]
        if case .object(let source) = fixture.source { members = source.filter { $0.key != "isLive" && $0.key != "livePlaylist" } } else {
            members = [("id", .string(fixture.id)), ("name", .string(fixture.name)), ("startDate", .string(fixture.startDate.description))]
        }
        members.append(("isLive", .bool(live != nil)))
        members.append(("livePlaylist", live.map { .string("/channels/\($0.id)/live.m3u8") } ?? .null))
        return .object(members)
    }
}
