/// The isLive polling answer for many fixture ids at once, with a suggested next-poll interval:
/// short while something asked for is live or about to start or end, long when nothing is near.
public enum CatalogLivePoll {
    /// Poll intervals in seconds (docs/catalog.md "Polling").
    public static let liveSeconds = 10, soonSeconds = 30, idleSeconds = 300
    /// "About to start or end" means within this many seconds.
    public static let soonWindowSeconds = 15.0 * 60
    public static let maximumIds = 200

    /// `ids` as given (comma-separated in the URL); `now` in seconds since the epoch.
    public static func answer(_ catalog: Catalog, ids: [String], channels: [LiveChannel], now: Double) throws(CatalogQueryError) -> JSONValue {
        guard !ids.isEmpty else { throw .badParameter("ids", value: "", expected: "one or more fixture ids, comma-separated") }
        guard ids.count <= maximumIds else { throw .badParameter("ids", value: "\(ids.count) ids", expected: "at most \(maximumIds)") }
        var items: [JSONValue] = [], unknown: [JSONValue] = []
        var next = idleSeconds
        for id in ids {
            guard let fixture = catalog.fixture(id: id) else { unknown.append(.string(id)); continue }
            let live = fixture.liveChannel(in: channels)
            items.append(.object([("id", .string(id)), ("isLive", .bool(live != nil)),
                                  ("channel", live.map { .string($0.id) } ?? .null)]))
            next = min(next, interval(fixture, live: live != nil, now: now))
        }
        return .object([("fixtures", .array(items)), ("unknown", .array(unknown)), ("nextPollSeconds", .number(Double(next)))])
    }

    static func interval(_ fixture: Fixture, live: Bool, now: Double) -> Int {
        if live { return liveSeconds }
        let start = fixture.startDate.seconds, end = fixture.endDate?.end ?? start + 3 * 3600
        if abs(start - now) <= soonWindowSeconds || abs(end - now) <= soonWindowSeconds || (start...end).contains(now) { return soonSeconds }
        if start > now { return max(soonSeconds, min(idleSeconds, Int(start - now - soonWindowSeconds))) }
        return idleSeconds
    }
}
