import Testing
import TestSupport
@testable import GrandstandCore

/// Every operator against a small hand-written feed whose answers are obvious by reading it.
struct CatalogQueryTests {
    static let feed = """
    {"fixtures":[
    {"id":"a","type":"match","name":"North Derby","startDate":"2025-08-01T19:45:00Z","endDate":"2025-08-01T21:45:00Z",
     "season":2025,"teams":["Harbour City","Northgate"],"stadium":"Harbour Park","featured":true,
     "media":[{"channelId":"cam-1"}],"externalIds":{"opta":"111"}},
    {"id":"b","type":"match","name":"South Cup Final","startDate":"2025-08-02T15:00:00+01:00","season":2024.5,
     "teams":["Southbank"],"competition":"Cup","media":[{"channelName":"Tunnel Cam"}]},
    {"id":"c","type":"concert","name":"Summer derby night","startDate":"2025-08-02","season":2026,"featured":false},
    {"id":"d","type":"match","name":"Old Mill v Castle","startDate":"2024-12-31T23:59:59Z","description":"Derby"}
    ]}
    """
    static let channels = [LiveChannel(id: "cam-1", name: "Cam One", live: true),
                           LiveChannel(id: "tunnel", name: "Tunnel Cam", live: false)]

    static func catalog() throws -> Catalog {
        let result = try CatalogFeedDecoder.decode(Array(feed.utf8))
        #expect(result.issues.isEmpty, "\(result.issues)")
        return Catalog(result.fixtures)
    }

    static func ids(_ arguments: [(key: String, value: String)]) throws -> [String] {
        let query = try CatalogQuery.parse(arguments)
        return try catalog().search(query, channels: channels).items.map(\.fixture.id)
    }

    @Test(arguments: [
        // equals: strings exact, numbers, bools, dates (a bare date = its whole day)
        ("name:equals:North Derby", ["a"]), ("name:equals:north derby", []), ("type:eq:concert", ["c"]),
        ("season:equals:2025", ["a"]), ("season:=:2024.5", ["b"]), ("featured:equals:true", ["a"]),
        ("startDate:equals:2025-08-02", ["c", "b"]), ("startDate:equals:2025-08-01T19:45:00Z", ["a"]),
        ("teams:equals:Southbank", ["b"]), ("channelId:equals:cam-1", ["a"]), ("externalIds.opta:equals:111", ["a"]),
        // like: case-insensitive substring; missing values never match
        ("name:like:DERBY", ["a", "c"]), ("description:like:derby", ["d"]), ("teams:like:north", ["a"]), ("competition:like:cu", ["b"]),
        // startsWith: case-insensitive prefix
        ("name:startsWith:south", ["b"]), ("stadium:startsWith:Harbour", ["a"]), ("teams:startsWith:harb", ["a"]),
        // numbers
        ("season:>:2025", ["c"]), ("season:>=:2025", ["a", "c"]), ("season:<:2025", ["b"]), ("season:<=:2024.5", ["b"]),
        ("season:gt:2024", ["a", "c", "b"]), ("season:lte:2025", ["a", "b"]),
        // dates: times with zones, bare dates
        ("startDate:>:2025-08-01", ["c", "b"]), ("startDate:>=:2025-08-01", ["a", "c", "b"]), ("startDate:<:2025-08-01", ["d"]),
        ("startDate:<=:2025-08-01", ["d", "a"]), ("startDate:<:2025-08-02T14:00:01Z", ["d", "a", "c", "b"]),
        ("startDate:<:2025-08-02T14:00:00Z", ["d", "a", "c"]), ("endDate:>=:2025-01-01", ["a"]),
        // booleans: featured (feed), isLive (from the channel)
        ("featured:isTrue", ["a"]), ("featured:isFalse", ["d", "c", "b"]), ("isLive:isTrue", ["a"]), ("isLive:isFalse", ["d", "c", "b"]),
    ])
    func operators(condition: String, expected: [String]) throws {
        let got = try Self.ids([("q", condition)])
        #expect(got == expected, "\(condition)")
    }

    /// Found by the catalog fuzz target: an empty parameter name (`=…`) was refused with an empty
    /// `name`, so the 400 named nothing.
    @Test func anEmptyParameterNameIsNamed() {
        var refused: CatalogQueryError?
        do { _ = try CatalogQuery.parse(queryString: "==name:like:derby&limit=5") } catch { refused = error }
        #expect(refused == .unknownParameter(""))
        #expect(refused?.name == "(empty)")
        #expect(refused?.description.isEmpty == false)
    }

    @Test func conditionsAreAnded() throws {
        let anded = try Self.ids([("q", "name:like:derby"), ("q", "season:>=:2025"), ("q", "type:equals:match")])
        #expect(anded == ["a"])
        let numbered = try Self.ids([("q1", "name:like:derby"), ("q2", "featured:isFalse")])
        #expect(numbered == ["c"])
    }

    @Test(arguments: [
        ("name", ["a", "d", "b", "c"]), ("-name", ["c", "b", "d", "a"]), ("season", ["b", "a", "c", "d"]),
        ("-season", ["c", "a", "b", "d"]), ("-startDate", ["b", "c", "a", "d"]), ("type,-startDate", ["c", "b", "a", "d"]),
        ("endDate", ["a", "b", "c", "d"]),
    ])
    func sorting(sort: String, expected: [String]) throws {
        let got = try Self.ids([("sort", sort)])
        #expect(got == expected)
    }

    /// Without dateField the range is on the end date (StreamPlay's default), the start date for
    /// a fixture without one: `a` starts 19:45 but ends 21:45, so it is in from 20:00.
    @Test(arguments: [
        ([("dateFrom", "2025-08-01")], ["a", "c", "b"]), ([("dateTo", "2025-08-01")], ["d", "a"]),
        ([("dateFrom", "2025-08-01T20:00:00Z"), ("dateTo", "2025-08-02")], ["a", "c", "b"]),
        ([("dateFrom", "2025-08-01T20:00:00Z"), ("dateTo", "2025-08-02"), ("dateField", "start")], ["c", "b"]),
        ([("dateTo", "2025-08-02T14:00:00Z")], ["d", "a", "c", "b"]),
        ([("dateFrom", "2025-08-01"), ("dateField", "end")], ["a"]), ([("dateTo", "2030-01-01"), ("dateField", "endDate")], ["a"]),
    ])
    func dateRanges(arguments: [(String, String)], expected: [String]) throws {
        let got = try Self.ids(arguments.map { (key: $0.0, value: $0.1) })
        #expect(got == expected)
    }

    @Test(arguments: [
        ("limit", "2", "offset", "0", 4, ["d", "a"]), ("limit", "2", "offset", "2", 4, ["c", "b"]),
        ("limit", "2", "offset", "3", 4, ["b"]), ("limit", "2", "offset", "4", 4, []), ("limit", "0", "offset", "0", 4, []),
        ("limit", "20", "offset", "100", 4, []), ("limit", "500", "offset", "1", 4, ["a", "c", "b"]),
    ])
    func paging(_ k1: String, _ v1: String, _ k2: String, _ v2: String, total: Int, expected: [String]) throws {
        let query = try CatalogQuery.parse([(k1, v1), (k2, v2)])
        let page = try Self.catalog().search(query, channels: Self.channels)
        #expect(page.total == total)
        #expect(page.limit == Int(v1))
        #expect(page.offset == Int(v2))
        #expect(page.items.map(\.fixture.id) == expected)
    }

    @Test func defaultsAreLimit20OffsetZeroByStartDate() throws {
        let query = try CatalogQuery.parse([])
        #expect(query.limit == 20 && query.offset == 0 && query.conditions.isEmpty)
        let json = try Self.catalog().search(query, channels: Self.channels).json
        #expect(json["total"] == .number(4) && json["limit"] == .number(20) && json["offset"] == .number(0))
    }

    @Test(arguments: [
        ([("q", "colour:equals:red")], CatalogQueryError.unknownField("colour")),
        ([("sort", "-colour")], .unknownField("colour")),
        ([("q", "name:contains:x")], .unknownOperator("contains", condition: "name:contains:x")),
        ([("q", "name:>:x")], .operatorNotApplicable(">", field: "name", kind: "string")),
        ([("q", "season:like:20")], .operatorNotApplicable("like", field: "season", kind: "number")),
        ([("q", "featured:>=:1")], .operatorNotApplicable(">=", field: "featured", kind: "bool")),
        ([("q", "name:isTrue")], .operatorNotApplicable("isTrue", field: "name", kind: "string")),
        ([("q", "season:equals:twenty")], .badValue(field: "season", value: "twenty", expected: "a number")),
        ([("q", "featured:equals:yes")], .badValue(field: "featured", value: "yes", expected: "true or false")),
        ([("q", "name")], .malformedCondition("name")),
        ([("q", "name:like")], .badValue(field: "name", value: "", expected: "a value after like")),
        ([("page", "2")], .unknownParameter("page")),
        ([("q100", "name:like:x")], .unknownParameter("q100")),
        ([("limit", "501")], .badParameter("limit", value: "501", expected: "an integer in 0...500")),
        ([("offset", "-1")], .badParameter("offset", value: "-1", expected: "an integer in 0...2147483647")),
        ([("dateField", "kickoff")], .badParameter("dateField", value: "kickoff", expected: "start or end")),
    ])
    func badQueriesNameTheProblem(arguments: [(String, String)], expected: CatalogQueryError) {
        let error = thrownError(CatalogQueryError.self) { try CatalogQuery.parse(arguments.map { (key: $0.0, value: $0.1) }) }
        #expect(error == expected)
    }

    @Test func errorJSONNamesTheField() {
        let error = CatalogQueryError.unknownField("colour")
        #expect(error.json["name"] == .string("colour"))
        #expect(error.description.hasPrefix("unknown field \"colour\""))
        let op = CatalogQueryError.unknownOperator("contains", condition: "name:contains:x")
        #expect(op.json["name"] == .string("contains"))
    }

    @Test func dateValuesMayContainColons() throws {
        let condition = try CatalogCondition.parse("startDate:>=:2025-08-01T19:45:00+01:00")
        #expect(condition.operand == .date(CatalogDate(seconds: 1_754_073_900)))
    }

    @Test func answersCarryIsLiveAndThePlaylist() throws {
        let page = try Self.catalog().search(try CatalogQuery.parse([("q", "name:like:north")]), channels: Self.channels)
        let item = try #require(page.items.first)
        let json = Catalog.json(item.fixture, live: item.live)
        #expect(json["isLive"] == .bool(true))
        #expect(json["livePlaylist"] == .string("/channels/cam-1/live.m3u8"))
        #expect(json["externalIds"]?["opta"] == .string("111"))
    }
}
