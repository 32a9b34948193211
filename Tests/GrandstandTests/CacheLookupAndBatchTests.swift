import Foundation
import GrandstandCore
import TestSupport
import Testing
@testable import GrandstandDaemon
@testable import GrandstandServices

/// What the download-to-go SDK gives an app, with curl on the daemon: items found by several
/// ids and by origin URL, filtered by viewed, saved, type (and state, category, source), with
/// their title, type, thumbnail and share URL (management API and fans' `/items.json`, the
/// share page and thumbnail served), and pause/resume/delete in batches with a result per id.
@Suite(.serialized) struct CacheLookupAndBatchTests {
    static func strings(_ value: JSONValue?) -> [String] {
        guard case .array(let list)? = value else { return [] }
        return list.compactMap { if case .string(let text) = $0 { text } else { nil } }
    }

    @Test func itemsAreFoundByIdsURLAndFiltersShowTheirTitleAndShareAndActInBatches() throws {
        let origin = try CacheOrigin()
        defer { origin.stop() }
        let clip = cacheTestBytes(40_000, seed: 3), thumb = cacheTestBytes(1_500, seed: 8), stall = cacheTestBytes(200_000, seed: 4)
        try origin.media("clip-a.mp4", clip)
        try origin.media("thumbs/a.jpg", thumb)
        try origin.media("b.bin", cacheTestBytes(100))
        try origin.media("s.bin", stall)
        try origin.metadata("clip-a", #"""
            {"title":"Goal <of> the day","type":"video","thumbnail":"thumbs/a.jpg","category":"replay",
             "files":[{"url":"clip-a.mp4","path":"clip-a.mp4","size":40000}]}
            """#)
        try origin.metadata("doc-b", #"{"category":"menus","files":[{"url":"b.bin","path":"b.bin"}]}"#)
        try origin.metadata("vod", #"{"title":"Highlights","category":"replay","hls":"vod/master.m3u8"}"#)
        try origin.metadata("stall-1", #"{"files":[{"url":"stall/s.bin","path":"s.bin","size":200000}]}"#)
        // stall-1's origin holds its first answer half sent for 30 s: with a longer idle timeout
        // than that, it stays downloading until the batch pauses it.
        let daemon = try CacheCurl.daemon(origin) { $0.origin?.timeoutSeconds = 60 }
        try daemon.start()
        defer { daemon.stop(); daemon.cache?.removeDirectory() }
        let cache = try #require(daemon.cache)
        let api = try CacheCurl(daemon)
        func add(_ id: String) throws { #expect(try api.post("/api/v1/items", #"{"id":"\#(id)"}"#).status == 202) }
        try add("clip-a")
        #expect(try cache.waitForItem("clip-a", [.cached, .failed]).state == .cached)
        try add("stall-1")
        try waitFor("stall-1 downloading", timeout: 30) { origin.requests.contains { $0.hasPrefix("/media/stall/s.bin") } }
        // Batches: a result per id (200 with the state, 409 with the reason, 404), by ids or by the list's filters.
        let paused = try #require(try api.post("/api/v1/items/batch", #"{"action":"pause","ids":["stall-1","clip-a","nope"]}"#).json)
        guard case .array(let rows)? = paused["results"], rows.count == 3 else { Issue.record("\(paused)"); return }
        #expect(rows[0]["status"] == .number(200) && rows[0]["state"] == .string("paused"))
        #expect(rows[1]["status"] == .number(409) && rows[1]["reason"]?.encoded.contains("cached cannot become paused") == true)
        #expect(rows[2]["status"] == .number(404) && paused["ok"] == .number(1) && paused["failed"] == .number(2))
        #expect(cache.item("stall-1")?.state == .paused)
        for id in ["doc-b", "vod"] {
            try add(id)
            #expect(try cache.waitForItem(id, [.cached, .failed]).state == .cached, "\(id)")
        }

        // Title, type, thumbnail and share URL on the management API.
        let a = try #require(try api.get("/api/v1/items/clip-a").json)
        #expect(a["title"] == .string("Goal <of> the day") && a["type"] == .string("video"))
        #expect(a["thumbnail"] == .string("/items/clip-a/thumbnail/a.jpg") && a["share"] == .string("/items/clip-a"))
        #expect(a["play"] == .string("/items/clip-a/clip-a.mp4") && a["viewed"] == .bool(false) && a["saved"] == .bool(false))
        #expect(try api.get("/api/v1/items/vod").json?["type"] == .string("hls"))
        #expect(try api.get("/api/v1/items/doc-b").json?["type"] == .string("file"))
        #expect(try api.get("/api/v1/items/doc-b").json?["thumbnail"] == .null)

        // Several ids (the missing named), and origin URLs: a progressive file, an HLS master, one of its segments.
        let some = try #require(try api.get("/api/v1/items?ids=vod,nope,clip-a&sort=id").json)
        #expect(Self.strings(some["missing"]) == ["nope"])
        #expect(try api.ids("ids=vod,nope,clip-a&sort=id") == ["clip-a", "vod"])
        #expect(try api.ids("url=\(origin.base)/media/clip-a.mp4") == ["clip-a"])
        #expect(try api.ids("url=\(origin.base)/media/thumbs/a.jpg") == ["clip-a"])
        #expect(try api.ids("url=\(origin.base)/media/vod/master.m3u8") == ["vod"])
        #expect(try api.ids("url=\(origin.base)/media/vod/v0/seg1.ts") == ["vod"])
        #expect(try api.ids("url=\(origin.base)/media/other.mp4").isEmpty)
        #expect(try api.get("/api/v1/items?url=clip-a.mp4").status == 400)

        // Filters: type, viewed (consumption or a fan served its media, not its thumbnail), saved (locked).
        #expect(try api.ids("type=hls") == ["vod"])
        #expect(try api.ids("type=video,file&sort=id") == ["clip-a", "doc-b", "stall-1"])
        #expect(try api.ids("viewed=false&sort=id") == ["clip-a", "doc-b", "stall-1", "vod"])
        #expect(try api.fanGet("/items/clip-a/thumbnail/a.jpg").body == String(decoding: thumb, as: UTF8.self))
        #expect(try api.ids("viewed=true").isEmpty, "a thumbnail is not a view")
        #expect(try api.fanGet("/items/clip-a/clip-a.mp4").status == 200)
        #expect(try api.post("/api/v1/items/doc-b/consumption", #"{"startPosition":0,"endPosition":3}"#).status == 200)
        #expect(try api.ids("viewed=true&sort=id") == ["clip-a", "doc-b"])
        #expect(try api.ids("viewed=false&sort=id") == ["stall-1", "vod"])
        #expect(try api.post("/api/v1/items/vod/lock", "").status == 200)
        #expect(try api.ids("saved=true") == ["vod"])
        #expect(try api.ids("saved=false&category=replay") == ["clip-a"])
        let bad = try api.get("/api/v1/items?viewed=maybe")
        #expect(bad.status == 400 && bad.body.hasPrefix("viewed:"), "\(bad.body)")

        // Fans: the same title, type, thumbnail and share URL; the share page plays the item.
        let fans = try #require(try api.fanGet("/items.json").json)
        guard case .array(let listed)? = fans["items"], let entry = listed.first(where: { $0["id"] == .string("clip-a") }) else {
            Issue.record("no fan entry: \(fans)")
            return
        }
        #expect(entry["title"] == a["title"] && entry["type"] == .string("video") && entry["share"] == .string("/items/clip-a"))
        #expect(entry["thumbnail"] == .string("/items/clip-a/thumbnail/a.jpg") && entry["play"] == .string("/items/clip-a/clip-a.mp4"))
        #expect(listed.first { $0["id"] == .string("stall-1") }?["play"] == .null, "only its metadata so far: nothing to play")
        let page = try api.fanGet("/items/clip-a")
        #expect(page.status == 200 && page.body.contains("<title>Goal &lt;of&gt; the day</title>"), "\(page.body)")
        #expect(page.body.contains(#"src="/items/clip-a/clip-a.mp4""#) && page.body.contains(#"poster="/items/clip-a/thumbnail/a.jpg""#))
        #expect(try api.fanGet("/items/stall-1").status == 404)

        // Batches (resumed and deleted below).
        let resumed = try #require(try api.post("/api/v1/items/batch", #"{"action":"resume","filter":{"state":"paused"}}"#).json)
        #expect(resumed["ok"] == .number(1))
        let finished = try cache.waitForItem("stall-1", [.cached, .failed])
        #expect(finished.state == .cached && finished.file("s.bin")?.sha256 == SHA256.hex(stall))
        let deleted = try #require(try api.post("/api/v1/items/batch", #"{"action":"delete","filter":{"type":["hls","file"]}}"#).json)
        #expect(deleted["ok"] == .number(3))
        #expect(["vod", "doc-b", "stall-1"].allSatisfy { cache.item($0)?.state == .deleted } && cache.item("clip-a")?.state == .cached)
        let refusals = [(#"{"action":"explode","ids":["a"]}"#, "$.action:"), (#"{"action":"pause","ids":[]}"#, "$.ids:"),
                        (#"{"action":"pause"}"#, "$: give either"), (#"{"action":"pause","filter":{"state":"bogus"}}"#, "$.filter.state:"),
                        (#"{"action":"pause","filter":{"colour":"red"}}"#, "$.filter.colour:"), (#"{"action":"pause","ids":[1]}"#, "$.ids[0]:")]
        for (body, field) in refusals {
            let answer = try api.post("/api/v1/items/batch", body)
            #expect(answer.status == 400 && answer.body.hasPrefix(field), "\(body): \(answer.body)")
        }
    }
}
