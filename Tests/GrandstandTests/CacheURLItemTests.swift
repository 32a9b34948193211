import Foundation
import GrandstandCore
import Synchronization
import TestSupport
import Testing
@testable import GrandstandDaemon
@testable import GrandstandServices

/// Items by URL (docs/cache.md "Items by URL") through the daemon's management API and
/// tools/cache-origin/origin.py: an MP4 stored with the HLS rendition made from it, an HLS VOD
/// through the HLS path, both played by ffprobe from the fan listener; a stable id, the item
/// events, the per-item token hook, refusals.
@Suite(.serialized) struct CacheURLItemTests {
    static func post(_ port: UInt16, _ body: String) throws -> (status: Int, json: JSONValue?) {
        let response = try RawHTTPClient(port: port).send(Array(("POST /api/v1/items HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer secret\r\n" +
                                                                 "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body).utf8))
        return (response.status, try? JSONParser.parse(response.body))
    }

    static func frames(_ url: String, _ selector: String = "v:0") throws -> String {
        try runCommand(["ffprobe", "-v", "error", "-count_frames", "-select_streams", selector, "-show_entries",
                        "stream=codec_name,nb_read_frames", "-of", "csv=p=0", url])
    }

    @Test func anMP4AndAnHLSVODAreFetchedByURLAndPlayFromTheBox() throws {
        let origin = try CacheOrigin()
        var stopped = false
        defer { if !stopped { origin.stop() } }
        try origin.media("clips/clip.mp4", try Fixtures.bytes("mp4/clip.mp4"))
        let daemon = try CacheHLSTests.daemon(origin)
        try daemon.start()
        defer { daemon.stop(); daemon.cache?.removeDirectory() }
        let cache = try #require(daemon.cache)
        let status = try #require(daemon.status)
        let kinds = Mutex<[String]>([])
        let mp4 = "\(origin.base)/media/token/clips/clip.mp4", hls = "\(origin.base)/media/vod/master.m3u8"
        let mp4ID = CacheItem.urlItemID(mp4), hlsID = CacheItem.urlItemID(hls)
        cache.events.observe { event in if event.id == mp4ID { kinds.withLock { $0.append(event.kind.rawValue) } } }

        // The token hook (origin.py's token/ path wants both) as for any origin item.
        let added = try Self.post(status.management.port, #"{"url":"\#(mp4)","category":"clips","headers":{"X-Item-Token":"t1"},"query":"item=1"}"#)
        #expect(added.status == 202)
        #expect(added.json?["id"] == .string(mp4ID) && added.json?["source"] == .string("url"))
        #expect(added.json?["state"] == .string("metadata-not-received"))
        let item = try cache.waitForItem(mp4ID, [.cached, .failed])
        #expect(item.state == .cached, "\(item.errorDetail ?? "")")
        #expect(Set(item.files.map(\.path)) == ["clip.mp4", "hls/index.m3u8", "hls/seg0.ts", "hls/seg1.ts", "hls/seg2.ts"])
        #expect(item.category == "clips" && item.originURL == mp4)
        // The item is cached before its event reaches observers (they are called after the store's lock).
        try waitFor("the item's downloaded event") { kinds.withLock { $0.contains("downloaded") } }
        let seen = kinds.withLock { $0 }.filter { $0 != "progress" }
        #expect(seen == ["discovered", "download-started", "downloaded"])
        let tokened = origin.requests.contains { $0.hasPrefix("/media/token/clips/clip.mp4") && $0.contains(" item=1 ") && $0.contains(" t1 ") }
        #expect(tokened)
        // The same URL is the same item.
        let again = try Self.post(status.management.port, #"{"url":"\#(mp4)"}"#)
        #expect(again.json?["id"] == .string(mp4ID) && again.json?["state"] == .string("cached"))

        #expect(try Self.post(status.management.port, #"{"url":"\#(hls)"}"#).status == 202)
        let vod = try cache.waitForItem(hlsID, [.cached, .failed])
        #expect(vod.state == .cached, "\(vod.errorDetail ?? "")")
        #expect(Set(vod.files.map(\.path)).isSuperset(of: ["master.m3u8", "v0/index.m3u8", "v0/seg0.ts", "v0/seg3.ts"]))

        // Played from the box, the origin gone.
        origin.stop()
        stopped = true
        let fan = "http://127.0.0.1:\(status.fan.port)/items"
        let video = try Self.frames("\(fan)/\(mp4ID)/hls/index.m3u8")
        #expect(video.contains("h264,150"), "\(video)")
        let audio = try Self.frames("\(fan)/\(mp4ID)/hls/index.m3u8", "a:0")
        #expect(audio.contains("aac,131"), "\(audio)")
        let whole = try Self.frames("\(fan)/\(hlsID)/master.m3u8")
        #expect(whole.contains("h264,100"), "\(whole)")

        // Refused: not http(s).
        #expect(try Self.post(status.management.port, #"{"url":"file:///etc/passwd"}"#).status == 400)
    }
}
