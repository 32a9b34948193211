import Foundation
import GrandstandCore
import TestSupport
import Testing
@testable import GrandstandDaemon
@testable import GrandstandIngest
@testable import GrandstandOperations
@testable import GrandstandServices
@testable import GrandstandServing
@testable import GrandstandStreamer

/// The fan routes over a real listener, fed by the sample file as the ingest sink would be (no
/// packet capture, so this runs everywhere, qemu-user included): blocking reload answered when
/// the part is published, its deadline, 400/404 cases, thumbnails, data messages, removal.
struct ServingTests {
    /// A daemon without capture and a video channel "cam" fed from tools/samples/clean.ts.
    final class Fed: @unchecked Sendable {
        // @unchecked: the feed runs on the test thread; other threads only call `get` (reads `port`).
        let daemon: Daemon
        let port: UInt16
        let bytes: [UInt8]
        var offset = 0
        var time: Int64 = 1_700_000_000_000_000_000

        /// Waits until `count` requests are held on the channel (blocking reloads, hinted parts).
        func waitForHeldRequests(_ count: Int64) throws {
            try waitFor("\(count) held requests", timeout: 20) {
                daemon.gateway.videoChannel("cam")?.summary.statistics.first { $0.0 == "hls_blocked_requests" }?.1 == count
            }
        }

        /// Waits until a CMAF segment body is being sent while it is made (LL-DASH).
        func waitForHeldStream() throws {
            try waitFor("a segment stream", timeout: 20) {
                daemon.gateway.videoChannel("cam")?.summary.statistics.first { $0.0 == "hls_segment_streams" }?.1 == 1
            }
        }

        init() throws {
            daemon = Daemon(config: try DaemonTests.config(), board: nil)
            try daemon.start()
            port = try #require(daemon.status?.fan.port)
            bytes = Array(try Data(contentsOf: URL(fileURLWithPath: SendEndToEndTests.sample)))
            let channel = Channel(id: "cam", name: "Cam", kind: .video, group: nil, port: 5000, fec: .none, origin: .config)
            let data = Channel(id: "scores", name: "Scores", kind: .data, group: nil, port: 5002, fec: .none, origin: .config)
            daemon.gateway.handle([.channelsChanged([.added(channel), .added(data)])])
        }

        /// Feeds datagram-sized chunks until `condition` holds (or the file ends).
        func feed(until condition: () -> Bool) {
            while offset < bytes.count, !condition() {
                let end = min(offset + 7 * 188, bytes.count)
                daemon.gateway.handle([.transportStream(channelID: "cam", packets: bytes[offset..<end], timestampNanoseconds: time)])
                offset = end
                time += 1_000_000
            }
        }

        func get(_ target: String) -> RawHTTPClient.Reply? { try? RawHTTPClient(port: port).get(target) }

        /// `live.m3u8` (CMAF), or another playlist of the channel (`live-ts.m3u8`).
        func playlist(_ name: String = "live.m3u8") -> String {
            get("/channels/cam/" + name).map { String(decoding: $0.body, as: UTF8.self) } ?? ""
        }
    }

    @Test func blockingReloadAnswersWhenThePartIsPublished() throws {
        let fed = try Fed()
        defer { fed.daemon.stop() }
        fed.feed { fed.playlist().contains("seg2.m4s") }
        let hint = try #require(DemoEndToEndTests.preloadHint(fed.playlist()))

        // Held while the part is missing: the answer waits for the feed.
        let waiting = Thread.detachNewThreadResult {
            fed.get("/channels/cam/live.m3u8?_HLS_msn=\(hint.msn)&_HLS_part=\(hint.part)")
        }
        let part = Thread.detachNewThreadResult { fed.get("/channels/cam/seg\(hint.msn).\(hint.part).m4s") }
        try fed.waitForHeldRequests(2)
        #expect(!waiting.isDone && !part.isDone)
        fed.feed { waiting.isDone && part.isDone }
        let answered: RawHTTPClient.Reply?? = waiting.wait()
        let reply = answered ?? nil
        #expect(reply?.status == 200)
        #expect(reply.map { String(decoding: $0.body, as: UTF8.self) }?.contains("URI=\"seg\(hint.msn).\(hint.part).m4s\"") == true)
        let partAnswer: RawHTTPClient.Reply?? = part.wait()
        #expect((partAnswer ?? nil)?.status == 200)
        #expect((partAnswer ?? nil)?.headers["content-type"] == "video/mp4")

        // Refusals and misses.
        #expect(fed.get("/channels/cam/live.m3u8?_HLS_msn=\(hint.msn + 4)")?.status == 400)
        #expect(fed.get("/channels/cam/live.m3u8?_HLS_part=1")?.status == 400)
        #expect(fed.get("/channels/cam/live.m3u8?_HLS_msn=-1")?.status == 400)
        #expect(fed.get("/channels/cam/rewind.m3u8?offset=abc")?.status == 400)
        #expect(fed.get("/channels/cam/seg0.99.ts")?.status == 404)
        #expect(fed.get("/channels/cam/x.m3u8")?.status == 404)
        #expect(fed.get("/channels/cam")?.status == 404)
        #expect(fed.get("/channels/other/live.m3u8")?.status == 404)
        #expect(fed.get("/channels/scores/live.m3u8")?.status == 404)
    }

    @Test func aHeldReloadTimesOutWith503AfterThreeTargetDurations() throws {
        let fed = try Fed()
        defer { fed.daemon.stop() }
        fed.feed { fed.playlist().contains("seg1.m4s") }
        let hint = try #require(DemoEndToEndTests.preloadHint(fed.playlist()))
        let started = Date()
        let reply = fed.get("/channels/cam/live.m3u8?_HLS_msn=\(hint.msn)&_HLS_part=\(hint.part)")
        let waited = Date().timeIntervalSince(started)
        #expect(reply?.status == 503)
        #expect(waited >= 5.9 && waited < 7.5, "waited \(waited) s")
    }

    @Test func thumbnailsDataMessagesAndRemoval() throws {
        let fed = try Fed()
        defer { fed.daemon.stop() }
        fed.feed { fed.playlist("live-ts.m3u8").contains("seg2.ts") }
        fed.daemon.gateway.handle([.dataMessage(channelID: "scores", payload: Array("{\"home\":1}".utf8)[...],
                                                timestampNanoseconds: 1_700_000_000_000_000_000)])
        try waitFor("a thumbnail", timeout: 8) { fed.get("/channels/cam/thumbnail.jpg")?.status == 200 }
        let jpeg = try #require(fed.get("/channels/cam/thumbnail.jpg"))
        #expect(jpeg.headers["content-type"] == "image/jpeg")
        #expect(Array(jpeg.body.prefix(2)) == [0xFF, 0xD8])
        let list = try JSONParser.parse(try #require(fed.get("/channels.json")).body)
        #expect(DemoEndToEndTests.item(list, 0)?["thumbnail"] == .string("/channels/cam/thumbnail.jpg"))
        #expect(DemoEndToEndTests.item(list, 0)?["live"] == .bool(true))
        let messages = try JSONParser.parse(try #require(fed.get("/channels/scores/messages.json")).body)
        #expect(DemoEndToEndTests.item(messages, 0)?["text"] == .string("{\"home\":1}"))
        #expect(DemoEndToEndTests.item(messages, 0)?["timeMilliseconds"] == .number(1_700_000_000_000))

        // Removed: the playlist ends and the channel leaves the list.
        let channel = Channel(id: "cam", name: "Cam", kind: .video, group: nil, port: 5000, fec: .none, origin: .config)
        fed.daemon.gateway.handle([.channelsChanged([.removed(channel, reason: .deleted)])])
        #expect(fed.playlist().hasSuffix("#EXT-X-ENDLIST\n"))
        let after = try JSONParser.parse(try #require(fed.get("/channels.json")).body)
        #expect(DemoEndToEndTests.item(after, 0)?["id"] == .string("scores"))
    }
}

extension Thread {
    /// The result of a body run on its own thread.
    final class Result<T>: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var finished = false
        private var value: T?
        func finish(_ v: T) { lock.lock(); value = v; finished = true; lock.unlock(); done.signal() }
        var isDone: Bool { lock.lock(); defer { lock.unlock() }; return finished }
        func wait() -> T? { done.wait(); lock.lock(); defer { lock.unlock() }; return value }
    }

    static func detachNewThreadResult<T>(_ body: @escaping @Sendable () -> T) -> Result<T> {
        let result = Result<T>()
        Thread.detachNewThread { result.finish(body()) }
        return result
    }
}
