import Foundation
import Testing
import TestSupport
@testable import GrandstandCore

/// The generated realistic feed (tools/fixtures/make-catalog-feed.py): answers are checked
/// against filters computed here with Foundation's JSON, independently of the catalog code.
struct CatalogFeedTests {
    static func load() throws -> (Catalog, [[String: Any]]) {
        let bytes = try Fixtures.bytes("catalog/feed.json")
        let result = try CatalogFeedDecoder.decode(bytes)
        #expect(result.issues.isEmpty, "\(result.issues)")
        let document = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
        let raw = try #require(document?["fixtures"] as? [[String: Any]])
        return (Catalog(result.fixtures), raw)
    }

    @Test func feedLoadsEveryFixture() throws {
        let (catalog, raw) = try Self.load()
        #expect(catalog.fixtures.count == 120)
        #expect(raw.count == 120)
        #expect(catalog.fixtures.filter(\.featured).count == 12)
        #expect(catalog.fixtures.filter { $0.type == "concert" }.count == 8)
        let first = try #require(catalog.fixture(id: "lg-2024-001"))
        #expect(first.teams.count == 2 && first.thumbnails == ["https://img.example/lg/2024/001.jpg"])
        #expect(first.externalIds["league"] == "PD-2024-1")
        #expect(catalog.fixture(id: "concert-01")?.startDate.wholeDay == true)
    }

    @Test func derbyThisSeasonPagesThroughEverything() throws {
        let (catalog, raw) = try Self.load()
        var rows: [(start: String, id: String)] = []
        for item in raw {
            let name = (item["name"] as? String ?? "").lowercased()
            let season = item["season"] as? Double ?? 0
            guard name.contains("derby"), season >= 2025 else { continue }
            rows.append((item["startDate"] as? String ?? "", item["id"] as? String ?? ""))
        }
        // Newest first, ties by id.
        rows.sort { a, b in a.start != b.start ? a.start > b.start : a.id < b.id }
        let expected: [String] = rows.map { $0.id }
        #expect(expected.count == 16)
        var seen: [String] = []
        for offset in stride(from: 0, to: 20, by: 6) {
            let query = try CatalogQuery.parse([("q", "name:like:derby"), ("q", "season:>=:2025"), ("sort", "-startDate"),
                                                ("limit", "6"), ("offset", String(offset))])
            let page = catalog.search(query, channels: [])
            #expect(page.total == 16)
            #expect(page.items.count == min(6, max(0, 16 - offset)))
            seen += page.items.map(\.fixture.id)
        }
        #expect(seen == expected)
    }

    @Test func dateWindowOnEndDates() throws {
        let (catalog, raw) = try Self.load()
        var expected = 0
        for item in raw {
            guard let end = item["endDate"] as? String else { continue }
            if end >= "2025-09-01" && end < "2025-10-01" { expected += 1 }
        }
        let query = try CatalogQuery.parse([("dateFrom", "2025-09-01"), ("dateTo", "2025-09-30"), ("dateField", "end"), ("limit", "0")])
        let page = catalog.search(query, channels: [])
        #expect(page.total == expected)
        #expect(expected > 5)
        #expect(page.items.isEmpty)
    }

    @Test func linkedChannelsAreLive() throws {
        let (catalog, _) = try Self.load()
        let channels = [LiveChannel(id: "bowl-cam-1", name: "Bowl Cam 1", live: true), LiveChannel(id: "tunnel", name: "Tunnel Cam", live: true)]
        let query = try CatalogQuery.parse([("q", "isLive:isTrue")])
        let page = catalog.search(query, channels: channels)
        #expect(page.items.map(\.fixture.id) == ["lg-2025-001", "lg-2025-002"])
        #expect(page.items.map { $0.live?.id } == ["bowl-cam-1", "tunnel"])
        let idle = catalog.search(query, channels: channels.map { LiveChannel(id: $0.id, name: $0.name, live: false) })
        #expect(idle.total == 0)
    }

    @Test func livePollAnswersManyIds() throws {
        let (catalog, _) = try Self.load()
        let channels = [LiveChannel(id: "bowl-cam-1", name: "Bowl Cam 1", live: true)]
        let now = try #require(CatalogDate.parse("2025-08-09T12:00:00Z")).seconds
        let answer = try CatalogLivePoll.answer(catalog, ids: ["lg-2025-001", "lg-2025-003", "nope"], channels: channels, now: now)
        #expect(answer["nextPollSeconds"] == .number(10))
        #expect(answer["unknown"] == .array([.string("nope")]))
        guard case .array(let items)? = answer["fixtures"] else { Issue.record("no fixtures"); return }
        #expect(items.map { $0["isLive"] } == [.bool(true), .bool(false)])
        #expect(items[0]["channel"] == .string("bowl-cam-1"))
    }

    @Test(arguments: [
        // (now, expected seconds) for lg-2025-002 (2025-08-09T15:00Z, not live)
        ("2025-08-09T14:50:00Z", 30), ("2025-08-09T16:00:00Z", 30), ("2025-08-09T14:00:00Z", 300), ("2025-08-09T14:44:00Z", 60),
        ("2025-08-08T12:00:00Z", 300), ("2025-08-10T12:00:00Z", 300),
    ])
    func pollIntervalFollowsTheSchedule(now: String, expected: Int) throws {
        let (catalog, _) = try Self.load()
        let time = try #require(CatalogDate.parse(now)).seconds
        let answer = try CatalogLivePoll.answer(catalog, ids: ["lg-2025-002"], channels: [], now: time)
        #expect(answer["nextPollSeconds"] == .number(Double(expected)))
    }

    @Test func pollNeedsIds() {
        let error = thrownError(CatalogQueryError.self) { try CatalogLivePoll.answer(Catalog(), ids: [], channels: [], now: 0) }
        #expect(error?.name == "ids")
    }

    @Test func batchAnswersEachQuery() throws {
        let (catalog, _) = try Self.load()
        let queries = try CatalogBatch.parse(json: Array(#"["q=featured:isTrue&limit=5","q=competition:equals:Derby%20Cup&limit=1","q=type:equals:concert"]"#.utf8))
        let answer = CatalogBatch.answer(queries, in: catalog, channels: [])
        guard case .array(let results)? = answer["results"] else { Issue.record("no results"); return }
        #expect(results.map { $0["total"] } == [.number(12), .number(16), .number(8)])
        #expect(results.map { $0["limit"] } == [.number(5), .number(1), .number(20)])
        let get = try CatalogBatch.parse(arguments: [("query2", "q=type:equals:concert"), ("query1", "q=featured:isTrue")])
        #expect(get.map(\.conditions.first?.description) == ["featured:isTrue", "type:equals:concert"])
    }

    @Test func batchErrorsNameTheQuery() {
        let error = thrownError(CatalogQueryError.self) { try CatalogBatch.parse(json: Array(#"["limit=1","q=colour:equals:red"]"#.utf8)) }
        #expect(error == .inBatch(index: 1, .unknownField("colour")))
        #expect(error?.json["query"] == .number(1))
        let notArray = thrownError(CatalogQueryError.self) { try CatalogBatch.parse(json: Array("{}".utf8)) }
        #expect(notArray?.name == "body")
        let badKey = thrownError(CatalogQueryError.self) { try CatalogBatch.parse(arguments: [("q", "x")]) }
        #expect(badKey == .unknownParameter("q"))
    }

    @Test func badFixturesAreLeftOutWithTheirPaths() throws {
        let feed = #"""
        {"fixtures":[{"id":"ok","name":"Fine","startDate":"2025-01-01"},
                     {"id":"x","name":"No date"},
                     {"id":"y","name":"Bad","startDate":"01/02/2025","season":"2025","teams":[3]},
                     {"id":"ok","name":"Again","startDate":"2025-01-02"},
                     {"id":"z","name":"Ends early","startDate":"2025-01-02T10:00:00Z","endDate":"2025-01-02T09:00:00Z"},
                     7]}
        """#
        let result = try CatalogFeedDecoder.decode(Array(feed.utf8))
        #expect(result.fixtures.map(\.id) == ["ok"])
        let paths = result.issues.map(\.path.description)
        #expect(paths == ["$.fixtures[1].startDate", "$.fixtures[2].startDate", "$.fixtures[3].id", "$.fixtures[4].endDate", "$.fixtures[5]"])
    }

    @Test(arguments: ["", "not json", "{\"items\":[]}", "42"])
    func unreadableFeedsThrow(text: String) {
        let error = thrownError(CatalogFeedDecoder.FeedError.self) { try CatalogFeedDecoder.decode(Array(text.utf8)) }
        #expect(error != nil)
    }
}

struct CatalogDateTests {
    @Test(arguments: [
        ("1970-01-01", 0.0, true), ("2025-08-01", 1_754_006_400, true), ("2025-08-01T19:45:00Z", 1_754_077_500, false),
        ("2025-08-01T19:45Z", 1_754_077_500, false), ("2025-08-01T20:45:00+01:00", 1_754_077_500, false),
        ("2025-08-01T18:45:00-0100", 1_754_077_500, false), ("2025-08-01T19:45:00.5Z", 1_754_077_500.5, false),
        ("2024-02-29T00:00:00", 1_709_164_800, false), ("2000-03-01", 951_868_800, true),
    ])
    func parses(text: String, seconds: Double, wholeDay: Bool) {
        #expect(CatalogDate.parse(text) == CatalogDate(seconds: seconds, wholeDay: wholeDay))
    }

    @Test(arguments: ["", "2025", "2025-13-01", "2025-02-29", "2025-08-01T25:00Z", "2025-08-01T19:45:00Q", "2025-08-01T", "20250801",
                      "2025-08-01T19:45:00.Z", "2025-08-01T19:45:00+1"])
    func rejects(text: String) {
        #expect(CatalogDate.parse(text) == nil)
    }

    @Test func describesAsISO() {
        #expect(CatalogDate(seconds: 1_754_077_500).description == "2025-08-01T19:45:00Z")
        #expect(CatalogDate(seconds: 1_754_006_400, wholeDay: true).description == "2025-08-01")
    }
}
