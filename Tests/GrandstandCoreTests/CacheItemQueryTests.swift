import Testing
@testable import GrandstandCore

/// Which items a list or batch means: several ids (and which are missing), an origin URL (the
/// item's master, one of its files), and the filters viewed, saved, type, state, source,
/// category; bad parameters name their field.
@Suite struct CacheItemQueryTests {
    static func items() -> [CacheItem] {
        var clip = CacheItem(id: "clip", source: .origin, category: "replay", state: .cached, now: 1)
        clip.type = "video"
        clip.locked = true
        clip.files = [CacheFile(path: "clip.mp4", size: 3, sha256: "a", storedNanoseconds: 1)]
        var vod = CacheItem(id: "vod", source: .origin, category: "replay", state: .partiallyCached, now: 2)
        vod.type = "hls"
        vod.originURL = "http://cdn.example/vod/master.m3u8"
        vod.files = [CacheFile(path: "v0/seg1.ts", size: 9, sha256: "b", storedNanoseconds: 2),
                     CacheFile(path: "thumbnail/t.jpg", size: 1, sha256: "c", storedNanoseconds: 2)]
        vod.firstServedNanoseconds = 7
        var menu = CacheItem(id: "file-channel-menus", source: .fileChannel("menus"), category: "file-channel", state: .cached, now: 3)
        menu.type = "file"
        menu.consumption = [ConsumptionRecord(startPosition: 0, endPosition: 1, recordedNanoseconds: 4)]
        var byURL = CacheItem(id: "url-1", source: .url, category: "timeline", state: .queued, now: 4)
        byURL.originURL = "http://other.example/a.mp4"
        byURL.locked = true
        return [menu, vod, clip, byURL]
    }

    static func ids(_ parameters: [String: String]) throws -> [String] {
        try CacheItemQuery(parameters).apply(items()) { $0.id == "clip" ? ["http://cdn.example/media/clip.mp4?sig=1"] : [] }.map(\.id)
    }

    static let cases: [([String: String], [String])] = [
        (["ids": "vod,nope,clip"], ["clip", "vod"]),
        (["url": "http://other.example/a.mp4?sig=2"], ["url-1"]),
        (["source": "url"], ["url-1"]),
        (["url": "http://cdn.example/vod/master.m3u8"], ["vod"]),
        (["url": "http://cdn.example/vod/v0/seg1.ts"], ["vod"]),
        (["url": "http://cdn.example/media/clip.mp4"], ["clip"]),
        (["url": "http://cdn.example/vod/thumbnail/t.jpg"], []),
        (["viewed": "false"], ["clip", "url-1"]),
        (["viewed": "true"], ["vod", "file-channel-menus"]),
        (["saved": "true"], ["clip", "url-1"]),
        (["saved": "false", "sort": "id"], ["file-channel-menus", "vod"]),
        (["type": "hls,video"], ["clip", "vod"]),
        (["state": "cached", "source": "origin"], ["clip"]),
        (["source": "file-channel"], ["file-channel-menus"]),
        (["category": "file-channel"], ["file-channel-menus"]),
        (["sort": "size", "order": "desc"], ["vod", "clip", "url-1", "file-channel-menus"]),
    ]

    @Test(arguments: cases)
    func itemsAreFoundByIdsURLAndFilters(_ parameters: [String: String], _ expected: [String]) throws {
        #expect(try Self.ids(parameters) == expected)
    }

    @Test func missingIdsAreNamed() throws {
        let query = try CacheItemQuery(["ids": "vod,nope,clip,gone"])
        #expect(query.missing(in: Self.items()) == ["nope", "gone"])
        #expect(try CacheItemQuery([:]).missing(in: Self.items()).isEmpty)
    }

    static let badCases: [([String: String], String)] = [
        (["viewed": "no"], "viewed"), (["saved": "1"], "saved"), (["state": "bogus"], "state"), (["sort": "title"], "sort"),
        (["order": "up"], "order"), (["url": "clip.mp4"], "url"), (["ids": ","], "ids"),
    ]

    @Test(arguments: badCases)
    func badParametersNameTheirField(_ parameters: [String: String], _ field: String) {
        do {
            _ = try CacheItemQuery(parameters)
            Issue.record("accepted \(parameters)")
        } catch {
            #expect(error.field == field)
        }
    }
}
