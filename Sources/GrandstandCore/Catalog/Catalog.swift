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

    /// One page of answers: the matching count, the page bounds and the fixtures on it. `live`
    /// is the gateway channel carrying the fixture; `liveURL` the external live URL whose last
    /// poll said live (docs/catalog.md "Polling isLive").
    public struct Page: Sendable {
        public var total: Int
        public var limit: Int
        public var offset: Int
        public var items: [(fixture: Fixture, live: LiveChannel?, liveURL: String?)]

        /// StreamPlay's answer shape (StreamPlayResponse.swift: root `fixtures` with `total`,
        /// `limit`, `offset`), plus `items`, the same list under the name earlier gateway
        /// clients read (deprecated).
        public var json: JSONValue {
            let list = JSONValue.array(items.map { Catalog.json($0.fixture, live: $0.live, liveURL: $0.liveURL) })
            return .object([("fixtures", list), ("total", .number(Double(total))), ("limit", .number(Double(limit))),
                            ("offset", .number(Double(offset))), ("items", list)])
        }
    }

    /// `external` holds the last poll of external live URLs (by URL); a fixture without a live
    /// channel of the gateway's is live when its external URL's last poll said so.
    public func search(_ query: CatalogQuery, channels: [LiveChannel], external: [String: ExternalLive] = [:]) -> Page {
        var matched: [(fixture: Fixture, live: LiveChannel?, liveURL: String?)] = []
        let sports = Set(query.sports.map { $0.lowercased() })
        for fixture in fixtures {
            let live = fixture.liveChannel(in: channels)
            let liveURL = live == nil ? fixture.externalLiveURL.flatMap { url in external[url]?.isLive == true ? url : nil } : nil
            let isLive = live != nil || liveURL != nil
            guard inRange(fixture, query),
                  query.partners.isEmpty || fixture.partnerId.map(query.partners.contains) == true,
                  sports.isEmpty || fixture.sport.map({ sports.contains($0.lowercased()) }) == true,
                  query.conditions.allSatisfy({ $0.matches(fixture, isLive: isLive) }),
                  query.anyOf.allSatisfy({ group in group.contains { $0.matches(fixture, isLive: isLive) } }) else { continue }
            matched.append((fixture, live, liveURL))
        }
        matched.sort { a, b in
            for key in query.sort {
                let aLive = a.live != nil || a.liveURL != nil, bLive = b.live != nil || b.liveURL != nil
                let order = Self.order(a.fixture.value(key.field, isLive: aLive), b.fixture.value(key.field, isLive: bLive))
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
        let date: CatalogDate?
        switch query.dateField {
        case nil: date = fixture.endDate ?? fixture.startDate
        case .endDate?: date = fixture.endDate
        default: date = fixture.startDate
        }
        guard let date else { return false }
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
        case let (.identifier(x?), .identifier(y?)): return CatalogCondition.order(x, y)
        case let (.identifier(x), .identifier(y)): return cmp(x, y)
        case let (.number(x), .number(y)): return cmp(x, y)
        case let (.date(x), .date(y)): return cmp(x?.seconds, y?.seconds)
        case let (.bool(x), .bool(y)): return cmp(x ? 1 : 0, y ? 1 : 0)
        case let (.strings(x), .strings(y)): return cmp(x.first?.lowercased(), y.first?.lowercased())
        default: return 0
        }
    }

    /// A fixture as answered: the feed's object as received, plus `isLive` and the playlist to
    /// play (the gateway channel's `/channels/ID/live.m3u8`, or the external live URL, or null).
    /// A fixture without `mediaData` gets one made from its `media` entries, because the iOS
    /// SDK's `FixturesModel` requires the member (StreamPlayResponse.swift).
    public static func json(_ fixture: Fixture, live: LiveChannel?, liveURL: String? = nil) -> JSONValue {
        var members: [(key: String, value: JSONValue)]
        if case .object(let source) = fixture.source { members = source.filter { $0.key != "isLive" && $0.key != "livePlaylist" } } else {
            members = [("id", .string(fixture.id)), ("name", .string(fixture.name)), ("startDate", .string(fixture.startDate.description))]
        }
        if !members.contains(where: { $0.key == "mediaData" }) {
            members.append(("mediaData", .array(fixture.media.map { entry in
                var item: [(key: String, value: JSONValue)] = []
                if let type = entry.type { item.append(("mediaType", .string(type))) }
                if let id = entry.entryId ?? entry.channelId { item.append(("entryId", .string(id))) }
                if let url = entry.liveURL { item.append(("isLiveUrl", .string(url))) }
                if let drm = entry.drm { item.append(("drm", .bool(drm))) }
                return JSONValue.object(item)
            })))
        }
        members.append(("isLive", .bool(live != nil || liveURL != nil)))
        let playlist = live.map { "/channels/\($0.id)/live.m3u8" } ?? liveURL
        members.append(("livePlaylist", playlist.map(JSONValue.string) ?? .null))
        return .object(members)
    }
}
