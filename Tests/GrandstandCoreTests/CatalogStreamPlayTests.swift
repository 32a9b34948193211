import Testing
import TestSupport
@testable import GrandstandCore

/// The catalog as StreamAMG's StreamPlay SDK uses it, against Tests/Fixtures/catalog/streamplay.json
/// (a hand-written answer shaped like the SDK's StreamPlayResponse / FixturesModel): decoding,
/// every one of the SDK's 23 query fields in its own syntax, partner and sport filters, sort,
/// the default date field, the answer's shape and the isLive readings (docs/catalog.md "StreamPlay").
struct CatalogStreamPlayTests {
    static func catalog() throws -> Catalog {
        let result = try CatalogFeedDecoder.decode(try Fixtures.bytes("catalog/streamplay.json"))
        #expect(result.issues.isEmpty, "\(result.issues)")
        return Catalog(result.fixtures)
    }

    static func ids(_ arguments: [(key: String, value: String)], external: [String: ExternalLive] = [:]) throws -> [String] {
        let query = try CatalogQuery.parse(arguments)
        return try catalog().search(query, channels: [], external: external).items.map(\.fixture.id)
    }

    // MARK: Decoding

    @Test func streamPlayFixturesDecode() throws {
        let catalog = try Self.catalog()
        #expect(catalog.fixtures.count == 6)
        let first = try #require(catalog.fixture(id: "5001"))
        #expect(first.partnerId == "3001343" && first.sport == "football" && first.eventType == "league")
        #expect(first.seasonDetail == Fixture.Detail(id: "12", name: "2025/26"))
        #expect(first.competition == "Premier Division" && first.competitionId == "3")
        #expect(first.homeTeam == Fixture.Detail(id: "101", name: "Harbour City"))
        #expect(first.awayTeam == Fixture.Detail(id: "102", name: "Northgate Rovers"))
        #expect(first.teams == ["Harbour City", "Northgate Rovers"])
        #expect(first.stadium == "Harbour Park" && first.stadiumId == "7")
        #expect(first.location == Fixture.Detail(id: "44", name: "Harbourside"))
        #expect(first.externalIds == ["optaFixtureId": "2251001", "paFixtureId": "PA-9001", "sportsradarFixtureId": "77001"])
        let media = try #require(first.media.first)
        #expect(media.type == "video" && media.entryId == "0_abc123" && media.drm == true)
        #expect(media.liveURL == "http://live.example/isLive/5001")
        #expect(first.externalLiveURL == "http://live.example/isLive/5001")
        #expect(first.thumbnails == ["https://img.example/5001.jpg"])
        #expect(first.featured)
        // Nulls are absent members, not errors.
        let second = try #require(catalog.fixture(id: "5002"))
        #expect(second.description == nil && second.location == nil && second.externalIds == ["optaFixtureId": "2251002"])
        #expect(second.media.first?.liveURL == nil && second.media.first?.drm == false)
    }

    /// Integer ids, detail objects and members the gateway does not know come back as received.
    @Test func answersKeepTheFeedsObjectAsReceived() throws {
        let catalog = try Self.catalog()
        let page = catalog.search(try CatalogQuery.parse([("q", "(id:5001)")]), channels: [])
        let fixture = try #require(page.items.first)
        let json = Catalog.json(fixture.fixture, live: nil)
        #expect(json["id"] == .number(5001))
        #expect(json["partnerId"] == .number(3001343))
        #expect(json["season"]?["id"] == .number(12))
        #expect(json["competition"]?["logoFlavours"]?["300"] == .string("https://img.example/comp/3-300.png"))
        #expect(json["broadcaster"]?["rights"] == .array([.string("stadium"), .string("app")]))
        #expect(json["externalIds"]?["optaFixtureId"] == .number(2251001))
        #expect(json["mediaData"]?.encoded == fixture.fixture.source["mediaData"]?.encoded)
        #expect(json["isLive"] == .bool(false) && json["livePlaylist"] == .null)
    }

    /// The iOS SDK's FixturesModel requires `mediaData`: a gateway-shaped fixture gets one made
    /// from its `media`.
    @Test func gatewayShapedFixturesGetMediaData() throws {
        let feed = #"[{"id":"x","name":"X","startDate":"2025-08-01","media":[{"type":"video","channelId":"cam-1","liveURL":"/channels/cam-1/live.m3u8"}]}]"#
        let fixture = try #require(try CatalogFeedDecoder.decode(Array(feed.utf8)).fixtures.first)
        let channel = LiveChannel(id: "cam-1", name: "Cam", live: true)
        let json = Catalog.json(fixture, live: fixture.liveChannel(in: [channel]))
        let entry = try #require(json["mediaData"]?.array?.first)
        #expect(entry["mediaType"] == .string("video") && entry["entryId"] == .string("cam-1"))
        #expect(entry["isLiveUrl"] == .string("/channels/cam-1/live.m3u8"))
        #expect(json["isLive"] == .bool(true) && json["livePlaylist"] == .string("/channels/cam-1/live.m3u8"))
    }

    /// Bad StreamPlay values leave that fixture out with the JSON path of each problem.
    @Test(arguments: [
        (#"{"id":1.5,"name":"A","startDate":"2025-08-01"}"#, "$.fixtures[0].id"),
        (#"{"id":true,"name":"A","startDate":"2025-08-01"}"#, "$.fixtures[0].id"),
        (#"{"id":1,"name":"A","startDate":"2025-08-01","season":"2025"}"#, "$.fixtures[0].season"),
        (#"{"id":1,"name":"A","startDate":"2025-08-01","homeTeam":5}"#, "$.fixtures[0].homeTeam"),
        (#"{"id":1,"name":"A","startDate":"2025-08-01","competition":{"id":"","name":"C"}}"#, "$.fixtures[0].competition.id"),
        (#"{"id":1,"name":"A","startDate":"2025-08-01","stadium":{"id":7,"name":9}}"#, "$.fixtures[0].stadium.name"),
        (#"{"id":1,"name":"A","startDate":"2025-08-01","mediaData":[3]}"#, "$.fixtures[0].mediaData[0]"),
        (#"{"id":1,"name":"A","startDate":"2025-08-01","mediaData":[{"drm":"yes"}]}"#, "$.fixtures[0].mediaData[0].drm"),
        (#"{"id":1,"name":"A","startDate":"2025-08-01","mediaData":[{"isLiveTime":"soon"}]}"#, "$.fixtures[0].mediaData[0].isLiveTime"),
        (#"{"id":1,"name":"A","startDate":"2025-08-01","partnerId":[1]}"#, "$.fixtures[0].partnerId"),
        (#"{"id":1,"name":"A","startDate":"2025-08-01","externalIds":{"optaFixtureId":{}}}"#, "$.fixtures[0].externalIds.optaFixtureId"),
        (#"{"id":null,"name":"A","startDate":"2025-08-01"}"#, "$.fixtures[0].id"),
    ])
    func badStreamPlayValuesAreReportedByPath(fixture: String, path: String) throws {
        let feed = #"{"fixtures":["# + fixture + #",{"id":2,"name":"B","startDate":"2025-08-02"}],"total":2,"limit":20,"offset":0}"#
        let result = try CatalogFeedDecoder.decode(Array(feed.utf8))
        #expect(result.fixtures.map(\.id) == ["2"])
        #expect(result.issues.map(\.path.description).contains(path), "\(result.issues)")
    }

    /// The same id as an integer and as a string is one id: the second is a duplicate.
    @Test func integerAndStringIdsCollide() throws {
        let feed = #"[{"id":7,"name":"A","startDate":"2025-08-01"},{"id":"7","name":"B","startDate":"2025-08-01"}]"#
        let result = try CatalogFeedDecoder.decode(Array(feed.utf8))
        #expect(result.fixtures.map(\.name) == ["A"])
        #expect(result.issues.first?.path.description == "$[1].id")
    }

    // MARK: The SDK's query fields (StreamPlayQueryField), in the SDK's syntax

    /// One row per field of StreamPlayConstants.swift / StreamPlayQueryType.kt, written as the
    /// SDK's SearchBuilder writes it inside `q=(…)`. Default order: start date.
    @Test(arguments: [
        ("(id:5002)", ["5002"]),
        ("(mediaData.mediaType:video)", ["5004", "5001", "5003", "7001"]),
        ("(mediaData.entryId:0_def456)", ["5002"]),
        ("(mediaData.drm:true)", ["5001", "5003"]),
        ("(type:show)", ["5004"]),
        ("(name:*final*)", ["5003"]),
        ("(description:*season*)", ["5004", "5001"]),
        ("(externalIds.optaFixtureId:2251001)", ["5001"]),
        ("(externalIds.sportsradarFixtureId:77001)", ["5001"]),
        ("(externalIds.paFixtureId:PA-9001)", ["5001"]),
        ("(season.id:13)", ["6001"]),
        ("(season.name:2025/26)", ["5004", "5001", "5002", "5003"]),
        ("(competition.id:9)", ["5003"]),
        ("(competition.name:*division*)", ["5001", "5002"]),
        ("(homeTeam.id:101)", ["5001", "5003"]),
        ("(homeTeam.name:Northgate*)", ["5002"]),
        ("(awayTeam.id:103)", ["5002", "5003"]),
        ("(awayTeam.name:*giants)", ["6001"]),
        ("(stadium.id:15)", ["6001", "7001"]),
        ("(stadium.name:Harbour Park)", ["5001", "5003"]),
        ("(location.id:44)", ["5004", "5001"]),
        ("(location.name:*side*)", ["5004", "5001"]),
        ("(eventType:cup)", ["5003"]),
    ])
    func everySDKQueryField(q: String, expected: [String]) throws {
        #expect(try Self.ids([("q", q)]) == expected, "\(q)")
    }

    /// The SDK's operators (SearchBuilder: isEqualTo, isGreaterThan…, isLike, startsWith,
    /// endsWith, isTrue/isFalse, `_exists_`, teamsArePlaying) and AND/OR.
    @Test(arguments: [
        ("(id:>=6000)", ["6001", "7001"]),
        ("(id:>5003 AND id:<7001)", ["5004", "6001"]),
        ("(season.id:<=12)", ["5004", "5001", "5002", "5003"]),
        ("(homeTeam.id:>101)", ["6001", "5002"]),
        ("(name:Harbour*)", ["5001", "6001", "7001"]),
        ("(name:*v Castle Vale)", ["5002", "5003"]),
        ("(featured:true)", ["5001", "5003"]),
        ("(featured:false)", ["5004", "6001", "5002", "7001"]),
        ("(_exists_:location.id)", ["5004", "5001"]),
        ("(competition.id:3 AND featured:true)", ["5001"]),
        ("(( homeTeam.id:103 OR awayTeam.id:103))", ["5002", "5003"]),
        ("(( homeTeam.id:102 OR awayTeam.id:102 OR  homeTeam.id:202 OR awayTeam.id:202) AND type:match)", ["5001", "6001", "5002"]),
        ("(partnerId:4000001)", ["7001"]),
        ("(sport:darts)", ["7001"]),
    ])
    func sdkOperators(q: String, expected: [String]) throws {
        #expect(try Self.ids([("q", q)]) == expected, "\(q)")
    }

    /// The SDK sends its field terms and its media terms as two `q` parameters.
    @Test func fieldAndMediaTermsAreBothApplied() throws {
        #expect(try Self.ids([("q", "(featured:true)"), ("q", "(mediaData.entryId:0_ghi789)")]) == ["5003"])
    }

    /// The new fields in the gateway's own `field:operator:value` syntax.
    @Test(arguments: [
        ("homeTeam.name:equals:Harbour City", ["5001", "5003"]),
        ("season.id:>:12", ["6001"]),
        ("partnerId:equals:3001343", ["5004", "5001", "6001", "5002", "5003"]),
        ("sport:equals:basketball", ["6001"]),
        ("teams:equals:Castle Vale", ["5002", "5003"]),
        ("competition:equals:Derby Cup", ["5003"]),
        ("stadium:like:arena", ["6001", "7001"]),
        ("mediaData.mediaType:equals:audio", ["5002"]),
        ("location.name:exists", ["5004", "5001"]),
        ("name:endsWith:day 1", ["7001"]),
    ])
    func newFieldsInTheGatewaySyntax(q: String, expected: [String]) throws {
        #expect(try Self.ids([("q", q)]) == expected, "\(q)")
    }

    // MARK: Partner, sport, sort, dates, paging

    @Test(arguments: [
        ([("partner", "3001343")], ["5004", "5001", "6001", "5002", "5003"]),
        ([("partner", "4000001")], ["7001"]),
        ([("partner", "999")], []),
        ([("sport", "football")], ["5004", "5001", "5002", "5003"]),
        ([("sport", "FOOTBALL,darts")], ["5004", "5001", "5002", "5003", "7001"]),
        ([("sport", "basketball"), ("partner", "3001343")], ["6001"]),
    ])
    func partnerAndSportFilters(arguments: [(String, String)], expected: [String]) throws {
        #expect(try Self.ids(arguments.map { (key: $0.0, value: $0.1) }) == expected)
    }

    /// sortByAscending / sortByDescending: `sort=field:asc`; the Android SDK's key is `field:sort`.
    @Test(arguments: [
        ([("sort", "name:asc")], ["5003", "5001", "7001", "6001", "5002", "5004"]),
        ([("name:sort", "name:desc")], ["5004", "5002", "6001", "7001", "5001", "5003"]),
        ([("sort", "homeTeam.id:desc")], ["6001", "5002", "5001", "5003", "5004", "7001"]),
        ([("sort", "-startDate")], ["7001", "5003", "5002", "6001", "5001", "5004"]),
    ])
    func sortLikeTheSDK(arguments: [(String, String)], expected: [String]) throws {
        #expect(try Self.ids(arguments.map { (key: $0.0, value: $0.1) }) == expected)
    }

    /// A date range without a field is on the end date (the SDK's default, endDateEffective), a
    /// fixture without one on its start; `dateField=startDate` (startDateEffective) switches.
    @Test(arguments: [
        ([("from", "2025-08-30T13:00:00Z")], ["7001"]),
        ([("from", "2025-08-30T13:00:00Z"), ("dateField", "startDate")], []),
        ([(":from", "2025-08-30T13:00:00Z"), (":dateField", "startDate")], []),
        ([("dateFrom", "2025-08-09T15:00:00Z"), ("dateTo", "2025-08-16")], ["5001", "6001", "5002"]),
        ([("dateFrom", "2025-08-09T15:00:00Z"), ("dateTo", "2025-08-16"), ("dateField", "start")], ["6001", "5002"]),
        ([("from", "2025-08-01"), ("to", "2025-08-01")], ["5004"]),
        ([("to", "2025-08-10"), ("dateField", "endDate")], ["5004", "5001"]),
    ])
    func endDateIsTheDefaultDateField(arguments: [(String, String)], expected: [String]) throws {
        #expect(try Self.ids(arguments.map { (key: $0.0, value: $0.1) }) == expected)
    }

    /// The answer is StreamPlayResponse's shape: root `fixtures`, `total`, `limit`, `offset`
    /// (what the SDK's nextPage/previousPage compute from), plus the deprecated `items`.
    @Test(arguments: [(0, 2, 2), (2, 2, 2), (4, 2, 2), (5, 2, 1), (6, 2, 0), (0, 20, 6)])
    func pagesHaveTheSDKsRoot(offset: Int, limit: Int, count: Int) throws {
        let query = try CatalogQuery.parse([("offset", String(offset)), ("limit", String(limit))])
        let json = try Self.catalog().search(query, channels: []).json
        guard case .object(let members) = json else { Issue.record("not an object"); return }
        #expect(members.map(\.key) == ["fixtures", "total", "limit", "offset", "items"])
        #expect(json["fixtures"]?.array?.count == count)
        #expect(json["total"] == .number(6))
        #expect(json["limit"] == .number(Double(limit)))
        #expect(json["offset"] == .number(Double(offset)))
        #expect(json["items"] == json["fixtures"])
    }

    @Test(arguments: [
        ("(name:x", "q"), ("(name:x))", "q"), ("(colour:red)", "colour"), ("(name:>x)", ">"), ("(season.id:*1*) AND (x)", "q"),
        ("(name:x AND  AND type:y)", "q"), ("(nocolon)", "nocolon"), ("(_exists_:nope)", "nope"), ("(featured:>1)", ">"),
    ])
    func badStreamPlayQueriesNameTheProblem(q: String, name: String) {
        #expect(throws: CatalogQueryError.self) { try CatalogQuery.parse([("q", q)]) }
        do {
            _ = try CatalogQuery.parse([("q", q)])
        } catch {
            #expect(error.name == name, "\(q): \(error)")
        }
    }

    @Test(arguments: [("sort", "name:sideways"), ("partner", ","), ("sport", "")])
    func badStreamPlayParameters(key: String, value: String) {
        #expect(throws: CatalogQueryError.self) { try CatalogQuery.parse([(key, value)]) }
    }

    // MARK: isLive from external live URLs

    static let livePlaylist = "#EXTM3U\n#EXT-X-VERSION:6\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:40\n#EXTINF:2.0,\nseg40.ts\n#EXTINF:2.0,\nseg41.ts\n"
    static let endedPlaylist = livePlaylist + "#EXT-X-ENDLIST\n"
    static let vodPlaylist = "#EXTM3U\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:2.0,\na.ts\n"
    static let masterPlaylist = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000\nlow/index.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=2000000\nhigh/index.m3u8\n"

    @Test(arguments: [
        (200, livePlaylist, ExternalLive.Reading.result(.live(true, pollingFrequency: nil))),
        (200, "\u{FEFF}" + livePlaylist, ExternalLive.Reading.result(.live(true, pollingFrequency: nil))),
        (200, endedPlaylist, ExternalLive.Reading.result(.live(false, pollingFrequency: nil))),
        (200, vodPlaylist, ExternalLive.Reading.result(.live(false, pollingFrequency: nil))),
        (200, masterPlaylist, ExternalLive.Reading.variant("low/index.m3u8")),
        (200, #"{"isLive":true,"pollingFrequency":15}"#, ExternalLive.Reading.result(.live(true, pollingFrequency: 15))),
        (200, #"{"isLive":false}"#, ExternalLive.Reading.result(.live(false, pollingFrequency: nil))),
        (404, "gone", ExternalLive.Reading.result(.failed(code: 404, message: "live URL answered HTTP 404"))),
    ])
    func liveURLAnswersAreRead(status: Int, body: String, expected: ExternalLive.Reading) {
        #expect(ExternalLive.read(status: status, body: Array(body.utf8)) == expected)
    }

    @Test(arguments: ["<html>", #"{"live":true}"#, "#EXTM3U\n", ""])
    func unreadableLiveAnswersFail(body: String) {
        guard case .result(.failed(let code, let message)) = ExternalLive.read(status: 200, body: Array(body.utf8)) else {
            Issue.record("read as live: \(body)")
            return
        }
        #expect(code == 200 && !message.isEmpty)
    }

    @Test(arguments: [
        ("low/index.m3u8", "http://h:8/live/master.m3u8?t=1", "http://h:8/live/low/index.m3u8"),
        ("/other/a.m3u8", "http://h:8/live/master.m3u8", "http://h:8/other/a.m3u8"),
        ("http://cdn/a.m3u8", "http://h:8/live/master.m3u8", "http://cdn/a.m3u8"),
        ("//cdn/a.m3u8", "http://h:8/live/master.m3u8", "http://cdn/a.m3u8"),
        ("a.m3u8", "http://h:8", "http://h:8/a.m3u8"),
    ])
    func variantURIsResolve(reference: String, base: String, expected: String) {
        #expect(ExternalLive.resolve(reference, against: base) == expected)
    }

    /// The poll answer: a gateway channel first, else the external URL's reading; per-id errors
    /// (StreamPlayIsLiveErrorModel's liveStreamID/errorCode/messages) for unknown ids and failed
    /// or missing polls; pollingFrequency per fixture.
    @Test func pollAnswersWithExternalReadingsAndPerIdErrors() throws {
        let catalog = try Self.catalog()
        let now = 1_754_748_600.0   // 2025-08-09T14:10:00Z: 5001 under way
        #expect(CatalogLivePoll.externalURLs(catalog, ids: ["5001", "7001", "5002", "5001"], channels: [])
                == ["http://live.example/isLive/5001", "http://other.example/live/7001.m3u8"])
        let external: [String: ExternalLive] = ["http://live.example/isLive/5001": .live(true, pollingFrequency: 5),
                                                "http://other.example/live/7001.m3u8": .failed(code: 503, message: "live URL answered HTTP 503")]
        let answer = try CatalogLivePoll.answer(catalog, ids: ["5001", "7001", "5002", "nope"], channels: [], now: now, external: external)
        let items = try #require(answer["fixtures"]?.array)
        #expect(items.map { $0["isLive"] } == [.bool(true), .bool(false), .bool(false)])
        #expect(items[0]["pollingFrequency"] == .number(5) && items[0]["liveURL"] == .string("http://live.example/isLive/5001"))
        #expect(items[1]["error"]?["errorCode"] == .number(503))
        #expect(items[2]["error"] == nil && items[2]["liveURL"] == .null)
        let errors = try #require(answer["errors"]?.array)
        #expect(errors.map { $0["liveStreamID"] } == [.string("7001"), .string("nope")])
        #expect(errors.map { $0["errorCode"] } == [.number(503), .number(404)])
        #expect(answer["unknown"] == .array([.string("nope")]))
        #expect(answer["nextPollSeconds"] == .number(5))
        // Not polled (yet): an error, not a guess.
        let unpolled = try CatalogLivePoll.answer(catalog, ids: ["5001"], channels: [], now: now)
        #expect(unpolled["fixtures"]?.array?.first?["error"]?["errorCode"] == .number(-1))
        // A gateway channel wins over the external URL.
        var withChannel = try #require(catalog.fixture(id: "5001"))
        withChannel.media.append(Fixture.Media(channelId: "cam-1"))
        let state = CatalogLivePoll.state(withChannel, channels: [LiveChannel(id: "cam-1", name: "Cam", live: true)], external: [:], now: now)
        #expect(state.isLive && state.channel?.id == "cam-1" && state.failure == nil && state.pollingFrequency == 10)
    }

    /// Search marks a fixture live from its external URL's last reading, and `isLive:isTrue`
    /// finds it.
    @Test func searchUsesTheLastExternalReading() throws {
        let external: [String: ExternalLive] = ["http://live.example/isLive/5001": .live(true, pollingFrequency: nil)]
        #expect(try Self.ids([("q", "isLive:isTrue")], external: external) == ["5001"])
        #expect(try Self.ids([("q", "isLive:isTrue")]) == [])
        let page = try Self.catalog().search(try CatalogQuery.parse([("q", "(id:5001)")]), channels: [], external: external)
        #expect(page.json["fixtures"]?.array?.first?["livePlaylist"] == .string("http://live.example/isLive/5001"))
    }
}

private extension JSONValue {
    var array: [JSONValue]? { if case .array(let items) = self { items } else { nil } }
}
