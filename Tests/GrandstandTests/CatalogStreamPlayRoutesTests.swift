import Foundation
import GrandstandCore
import HTTPClient
import TestSupport
import Testing
@testable import GrandstandDaemon
@testable import GrandstandServices

/// The catalog over HTTP as the StreamPlay SDK calls it, on an in-process daemon reading
/// Tests/Fixtures/catalog/streamplay.json whose live URLs point at a local origin
/// (tools/cache-origin/origin.py): a live HLS playlist, a master playlist, a 500, a silent
/// origin (the poll's timeout). docs/catalog.md "StreamPlay" and "Polling isLive".
struct CatalogStreamPlayRoutesTests {
    static let livePlaylist = "#EXTM3U\n#EXT-X-VERSION:6\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:7\n#EXTINF:2.0,\nseg7.ts\n#EXTINF:2.0,\nseg8.ts\n"

    final class Setup {
        let origin: CacheOrigin
        let running: ManagementAPITests.Running
        let fan: HTTPClient
        let feedPath: String

        init() throws {
            origin = try CacheOrigin()
            try origin.media("live/5001.m3u8", Array(CatalogStreamPlayRoutesTests.livePlaylist.utf8))
            try origin.media("master/index.m3u8", Array("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=900000\nlow/index.m3u8\n".utf8))
            try origin.media("master/low/index.m3u8", Array(CatalogStreamPlayRoutesTests.livePlaylist.utf8))
            try origin.media("err500/7001.m3u8", Array("x".utf8))
            try origin.media("5002.m3u8", Array(CatalogStreamPlayRoutesTests.livePlaylist.utf8))
            var feed = try String(contentsOfFile: Fixtures.path("catalog/streamplay.json"), encoding: .utf8)
            feed = feed.replacingOccurrences(of: "http://live.example/isLive/5001", with: origin.base + "/media/live/5001.m3u8")
            feed = feed.replacingOccurrences(of: "http://other.example/live/7001.m3u8", with: origin.base + "/media/err500/7001.m3u8")
            feed = feed.replacingOccurrences(of: #""isLiveUrl": null"#, with: #""isLiveUrl": "\#(origin.base)/media/slow/5002.m3u8""#)
            feed = feed.replacingOccurrences(of: #""mediaData": []"#,
                                             with: #""mediaData": [{"mediaType": "video", "isLiveUrl": "\#(origin.base)/media/master/index.m3u8"}]"#)
            feedPath = origin.root + "/streamplay-feed.json"
            try feed.write(toFile: feedPath, atomically: true, encoding: .utf8)
            running = try ManagementAPITests.Running(extra: #","catalog":{"feedPath":"\#(feedPath)","refreshSeconds":60}"#)
            let port = try #require(running.daemon.status?.fan.port)
            fan = HTTPClient(HTTPEndpoint(host: "127.0.0.1", port: port), timeoutSeconds: 20)
        }

        deinit { origin.stop() }
    }

    static func json(_ response: HTTPClientResponse) throws -> JSONValue { try JSONParser.parse(response.body) }

    static func ids(_ page: JSONValue) -> [JSONValue] {
        guard case .array(let fixtures)? = page["fixtures"] else { return [] }
        return fixtures.map { $0["id"] ?? .null }
    }

    /// The SDK's own URLs: `fixtures/SPORT/p/PARTNER` (one sport) or `fixtures/p/PARTNER`,
    /// two `q` parameters (field and media terms), `offset`/`limit`; the Android SDK's
    /// `:from=` / `FIELD:sort=` extra parameters. Answers have root `fixtures` and the
    /// integer ids as the feed sent them.
    @Test func sdkURLsAnswerLikeStreamPlay() throws {
        let setup = try Setup()
        let sport = try setup.fan.get("/catalog/fixtures/football/p/3001343?q=(featured:true)&q=(mediaData.mediaType:video)&offset=0&limit=20")
        #expect(sport.status == 200, "\(sport.text)")
        let page = try Self.json(sport)
        #expect(Self.ids(page) == [.number(5001), .number(5003)])
        #expect(page["total"] == .number(2) && page["limit"] == .number(20) && page["offset"] == .number(0))
        let partner = try Self.json(try setup.fan.get("/catalog/fixtures/p/4000001?offset=0"))
        #expect(Self.ids(partner) == [.number(7001)])
        let combined = try Self.json(try setup.fan.get("/catalog/fixtures/p/3001343?q=(competition.id:3%20AND%20homeTeam.id:%3E101)"))
        #expect(Self.ids(combined) == [.number(5002)])
        let android = try Self.json(try setup.fan.get("/catalog/fixtures/p/3001343?:from=2025-08-16&:dateField=endDate&name:sort=name:asc&offset=0&limit=1"))
        #expect(Self.ids(android) == [.number(5003)] && android["total"] == .number(2))
        let paged = try Self.json(try setup.fan.get("/catalog?sport=football&offset=2&limit=2"))
        #expect(Self.ids(paged) == [.number(5002), .number(5003)] && paged["total"] == .number(4))
        let bad = try setup.fan.get("/catalog/fixtures/p/3001343?q=(colour:red)")
        #expect(bad.status == 400)
        #expect(try Self.json(bad)["name"] == .string("colour"))
        let management = try setup.running.call("GET", "/api/v1/catalog/fixtures/basketball/p/3001343")
        #expect(Self.ids(try Self.json(management)) == [.number(6001)])
    }

    /// `/catalog/live` polls each fixture's external live URL through the gateway's HTTP client:
    /// a live playlist, a master playlist (its variant), a 500 and a silent origin (the timeout)
    /// give isLive or a per-id error; the readings are cached, and search then marks them live.
    @Test func livePollingOfExternalURLs() throws {
        let setup = try Setup()
        let started = Date()
        let response = try setup.fan.get("/catalog/live?ids=5001,6001,7001,5002,5004,nope")
        #expect(response.status == 200, "\(response.text)")
        let elapsed = Date().timeIntervalSince(started)
        #expect(elapsed < 10, "the silent origin is cut off by the poll timeout")
        let answer = try Self.json(response)
        guard case .array(let items)? = answer["fixtures"] else { Issue.record("no fixtures: \(response.text)"); return }
        let byId = Dictionary(items.map { (($0["id"] ?? .null).encoded, $0) }) { a, _ in a }
        #expect(byId["\"5001\""]?["isLive"] == .bool(true), "\(response.text)")
        #expect(byId["\"5001\""]?["liveURL"] == .string(setup.origin.base + "/media/live/5001.m3u8"))
        #expect(byId["\"6001\""]?["isLive"] == .bool(true), "master playlist followed to its variant: \(response.text)")
        #expect(byId["\"7001\""]?["isLive"] == .bool(false))
        #expect(byId["\"7001\""]?["error"]?["errorCode"] == .number(500))
        #expect(byId["\"5002\""]?["error"]?["errorCode"] == .number(-1), "timed out: \(response.text)")
        #expect(byId["\"5004\""]?["isLive"] == .bool(false) && byId["\"5004\""]?["error"] == nil)
        guard case .array(let errors)? = answer["errors"] else { Issue.record("no errors"); return }
        #expect(errors.compactMap { $0["liveStreamID"] } == [.string("7001"), .string("5002"), .string("nope")])
        #expect(answer["unknown"] == .array([.string("nope")]))
        #expect(answer["nextPollSeconds"] == .number(10))

        // Polled again at once: from the cache, no new request to the origin.
        let before = setup.origin.requests.filter { $0.hasPrefix("/media/live/5001.m3u8") }.count
        let again = try Self.json(try setup.fan.get("/catalog/live?ids=5001"))
        #expect(again["fixtures"]?.arrayValue?.first?["isLive"] == .bool(true))
        #expect(setup.origin.requests.filter { $0.hasPrefix("/media/live/5001.m3u8") }.count == before)
        #expect(before == 1)

        // The SDK's isLive URL for one fixture: StreamPlayIsLiveModel, or its error model.
        let single = try setup.fan.get("/catalog/live/5001")
        #expect(single.status == 200)
        let model = try Self.json(single)
        #expect(model["isLive"] == .bool(true) && model["pollingFrequency"] == .number(10))
        let failed = try setup.fan.get("/catalog/live/7001")
        #expect(failed.status == 502)
        #expect(try Self.json(failed)["errorCode"] == .number(500))
        let unknown = try setup.fan.get("/catalog/live/nope")
        #expect(unknown.status == 404)
        #expect(try Self.json(unknown)["liveStreamID"] == .string("nope"))

        // Search marks the fixtures whose last poll said live.
        let live = try Self.json(try setup.fan.get("/catalog?q=isLive:isTrue"))
        #expect(Self.ids(live) == [.number(5001), .number(6001)])
    }
}

private extension JSONValue {
    var arrayValue: [JSONValue]? { if case .array(let items) = self { items } else { nil } }
}
