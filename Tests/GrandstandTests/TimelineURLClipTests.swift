import Foundation
import GrandstandCore
import HTTPClient
import TestSupport
import Testing
@testable import GrandstandDaemon
@testable import GrandstandServices

/// Clips from any URL (docs/inserts.md "Clips from any URL"), through the running daemon and
/// tools/cache-origin/origin.py: an HLS VOD and a progressive MP4 (Tests/Fixtures/mp4) fetched
/// through the cache as items by URL, the MP4 made into an HLS rendition, a timeline pending
/// while they download (202, the fan route 503 + Retry-After), resolving on the cache's item
/// changes, surviving a restart, and failing with the clip's JSON path when the URL does.
@Suite(.serialized) struct TimelineURLClipTests {
    typealias Box = TimelineRoutesTests.Box

    /// The timeline's API object (from `GET /api/v1/timelines`).
    static func timeline(_ box: Box, _ id: String) throws -> JSONValue? {
        guard case .array(let list)? = try JSONParser.parse(try box.call("GET", "/api/v1/timelines").body)["timelines"] else { return nil }
        return list.first { $0["id"] == .string(id) }
    }

    static func waitForState(_ box: Box, _ id: String, _ state: String, timeout: Double = 60) throws -> JSONValue {
        var last: JSONValue?
        try waitFor("timeline \(id) \(state)", timeout: timeout) {
            last = try timeline(box, id)
            return last?["state"] == .string(state) || last?["state"] == .string("failed")
        }
        return try #require(last)
    }

    @Test func hlsAndMP4URLClipsPlayFromTheCacheWithTheOriginGone() throws {
        let box = try Box()
        let origin = box.origin
        try origin.media("clips/clip.mp4", try Fixtures.bytes("mp4/clip.mp4"))
        let hls = "\(origin.base)/media/vod/master.m3u8", mp4 = "\(origin.base)/media/clips/clip.mp4"
        // The MP4's 2..3.5 s (its 2..4 s segment: 50 frames), the HLS VOD whole (4 s, 100
        // frames), the cached item whole (100 frames). The MP4 (audio and video) comes first:
        // ffprobe 5.1 crashes when an audio stream appears part way through an HLS playlist.
        let body = #"{"id":"mixed","clips":[{"url":"\#(mp4)","begin":2,"end":3.5},{"url":"\#(hls)"},{"item":"vod"}]}"#
        let created = try box.call("POST", "/api/v1/timelines", body)
        #expect(created.status == 202 || created.status == 201, "\(created.text)")
        let ready = try Self.waitForState(box, "mixed", "ready")
        #expect(ready["state"] == .string("ready"), "\(ready.encoded)")
        #expect(ready["mainDurationSeconds"] == .number(10))
        guard case .array(let clips)? = ready["clips"] else { Issue.record("no clips"); return }
        #expect(clips[0]["item"] == .string(CacheItem.urlItemID(mp4)) && clips[0]["state"] == .string("ready"))
        #expect(clips[0]["kept"]?["begin"] == .number(2) && clips[0]["kept"]?["end"] == .number(4))

        // The MP4 item holds its file and the rendition made from it.
        let cache = try #require(box.daemon.cache)
        let item = try #require(cache.item(CacheItem.urlItemID(mp4)))
        #expect(item.source == .url && item.state == .cached && item.originURL == mp4)
        #expect(Set(item.files.map(\.path)) == ["clip.mp4", "hls/index.m3u8", "hls/seg0.ts", "hls/seg1.ts", "hls/seg2.ts"])

        // The URL cached already: another timeline naming it is ready at once (201).
        let second = try box.call("POST", "/api/v1/timelines", #"{"id":"again","clips":[{"url":"\#(mp4)","end":1}]}"#)
        #expect(second.status == 201, "\(second.text)")
        #expect(try JSONParser.parse(second.body)["state"] == .string("ready"))

        let playlist = try box.fan.get("/timelines/mixed.m3u8")
        let uris = TimelineRoutesTests.summary(playlist.text).uris
        let fromTheBox = uris.allSatisfy { $0.hasPrefix("/items/") }
        #expect(uris.count == 9 && fromTheBox, "\(uris)")
        #expect(uris.contains("/items/\(item.id)/hls/seg1.ts") && !uris.contains("/items/\(item.id)/hls/seg0.ts"))
        let url = "http://127.0.0.1:\(box.fanPort)/timelines/mixed.m3u8"
        let frames = try TimelineRoutesTests.frames(url)
        #expect(frames == 250, "\(playlist.text)")
        // Everything came through the cache: with the origin gone it still plays.
        origin.stop()
        let offline = try TimelineRoutesTests.frames(url)
        #expect(offline == 250)
    }

    @Test func aTimelineWaitsForItsURLsAcrossARestartThenPlays() throws {
        let box = try Box()
        try box.origin.media("clips/clip.mp4", try Fixtures.bytes("mp4/clip.mp4"))
        // `stall/`: the origin sends half the file, then nothing until the cache's 3 s timeout and retry.
        let slow = "\(box.origin.base)/media/stall/clips/clip.mp4"
        let created = try box.call("POST", "/api/v1/timelines", #"{"id":"later","clips":[{"url":"\#(slow)"},{"item":"vod"}]}"#)
        #expect(created.status == 202, "\(created.text)")
        let answer = try JSONParser.parse(created.body)
        #expect(answer["state"] == .string("pending"))
        guard case .array(let waiting)? = answer["waiting"] else { Issue.record("no waiting: \(created.text)"); return }
        #expect(waiting.first?["path"] == .string("$.clips[0]") && waiting.first?["item"] == .string(CacheItem.urlItemID(slow)))
        let itemState = waiting.first?["itemState"] ?? .null
        let downloading: [JSONValue] = [.string("metadata-not-received"), .string("downloading"), .string("queued")]
        #expect(downloading.contains(itemState), "\(itemState)")
        // An insert naming a URL waits too, and keeps its timeline pending.
        let insert = try box.call("POST", "/api/v1/inserts",
                                  #"{"id":"ad","timeline":"later","position":"preRoll","clip":{"url":"\#(slow)","end":1}}"#)
        #expect(insert.status == 202, "\(insert.text)")
        let fan = try box.fan.get("/timelines/later.m3u8")
        #expect(fan.status == 503 && fan.headers["retry-after"] == "5", "\(fan.text)")
        let listed = try JSONParser.parse(try box.fan.get("/timelines.json").body)["timelines"]
        #expect(listed?.encoded.contains(#""state":"pending""#) == true, "\(listed?.encoded ?? "")")
        let stored = try String(contentsOfFile: box.config.stateDirectory + "/timelines.json", encoding: .utf8)
        #expect(stored.contains(#""state":"pending""#))

        // Restarted mid-download: the schedule comes back pending and resolves when the item is cached.
        try box.restart()
        let ready = try Self.waitForState(box, "later", "ready")
        #expect(ready["state"] == .string("ready"), "\(ready.encoded)")
        let url = "http://127.0.0.1:\(box.fanPort)/timelines/later.m3u8"
        // The pre-roll (the MP4's first 2 s segment: 50 frames), the MP4 (150), the item (100).
        #expect(try TimelineRoutesTests.frames(url) == 300)
    }

    @Test func aURLThatFailsFailsItsTimelineWithTheClipsPath() throws {
        let box = try Box()
        let origin = box.origin
        try origin.media("clips/notes.bin", cacheTestBytes(3000))
        var broken = try Fixtures.bytes("mp4/clip.mp4")
        broken[16_030] ^= 0xFF   // inside the moov's header: its size no longer fits the file
        try origin.media("clips/broken.mp4", broken)
        let cases: [(String, String)] = [("gone", "\(origin.base)/media/clips/missing.mp4"), ("notmedia", "\(origin.base)/media/clips/notes.bin"),
                                         ("broken", "\(origin.base)/media/clips/broken.mp4")]
        for (id, url) in cases {
            let created = try box.call("POST", "/api/v1/timelines", #"{"id":"\#(id)","clips":[{"item":"vod"},{"url":"\#(url)"}]}"#)
            #expect(created.status == 202 || created.status == 400, "\(created.text)")
            if created.status == 400 {
                #expect(try box.paths(created) == ["$.clips[1].url"])
                continue
            }
            let failed = try Self.waitForState(box, id, "failed")
            guard case .array(let errors)? = failed["errors"] else { Issue.record("\(id): \(failed.encoded)"); continue }
            #expect(errors.first?["path"] == .string("$.clips[1].url"), "\(failed.encoded)")
            let fan = try box.fan.get("/timelines/\(id).m3u8")
            #expect(fan.status == 502, "\(fan.text)")
        }
        let reasons = try cases.map { try Self.timeline(box, $0.0)?["errors"]?.encoded ?? "" }
        #expect(reasons[0].contains("http-error") && reasons[0].contains("404"), "\(reasons[0])")
        #expect(reasons[1].contains("neither an HLS playlist"), "\(reasons[1])")
        #expect(reasons[2].contains("item-corrupted") && reasons[2].contains("not a playable MP4"), "\(reasons[2])")
        // Refused at once: a bad URL, and a URL with a playlist.
        let bad = try box.call("POST", "/api/v1/timelines", #"{"id":"bad","clips":[{"url":"ftp://x/y.mp4"},{"url":"http://h/a.m3u8","playlist":"b.m3u8"}]}"#)
        #expect(bad.status == 400)
        #expect(try box.paths(bad) == ["$.clips[0].url", "$.clips[1].playlist"])
    }
}
