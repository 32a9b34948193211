import Foundation
import GrandstandCore
import GrandstandRuntime
import HTTPServer
import TestSupport
import Testing
@testable import GrandstandIngest
@testable import GrandstandOperations
@testable import GrandstandServices

/// The management API and the file-channel side (ReceivedFileSink) of the content cache, on a
/// cache without an origin.
@Suite struct CacheRoutesTests {
    static func cache(sizeBytes: Int = 1 << 20) throws -> ContentCache {
        var config = GatewayConfig.Cache(directory: NSTemporaryDirectory() + "gs-cache-\(UUID().uuidString)")
        config.policy.sizeBytes = sizeBytes
        config.policy.maxFileBytes = sizeBytes
        return try ContentCache(config, clock: TickingClock())
    }

    /// A wall clock that advances 1 ms per reading, so access order is strict.
    final class TickingClock: GrandstandRuntime.Clock {
        private let manual = ManualClock(wall: 1_763_700_000_000_000_000)
        func wallNanoseconds() -> Int64 {
            manual.advance(by: 1_000_000)
            return manual.wallNanoseconds()
        }
        func monotonicNanoseconds() -> Int64 { manual.monotonicNanoseconds() }
        func wait(untilMonotonic deadline: Int64, or stop: StopSignal) -> Bool { manual.wait(untilMonotonic: deadline, or: stop) }
    }

    static func received(_ channel: String, _ path: String, _ bytes: [UInt8]) -> ReceivedFile {
        ReceivedFile(channelID: channel, path: path, contentType: "text/plain", toi: 1, fdtInstance: 1, bytes: bytes,
                     completedNanoseconds: 1_763_700_000_000_000_000)
    }

    func request(_ method: String, _ path: String, query: [String: String] = [:], body: String = "") -> HTTPRequest {
        HTTPRequest(method: method, path: path, query: query, body: Array(body.utf8))
    }

    /// The cache's routes behind the router, as the management listener runs them.
    struct Routed {
        let router: HTTPRouter
        init(_ cache: ContentCache) { router = HTTPRouter(CacheRoutes(cache: cache).routes) }
        func handle(_ request: HTTPRequest) -> HTTPResponse? { router.handle(request, HTTPResponder { _ in }) }
    }

    /// Fans asking for items (`POST /items` on the fan listener's routes): refused without
    /// `cache.fans` and for other categories (403), malformed (400), accepted into the cache
    /// (202, the fan listing entry, no origin URL), then limited per client (429, Retry-After).
    @Test func fansRequestItemsInAllowedCategoriesWithinTheirAllowance() throws {
        var config = GatewayConfig.Cache(directory: NSTemporaryDirectory() + "gs-cache-\(UUID().uuidString)")
        config.origin = GatewayConfig.Origin(metadataURL: "http://127.0.0.1:9/meta")
        let cache = try ContentCache(config, clock: TickingClock())
        defer { cache.removeDirectory() }
        var fans = GatewayConfig.FanRequests(categories: ["highlights"])
        fans.perClientPerHour = 2
        func post(_ routes: CacheFanRoutes, _ body: String, from client: String = "10.1.2.3:50000") -> HTTPResponse {
            var request = request("POST", "/items", body: body)
            request.client = client
            return routes.request(request)
        }
        let closed = CacheFanRoutes(cache: cache)
        #expect(post(closed, #"{"id":"goal-1","category":"highlights"}"#).status == 403)
        let open = CacheFanRoutes(cache: cache, fans: fans)
        #expect(post(open, #"{"id":"goal-1","category":"full-matches"}"#).status == 403)
        #expect(post(open, #"{"id":"a/b","category":"highlights"}"#).status == 400)
        #expect(post(open, #"{"id":"goal-1"}"#).status == 400)
        let accepted = post(open, #"{"id":"goal-1","category":"highlights"}"#)
        #expect(accepted.status == 202, "\(String(decoding: accepted.body, as: UTF8.self))")
        let entry = try JSONParser.parse(accepted.body)
        #expect(entry["id"] == .string("goal-1") && entry["category"] == .string("highlights") && entry["originURL"] == nil)
        #expect(cache.item("goal-1")?.category == "highlights")
        #expect(post(open, #"{"id":"goal-2","category":"highlights"}"#).status == 202)
        // The allowance is the address's, whatever port (connection) the request came on.
        let limited = post(open, #"{"id":"goal-3","category":"highlights"}"#, from: "10.1.2.3:50001")
        #expect(limited.status == 429 && limited.header("Retry-After") == "1800")
        #expect(cache.item("goal-3") == nil)
        #expect(post(open, #"{"id":"goal-3","category":"highlights"}"#, from: "10.1.2.4:50000").status == 202)
        // An item held in a category fans may not request stays the operator's.
        try cache.insert(CacheItem(id: "final", source: .origin, category: "full-matches", state: .discovered, now: 0))
        #expect(post(open, #"{"id":"final","category":"highlights"}"#, from: "10.9.9.9:1").status == 403)
    }

    @Test func receivedFilesAreStoredLookedUpAndReplaced() throws {
        let cache = try Self.cache()
        defer { cache.removeDirectory() }
        let stored = try cache.store(Self.received("menus", "food/menu.txt", Array("v1".utf8)))
        #expect(stored.size == 2)
        #expect(FileManager.default.contents(atPath: stored.localPath) == Data("v1".utf8))
        let newer = try cache.store(Self.received("menus", "food/menu.txt", Array("v2!".utf8)))
        #expect(cache.lookup(channelID: "menus", path: "food/menu.txt") == newer)
        #expect(cache.lookup(channelID: "menus", path: "other") == nil)
        #expect(cache.files(channelID: "menus").map(\.path) == ["food/menu.txt"])
        #expect(FileManager.default.fileExists(atPath: stored.localPath) == false)
        #expect(cache.item(ContentCache.channelItemID("menus"))?.source == .fileChannel("menus"))
    }

    @Test func evictionTakesTheLeastRecentlyUsedAndNeverALockedItem() throws {
        let cache = try Self.cache(sizeBytes: 1 << 20)
        defer { cache.removeDirectory() }
        let quarter = [UInt8](repeating: 7, count: 300_000)
        _ = try cache.store(Self.received("a", "f", quarter))
        _ = try cache.store(Self.received("b", "f", quarter + [1]))
        _ = try cache.store(Self.received("c", "f", quarter + [2]))
        try cache.update(ContentCache.channelItemID("a")) { $0.locked = true }
        _ = cache.lookup(channelID: "b", path: "f")   // b is now more recent than c
        _ = try cache.store(Self.received("d", "f", quarter + [3]))
        #expect(cache.lookup(channelID: "a", path: "f") != nil)
        #expect(cache.lookup(channelID: "b", path: "f") != nil)
        #expect(cache.lookup(channelID: "c", path: "f") == nil)
        #expect(cache.item(ContentCache.channelItemID("c"))?.state == .discovered)
        // Fans were told, as the SDK tells an app (CacheItemEvent `evicted`).
        #expect(cache.events.fans.recentKinds == ["evicted"])
        #expect(cache.events.fans.recentText.first?.contains(#""id":"file-channel-c","category":"file-channel","state":"discovered""#) == true)
        let tooBig = thrownError(CacheRefusal.self) { try cache.store(Self.received("e", "f", [UInt8](repeating: 0, count: 2 << 20))) }
        #expect(tooBig?.reason.contains("file limit") == true)
    }

    @Test func itemsListFiltersSortsAndActs() throws {
        let cache = try Self.cache()
        defer { cache.removeDirectory() }
        let routes = Routed(cache)
        _ = try cache.store(Self.received("menus", "m.txt", [1, 2, 3]))
        _ = try cache.store(Self.received("maps", "map.txt", [1]))
        var origin = CacheItem(id: "goal", source: .origin, category: "replay", state: .discovered, now: 5)
        origin.locked = false
        try cache.insert(origin)

        func ids(_ query: [String: String]) throws -> [String] {
            let response = try #require(routes.handle(request("GET", "/api/v1/items", query: query)))
            #expect(response.status == 200)
            guard case .array(let items)? = try JSONParser.parse(response.body)["items"] else { return [] }
            return items.compactMap { if case .string(let id)? = $0["id"] { id } else { nil } }
        }
        #expect(try ids(["sort": "id"]) == ["file-channel-maps", "file-channel-menus", "goal"])
        #expect(try ids(["sort": "size", "order": "desc"]) == ["file-channel-menus", "file-channel-maps", "goal"])
        #expect(try ids(["state": "discovered"]) == ["goal"])
        #expect(try ids(["source": "file-channel:maps"]) == ["file-channel-maps"])
        #expect(try ids(["source": "file-channel", "sort": "id"]) == ["file-channel-maps", "file-channel-menus"])
        #expect(try ids(["category": "replay"]) == ["goal"])
        #expect(routes.handle(request("GET", "/api/v1/items", query: ["state": "bogus"]))?.status == 400)
        #expect(routes.handle(request("GET", "/api/v1/items", query: ["sort": "bogus"]))?.status == 400)

        #expect(routes.handle(request("POST", "/api/v1/items/goal/lock"))?.status == 200)
        #expect(cache.item("goal")?.locked == true)
        #expect(routes.handle(request("POST", "/api/v1/items/goal/unlock"))?.status == 200)
        #expect(cache.item("goal")?.locked == false)
        let consumption = routes.handle(request("POST", "/api/v1/items/goal/consumption", body: "{\"startPosition\":3,\"endPosition\":42.5}"))
        #expect(consumption?.status == 200)
        #expect(cache.item("goal")?.consumption.map(\.endPosition) == [42.5])
        #expect(routes.handle(request("POST", "/api/v1/items/goal/consumption", body: "{\"startPosition\":9,\"endPosition\":1}"))?.status == 400)
        // Pausing a cached item is an illegal transition: 409 naming both states.
        let illegal = routes.handle(request("POST", "/api/v1/items/file-channel-menus/pause"))
        #expect(illegal?.status == 409)
        let reason = String(decoding: illegal?.body ?? [], as: UTF8.self)
        #expect(reason.contains("cached cannot become paused"))
        let before = try JSONParser.parse(try #require(routes.handle(request("GET", "/api/v1/cache/policy"))).body)
        #expect(before["usedBytes"] == .number(4))

        #expect(routes.handle(request("POST", "/api/v1/items/file-channel-menus/delete-files"))?.status == 200)
        #expect(cache.item("file-channel-menus")?.state == .discovered)
        #expect(cache.lookup(channelID: "menus", path: "m.txt") == nil)
        #expect(routes.handle(request("DELETE", "/api/v1/items/file-channel-maps"))?.status == 200)
        #expect(cache.item("file-channel-maps")?.state == .deleted)
        #expect(routes.handle(request("GET", "/api/v1/items/nope"))?.status == 404)
        #expect(routes.handle(request("POST", "/api/v1/items/goal/explode"))?.status == 404)
        #expect(routes.handle(request("PUT", "/api/v1/items"))?.status == 405)
        #expect(routes.handle(request("PUT", "/api/v1/items"))?.header("Allow") == "GET, HEAD, POST, OPTIONS")
        #expect(routes.handle(request("GET", "/api/v1/items/goal/pause"))?.header("Allow") == "POST, OPTIONS")
        // Adding by content id needs an origin.
        #expect(routes.handle(request("POST", "/api/v1/items", body: "{\"id\":\"x\"}"))?.status == 409)
        #expect(routes.handle(request("POST", "/api/v1/items", body: "{\"id\":\"a/b\"}"))?.status == 400)
        // Not a cache path: the router's 404 (the daemon's table has the route).
        #expect(routes.handle(request("GET", "/api/v1/channels"))?.status == 404)

        let policy = try JSONParser.parse(try #require(routes.handle(request("GET", "/api/v1/cache/policy"))).body)
        #expect(policy["sizeBytes"] == .number(Double(1 << 20)))
        #expect(policy["usedBytes"] == .number(0))
        #expect(policy["downloadsAllowed"] == .bool(true))
    }

    @Test func aCompletedItemSurvivesARestartAndAnInterruptedOneIsQueuedAgain() throws {
        let directory: String
        do {
            let cache = try Self.cache()
            directory = cache.configuration.directory
            _ = try cache.store(Self.received("menus", "m.txt", [1, 2, 3]))
            var item = CacheItem(id: "goal", source: .origin, state: .queued, now: 1)
            try item.move(to: .downloading)
            try cache.insert(item)
        }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let reopened = try ContentCache(GatewayConfig.Cache(directory: directory))
        #expect(reopened.lookup(channelID: "menus", path: "m.txt")?.size == 3)
        #expect(reopened.item("goal")?.state == .queued)
    }
}
