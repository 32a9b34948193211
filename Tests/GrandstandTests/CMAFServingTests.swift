import Foundation
import GrandstandCore
import TestSupport
import Testing
@testable import GrandstandServing

/// CMAF and DASH over a real listener, fed from the sample file (ServingTests.Fed): the CMAF
/// live playlist and its header, the TS playlist beside it, the DASH manifest, a segment sent
/// chunk by chunk while it is made (curl reads the chunked body), and the gateway's clock.
struct CMAFServingTests {
    typealias Fed = ServingTests.Fed

    @Test func cmafPlaylistHeaderAndTheTSPlaylistBesideIt() throws {
        let fed = try Fed()
        defer { fed.daemon.stop() }
        fed.feed { fed.playlist().contains("seg2.m4s") }
        let live = fed.playlist()
        #expect(live.contains("#EXT-X-MAP:URI=\"init0.mp4\"\n") && live.contains(".m4s\"") && !live.contains(".ts"), "\(live)")
        let header = try #require(fed.get("/channels/cam/init0.mp4"))
        #expect(header.status == 200 && header.headers["content-type"] == "video/mp4")
        #expect(String(decoding: header.body[4..<8], as: UTF8.self) == "ftyp")
        let segment = try #require(fed.get("/channels/cam/seg1.m4s"))
        #expect(segment.status == 200 && String(decoding: segment.body[4..<8], as: UTF8.self) == "moof")
        let video = try #require(fed.get("/channels/cam/seg1.t1.m4s")), audio = try #require(fed.get("/channels/cam/seg1.t2.m4s"))
        #expect(video.status == 200 && audio.status == 200 && video.body.count + audio.body.count < segment.body.count + 200)
        #expect(fed.get("/channels/cam/init0.t2.mp4")?.status == 200)
        #expect(fed.get("/channels/cam/init0.t3.mp4")?.status == 404 && fed.get("/channels/cam/init9.mp4")?.status == 404)
        #expect(fed.get("/channels/cam/seg1.t9.m4s")?.status == 404)
        #expect(fed.playlist("live-ts.m3u8").contains("seg1.ts") && !fed.playlist("live-ts.m3u8").contains("EXT-X-MAP"))
        #expect(fed.playlist("rewind-ts.m3u8?offset=-20").contains(".ts\n"))

        let list = try JSONParser.parse(try #require(fed.get("/channels.json")).body)
        let cam = try #require(DemoEndToEndTests.item(list, 0))
        #expect(cam["format"] == .string("cmaf") && cam["codecs"] == .string("avc1.4d401e,mp4a.40.2"), "\(cam)")
        #expect(cam["playlistTS"] == .string("/channels/cam/live-ts.m3u8") && cam["dash"] == .string("/channels/cam/live.mpd"))
    }

    @Test func dashManifestAndASegmentSentWhileItIsMade() throws {
        let fed = try Fed()
        defer { fed.daemon.stop() }
        fed.feed { fed.playlist().contains("seg2.m4s") }
        let mpd = try #require(fed.get("/channels/cam/live.mpd"))
        #expect(mpd.status == 200 && mpd.headers["content-type"] == "application/dash+xml")
        let text = mpd.text
        for expected in ["type=\"dynamic\"", "availabilityStartTime=\"1970-01-01T00:00:00Z\"", "contentType=\"video\"",
                         "contentType=\"audio\"", "media=\"seg$Number$.t1.m4s\"", "availabilityTimeComplete=\"false\"",
                         "<UTCTiming schemeIdUri=\"urn:mpeg:dash:utc:http-iso:2014\" value=\"/time\"/>", "<Latency"] {
            #expect(text.contains(expected), "\(expected) missing from \(text)")
        }

        // The next segment: asked for before it starts, its body follows it part by part.
        let next = try #require(DemoEndToEndTests.preloadHint(fed.playlist())).msn + 1
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("gs-cmaf-stream-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let url = "http://127.0.0.1:\(fed.port)/channels/cam/seg\(next).t1.m4s"
        let download = Thread.detachNewThreadResult { (try? runCommand(["curl", "-s", "-f", "-o", file, "-w", "%{http_code}", url])) ?? "failed" }
        try fed.waitForHeldStream()
        fed.feed { download.isDone }
        #expect(download.wait() == "200")
        let streamed = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
        let whole = try #require(fed.get("/channels/cam/seg\(next).t1.m4s"))
        #expect(whole.status == 200 && !streamed.isEmpty && streamed == whole.body, "\(streamed.count) vs \(whole.body.count) bytes")
        // Far ahead is not followed.
        #expect(fed.get("/channels/cam/seg\(next + 5).t1.m4s")?.status == 404)
    }

    @Test func theGatewayClock() throws {
        let fed = try Fed()
        defer { fed.daemon.stop() }
        let reply = try #require(fed.get("/time"))
        #expect(reply.status == 200 && reply.headers["cache-control"] == "no-store")
        let time = try #require(CatalogDate.parse(reply.text), "\(reply.text)")
        #expect(reply.text.hasSuffix("Z") && abs(time.seconds - Date().timeIntervalSince1970) < 5)
    }
}
