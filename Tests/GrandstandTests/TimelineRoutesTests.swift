import Foundation
import GrandstandCore
import HTTPClient
import TestSupport
import Testing
@testable import GrandstandDaemon
@testable import GrandstandIngest
@testable import GrandstandOperations
@testable import GrandstandServices
@testable import GrandstandServing
@testable import GrandstandStreamer

/// Timelines and inserts through the running daemon: scheduled over the management API from a
/// cached item, played by ffprobe over HTTP from the fan listener with the expected length,
/// play-once inserts gone on a session's second fetch and sticky ones kept, the schedule kept
/// across a restart, and a wall-clock insert spliced into a live channel's playlist.
@Suite(.serialized) struct TimelineRoutesTests {
    final class Box {
        let origin: CacheOrigin
        var config: GatewayConfig
        var daemon: Daemon
        var management: HTTPClient
        var fan: HTTPClient
        var fanPort: UInt16

        init() throws {
            origin = try CacheOrigin()
            try origin.metadata("vod", "{\"hls\":\"vod/master.m3u8\"}")
            config = try DaemonTests.config()
            config.cache = origin.cacheConfig()
            config.stateDirectory = config.cache!.directory + "-state"
            daemon = Daemon(config: config, board: nil)
            (management, fan, fanPort) = (HTTPClient(HTTPEndpoint(host: "127.0.0.1", port: 1)), HTTPClient(HTTPEndpoint(host: "127.0.0.1", port: 1)), 0)
            try start()
            let cache = try #require(daemon.cache)
            _ = try cache.add(.init(id: "vod"))
            let item = try cache.waitForItem("vod", [.partiallyCached, .cached, .failed])
            guard item.state == .cached else { throw WaitTimeout(what: "item vod cached (\(item.errorDetail ?? ""))", seconds: 60) }
        }

        func start() throws {
            try daemon.start()
            let status = try #require(daemon.status)
            management = HTTPClient(HTTPEndpoint(host: "127.0.0.1", port: status.management.port))
            fan = HTTPClient(HTTPEndpoint(host: "127.0.0.1", port: status.fan.port))
            fanPort = status.fan.port
        }

        /// Stops the daemon and starts a new one on the same state and cache directories.
        func restart() throws {
            daemon.stop()
            daemon = Daemon(config: config, board: nil)
            try start()
        }

        func call(_ method: String, _ target: String, _ body: String = "") throws -> HTTPClientResponse {
            try management.request(method, target, headers: [("Authorization", "Bearer secret")], body: Array(body.utf8))
        }

        /// The issue paths of a refusal.
        func paths(_ response: HTTPClientResponse) throws -> [String] {
            guard case .array(let issues)? = try JSONParser.parse(response.body)["issues"] else { return [] }
            return issues.compactMap { if case .string(let path)? = $0["path"] { return path } else { return nil } }
        }

        deinit {
            daemon.stop()
            daemon.cache?.removeDirectory()
            try? FileManager.default.removeItem(atPath: config.stateDirectory)
            origin.stop()
        }
    }

    /// The segment URIs and total EXTINF seconds of a playlist.
    static func summary(_ text: String) -> (uris: [String], seconds: Double) {
        let segments = VODPlaylist.segments(text) ?? []
        return (segments.map(\.uri), segments.reduce(0) { $0 + $1.durationSeconds })
    }

    static func frames(_ url: String) throws -> Int? {
        let probe = try RecordTests.tool("/usr/bin/ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                                              "stream=nb_read_frames", "-of", "csv=p=0", url], timeout: 120)
        return CacheHLSTests.frameCount(probe.stdout)
    }

    @Test func aStitchedTimelinePlaysAndPlayOnceInsertsVanishOnTheSessionsSecondFetch() throws {
        let box = try Box()
        // Main content: the whole 4 s item, then its seconds 1..3 (a rough cut): 6 s.
        let created = try box.call("POST", "/api/v1/timelines", #"{"id":"match","clips":[{"item":"vod"},{"item":"vod","begin":1,"end":3}]}"#)
        #expect(created.status == 201, "\(created.text)")
        #expect(try JSONParser.parse(created.body)["mainDurationSeconds"] == .number(6))

        // Bad bodies are refused with the JSON path of each problem.
        let missing = try box.call("POST", "/api/v1/timelines", #"{"id":"x","clips":[{"item":"nope"}]}"#)
        #expect(missing.status == 400)
        #expect(try box.paths(missing) == ["$.clips[0].item"])
        let noAt = try box.call("POST", "/api/v1/inserts", #"{"id":"x","timeline":"match","position":"midRoll","clip":{"item":"vod"}}"#)
        #expect(noAt.status == 400)
        #expect(try box.paths(noAt) == ["$.at"])
        let cut = try box.call("POST", "/api/v1/inserts", #"{"id":"x","timeline":"match","position":"preRoll","clip":{"item":"vod","begin":9}}"#)
        #expect(try box.paths(cut) == ["$.clip.begin"])
        #expect(try box.call("POST", "/api/v1/inserts", #"{"id":"x","timeline":"nope","position":"preRoll","clip":{"item":"vod"}}"#).status == 404)
        #expect(try box.call("POST", "/api/v1/inserts", "not json").status == 400)
        #expect(try box.call("POST", "/api/v1/timelines", #"{"id":"match","clips":[{"item":"vod"}]}"#).status == 409)

        // A play-once pre-roll (1 s), a sticky mid-roll at 2 s (2 s) with a play-once pod (1 s), a sticky post-roll (1 s).
        for body in [#"{"id":"pre","timeline":"match","position":"preRoll","playOnce":true,"clip":{"item":"vod","end":1}}"#,
                     #"{"id":"mid","timeline":"match","position":"midRoll","at":2,"clip":{"item":"vod","begin":2}}"#,
                     #"{"id":"pod","timeline":"match","position":"pod","after":"mid","playOnce":true,"clip":{"item":"vod","begin":3}}"#,
                     #"{"id":"post","timeline":"match","position":"postRoll","clip":{"item":"vod","playlist":"v0/index.m3u8","end":1}}"#] {
            let added = try box.call("POST", "/api/v1/inserts", body)
            #expect(added.status == 201, "\(body): \(added.text)")
        }
        let listed = try JSONParser.parse(try box.call("GET", "/api/v1/inserts?timeline=match").body)["inserts"]
        guard case .array(let inserts)? = listed else { Issue.record("no list"); return }
        #expect(inserts.compactMap { $0["id"] } == [.string("pre"), .string("mid"), .string("pod"), .string("post")])

        // The first fetch of a session: everything; its second: without the play-once inserts.
        let first = Self.summary(try box.fan.get("/timelines/match.m3u8?session=fan-1").text)
        #expect(first.seconds == 11)
        #expect(first.uris.first == "/items/vod/v0/seg0.ts" && first.uris.count == 11)
        let second = try box.fan.get("/timelines/match.m3u8?session=fan-1")
        #expect(second.status == 200)
        #expect(Self.summary(second.text).seconds == 9)
        #expect(second.text.components(separatedBy: "#EXT-X-DISCONTINUITY\n").count - 1 == 4)   // clip 2, mid-roll, back, post-roll
        #expect(Self.summary(try box.fan.get("/timelines/match.m3u8?session=fan-2").text).seconds == 11)
        // Without a session nothing is remembered: every insert, every time.
        #expect(Self.summary(try box.fan.get("/timelines/match.m3u8").text).seconds == 11)
        #expect(Self.summary(try box.fan.get("/timelines/match.m3u8").text).seconds == 11)
        #expect(try box.fan.get("/timelines/nope.m3u8").status == 404)
        // Fans' list: each timeline with its playlist, length and how many clips and inserts.
        let fanList = try JSONParser.parse(try box.fan.get("/timelines.json").body)["timelines"]
        guard case .array(let fanTimelines)? = fanList, let match = fanTimelines.first(where: { $0["id"] == .string("match") }) else {
            Issue.record("no fan list: \(String(describing: fanList))"); return
        }
        #expect(match["playlist"] == .string("/timelines/match.m3u8") && match["inserts"] == .number(4))
        #expect(match["clips"] != nil && match["mainDurationSeconds"] != nil && match["item"] == nil)

        // A real player over HTTP: 11 s at 25 fps, then 9 s on the same session's next fetch.
        let url = "http://127.0.0.1:\(box.fanPort)/timelines/match.m3u8?session=probe"
        #expect(try Self.frames(url) == 275)
        #expect(try Self.frames(url) == 225)

        // The schedule survives a restart (crash-safe file, no temporary left behind).
        try box.restart()
        let files = try FileManager.default.contentsOfDirectory(atPath: box.config.stateDirectory)
        #expect(files.contains("timelines.json") && !files.contains { $0.contains(".tmp-") }, "\(files)")
        let timelines = try JSONParser.parse(try box.call("GET", "/api/v1/timelines").body)["timelines"]
        guard case .array(let list)? = timelines else { Issue.record("no timelines"); return }
        #expect(list.compactMap { $0["id"] } == [.string("match")])
        #expect(Self.summary(try box.fan.get("/timelines/match.m3u8?session=fan-3").text).seconds == 11)

        // Deleting the mid-roll takes its pod; deleting the timeline ends its playlist.
        #expect(try box.call("DELETE", "/api/v1/inserts?id=mid").status == 204)
        #expect(try box.call("DELETE", "/api/v1/inserts?id=pod").status == 404)
        #expect(Self.summary(try box.fan.get("/timelines/match.m3u8?session=fan-3").text).seconds == 7)
        #expect(try box.call("DELETE", "/api/v1/timelines?id=match").status == 204)
        #expect(try box.fan.get("/timelines/match.m3u8").status == 404)
    }

    @Test func aWallClockInsertIsSplicedIntoTheTSLivePlaylist() throws {
        let box = try Box()
        let feed = try LiveFeed(box)
        feed.run { feed.segments >= 2 }
        let before = try box.fan.get("/channels/cam/live-ts.m3u8").text
        #expect(before.contains("#EXT-X-PART"))
        // Just after the newest complete segment's start: the break goes before the next one.
        let at = try LiveFeed.dateAfterNewestSegment(before)
        let wrong = try box.call("POST", "/api/v1/inserts", #"{"id":"ad","channel":"cam","position":"preRoll","clip":{"item":"vod"}}"#)
        #expect(try box.paths(wrong) == ["$.position"])
        // An insert whose time has not come changes nothing: the channel stays LL-HLS.
        let later = try box.call("POST", "/api/v1/inserts", #"{"id":"later","channel":"cam","position":"wallClock","at":"2099-01-01T00:00:00Z","clip":{"item":"vod"}}"#)
        #expect(later.status == 201, "\(later.text)")
        #expect(try box.fan.get("/channels/cam/live-ts.m3u8").text.contains("#EXT-X-PART"))
        #expect(try box.call("DELETE", "/api/v1/inserts?id=later").status == 204)
        let added = try box.call("POST", "/api/v1/inserts", #"{"id":"ad","channel":"cam","position":"wallClock","at":"\#(at)","clip":{"item":"vod","end":2}}"#)
        #expect(added.status == 201, "\(added.text)")

        let count = feed.segments
        feed.run { feed.segments >= count + 2 }
        let live = try box.fan.get("/channels/cam/live-ts.m3u8")
        #expect(live.status == 200)
        let lines = live.text.split(separator: "\n").map(String.init)
        let start = try #require(lines.firstIndex(of: "/items/vod/v0/seg0.ts"), "\(live.text)")
        #expect(lines[start - 2] == "#EXT-X-DISCONTINUITY")
        #expect(lines[start + 2] == "/items/vod/v0/seg1.ts")
        #expect(lines[start + 3] == "#EXT-X-DISCONTINUITY")
        // The main content resumes at the first segment at or after the scheduled time.
        let resumed = try #require(lines[start + 4].hasPrefix("#EXT-X-PROGRAM-DATE-TIME:") ? CatalogDate.parse(String(lines[start + 4].dropFirst(25))) : nil)
        let scheduled = try #require(CatalogDate.parse(at))
        #expect(resumed.seconds >= scheduled.seconds - 0.001)
        #expect(!live.text.contains("#EXT-X-PART") && !live.text.contains("PRELOAD-HINT"))

        // A player reads the spliced live playlist from its start, insert included.
        try Self.expectFramesFromStart("http://127.0.0.1:\(box.fanPort)/channels/cam/live-ts.m3u8")

        // Deleting the insert gives the channel its own playlist back.
        #expect(try box.call("DELETE", "/api/v1/inserts?id=ad").status == 204)
        #expect(try box.fan.get("/channels/cam/live-ts.m3u8").text.contains("#EXT-X-PART"))
    }

    /// Feeds the sample to channel `cam` as its datagrams arrive (coherent program date-times).
    final class LiveFeed {
        let gateway: Gateway
        let bytes: [UInt8]
        var offset = 0, time: Int64 = 1_700_000_000_000_000_000

        init(_ box: Box) throws {
            gateway = box.daemon.gateway
            gateway.handle([.channelsChanged([.added(Channel(id: "cam", name: "Cam", kind: .video, group: nil, port: 5000, fec: .none, origin: .config))])])
            bytes = Array(try Data(contentsOf: URL(fileURLWithPath: SendEndToEndTests.sample)))
        }

        var segments: Int { gateway.videoChannel("cam")?.summary.segments ?? 0 }

        func run(until condition: () -> Bool) {
            while offset < bytes.count, !condition() {
                let end = min(offset + 7 * 188, bytes.count)
                gateway.handle([.transportStream(channelID: "cam", packets: bytes[offset..<end], timestampNanoseconds: time)])
                offset = end
                time += 11_680_000   // the sample's pace (20 s in 1713 datagrams)
            }
        }

        /// Half a second after the newest complete segment's start in `playlist`.
        static func dateAfterNewestSegment(_ playlist: String) throws -> String {
            let dates = playlist.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-PROGRAM-DATE-TIME:") }
                .compactMap { CatalogDate.parse(String($0.dropFirst(25)))?.seconds }
            let newest = try #require(dates.dropLast().last)   // the last one is the open segment's
            return RFC3339.format(nanoseconds: Int64((newest + 0.5) * 1000) * 1_000_000, fractionDigits: 3)
        }
    }

    /// On CMAF the break replaces the live media in place: the channel stays LL-HLS with its own
    /// numbering, the break's parts and segments are the insert's frames (ffmpeg decodes them
    /// identical to the insert's TS) on decode times that continue the channel's, and the header
    /// switches to the insert's and back with discontinuities. ffprobe reads through it.
    @Test func aWallClockInsertReplacesTheLiveMediaOnCMAF() throws {
        let box = try Box()
        let feed = try LiveFeed(box)
        feed.run { feed.segments >= 2 }
        let before = try box.fan.get("/channels/cam/live.m3u8").text
        #expect(before.contains("#EXT-X-MAP:URI=\"init0.mp4\""), "\(before)")
        let at = try LiveFeed.dateAfterNewestSegment(before)
        let added = try box.call("POST", "/api/v1/inserts", #"{"id":"ad","channel":"cam","position":"wallClock","at":"\#(at)","clip":{"item":"vod","end":5}}"#)
        #expect(added.status == 201, "\(added.text)")
        // Due now: the next request anchors it at the first segment none of whose parts exist.
        let anchor = try #require(feed.gateway.videoChannel("cam")?.breakPoint?.segment)
        _ = try box.fan.get("/channels/cam/live.m3u8")
        let count = feed.segments
        // The break's first part, asked for before it exists (the preload hint), is held until
        // the live part is published and then answered with the insert's first frames.
        let held = Held(), fanPort = box.fanPort
        Thread.detachNewThread {
            held.response = try? HTTPClient(HTTPEndpoint(host: "127.0.0.1", port: fanPort)).get("/channels/cam/break/ad/seg\(anchor).0.m4s")
            held.done.signal()
        }
        let channel = try #require(feed.gateway.videoChannel("cam"))
        try waitFor("the break part's request held", timeout: 10) {
            channel.summary.statistics.contains { $0.0 == "hls_blocked_requests" && $0.1 > 0 }
        }
        // While the break plays, its parts are listed under it (the first one independent).
        feed.run { feed.segments >= count + 1 }
        let during = try box.fan.get("/channels/cam/live.m3u8").text
        #expect(during.contains(",URI=\"break/ad/seg\(anchor).0.m4s\",INDEPENDENT=YES\n"), "\(during)")
        feed.run { feed.segments >= count + 6 }

        let live = try box.fan.get("/channels/cam/live.m3u8")
        #expect(live.status == 200)
        let text = live.text
        #expect(text.contains("#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES") && text.contains("#EXT-X-PRELOAD-HINT"), "\(text)")
        let lines = text.split(separator: "\n").map(String.init)
        let start = try #require(lines.firstIndex(of: "#EXT-X-MAP:URI=\"break/ad/init.mp4\""), "\(text)")
        #expect(lines[start - 1] == "#EXT-X-DISCONTINUITY")
        let back = try #require(lines.lastIndex(of: "#EXT-X-MAP:URI=\"init0.mp4\""), "\(text)")
        #expect(back > start && lines[back - 1] == "#EXT-X-DISCONTINUITY")
        let breakSegments = lines[start..<back].filter { $0.hasPrefix("break/ad/seg") }
        #expect(breakSegments.first == "break/ad/seg\(anchor).m4s")
        // The segment after the break is the channel's own, numbered as ever.
        let resumed = try #require(lines[back...].first { $0.hasPrefix("seg") && $0.hasSuffix(".m4s") })
        #expect(resumed == "seg\(anchor + breakSegments.count).m4s")

        #expect(held.done.wait(timeout: .now() + 10) == .success)
        #expect(held.response?.status == 200, "\(held.response?.text ?? "no answer")")
        let heldSpan = try FragmentReader.span((held.response?.body ?? [])[...], track: 1)

        // Decode times run on: the break starts where the live segment before it ended.
        let previous = try box.fan.get("/channels/cam/seg\(anchor - 1).m4s").body
        let first = try box.fan.get("/channels/cam/break/ad/seg\(anchor).m4s").body
        let end = try #require(try FragmentReader.span(previous[...], track: 1))
        let begin = try #require(try FragmentReader.span(first[...], track: 1))
        #expect(begin.start == end.start + end.duration && heldSpan?.start == begin.start)

        // The break's frames are the insert's: ffmpeg decodes both to the same pictures.
        var breakFile = try box.fan.get("/channels/cam/break/ad/init.mp4").body
        for name in breakSegments { breakFile += try box.fan.get("/channels/cam/" + name).body }
        var insertFile: [UInt8] = []
        for segment in box.daemon.services.timelines.liveBreaks("cam").first?.segments ?? [] { insertFile += try box.fan.get(segment.uri).body }
        #expect(!insertFile.isEmpty)
        let pictures = try Self.pictureHashes(breakFile, suffix: ".mp4")
        let source = try Self.pictureHashes(insertFile, suffix: ".ts")
        #expect(pictures.count >= 40 && pictures == source, "\(pictures.count) pictures, \(source.count) in the insert")
        print("TimelineRoutesTests CMAF break: \(pictures.count) pictures identical to the insert's, \(breakSegments.count) segments")

        // A blocking reload's answer has the break too; the segment after it is not the break's.
        let reload = try box.fan.get("/channels/cam/live.m3u8?_HLS_msn=\(anchor)&_HLS_part=0")
        #expect(reload.text.contains("break/ad/init.mp4"))
        #expect(try box.fan.get("/channels/cam/break/ad/seg\(anchor + breakSegments.count).m4s").status == 404)

        // A player reads the live playlist from its start, break included.
        try Self.expectFramesFromStart("http://127.0.0.1:\(box.fanPort)/channels/cam/live.m3u8")

        // Deleting the insert gives the channel its own playlist back.
        #expect(try box.call("DELETE", "/api/v1/inserts?id=ad").status == 204)
        #expect(!(try box.fan.get("/channels/cam/live.m3u8").text.contains("break/")))
        #expect(try box.fan.get("/channels/cam/break/ad/init.mp4").status == 404)
    }

    /// Sessions on a live channel: every viewer at the live edge sees the break; rewinding into
    /// it afterwards, a play-once break is shown a session once (its rewinds then carry the
    /// channel's own media there), a sticky one every time; without a session every rewind has it.
    @Test(arguments: [true, false]) func aPlayOnceBreakIsShownEachSessionOnceRewindsIncluded(playOnce: Bool) throws {
        let box = try Box()
        let feed = try LiveFeed(box)
        feed.run { feed.segments >= 2 }
        let at = try LiveFeed.dateAfterNewestSegment(try box.fan.get("/channels/cam/live.m3u8").text)
        let added = try box.call("POST", "/api/v1/inserts", #"{"id":"ad","channel":"cam","position":"wallClock","at":"\#(at)","playOnce":\#(playOnce),"clip":{"item":"vod","end":3}}"#)
        #expect(added.status == 201, "\(added.text)")
        let anchor = try #require(feed.gateway.videoChannel("cam")?.breakPoint?.segment)
        _ = try box.fan.get("/channels/cam/live.m3u8")
        let count = feed.segments
        feed.run { feed.segments >= count + 1 }
        // Session "a" watches live through the break; the live playlist dates it.
        let live = try box.fan.get("/channels/cam/live.m3u8?session=a").text
        let range = try #require(live.split(separator: "\n").first { $0.hasPrefix("#EXT-X-DATERANGE:ID=\"ad\"") }, "\(live)")
        #expect(range.contains(",X-PLAY-ONCE=\"\(playOnce ? "YES" : "NO")\""))
        let start = try #require(range.split(separator: ",").first { $0.hasPrefix("START-DATE=") }.flatMap { CatalogDate.parse(String($0.dropFirst(12).dropLast())) })
        feed.run { feed.segments >= count + 5 }
        #expect(try box.fan.get("/channels/cam/live.m3u8?session=" + String(repeating: "x", count: 129)).status == 400)

        // Rewinding to a second before the break.
        let rewind = "/channels/cam/rewind.m3u8?at=\(Int64((start.seconds - 1) * 1000))"
        let a = try box.fan.get(rewind + "&session=a").text
        #expect(a.contains("break/ad/seg\(anchor).m4s") == !playOnce, "\(a)")
        #expect(a.contains("\nseg\(anchor).m4s\n") == playOnce, "\(a)")
        // Session "b" never saw it: its first rewind has the break, its next one only if sticky.
        let b = try box.fan.get(rewind + "&session=b").text
        #expect(b.contains("#EXT-X-MAP:URI=\"break/ad/init.mp4\"") && b.contains("break/ad/seg\(anchor).m4s"), "\(b)")
        #expect(try box.fan.get(rewind + "&session=b").text.contains("break/ad/") == !playOnce)
        // Without a session nothing is remembered: every rewind has it.
        #expect(try box.fan.get(rewind).text.contains("break/ad/seg\(anchor).m4s"))
        #expect(try box.fan.get(rewind).text.contains("break/ad/seg\(anchor).m4s"))
        // Both versions play: ffprobe reads through the break and through the channel's own media.
        for session in ["c", "a"] {
            let probe = try RecordTests.tool("/usr/bin/ffprobe", ["-v", "error", "-live_start_index", "0", "-read_intervals", "%+#200", "-count_packets", "-select_streams", "v:0",
                                                                  "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0",
                                                                  "http://127.0.0.1:\(box.fanPort)\(rewind)&session=\(session)"], timeout: 60)
            #expect(probe.status == 0 && CacheHLSTests.frameCount(probe.stdout) == 200, "\(session): \(probe.stdout) \(probe.stderr)")
        }
    }

    /// ffprobe reads 120 video frames of live playlist `url` from its first segment on.
    static func expectFramesFromStart(_ url: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let probe = try RecordTests.tool("/usr/bin/ffprobe", ["-v", "error", "-live_start_index", "0", "-read_intervals", "%+#120",
                                                              "-count_packets", "-select_streams", "v:0", "-show_entries", "stream=nb_read_packets",
                                                              "-of", "csv=p=0", url], timeout: 60)
        #expect(probe.status == 0, "\(probe.stderr)", sourceLocation: sourceLocation)
        #expect(CacheHLSTests.frameCount(probe.stdout) == 120, "\(probe.stdout) \(probe.stderr)", sourceLocation: sourceLocation)
    }

    final class Held: @unchecked Sendable {
        var response: HTTPClientResponse?
        let done = DispatchSemaphore(value: 0)
    }

    /// The MD5 of every decoded picture of `bytes` (a media file), in order.
    static func pictureHashes(_ bytes: [UInt8], suffix: String) throws -> [String] {
        let path = NSTemporaryDirectory() + "/break-\(UUID().uuidString)" + suffix
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try RecordTests.tool("/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-map", "0:v:0", "-f", "framemd5", "-"], timeout: 60)
        guard run.status == 0 else { Issue.record("ffmpeg: \(run.stderr)"); return [] }
        return run.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    @Test func aCatalogFeedArrivingOnAFileChannelReplacesTheCatalog() throws {
        let running = try ManagementAPITests.Running()
        let files = running.daemon.gateway.files
        let hook = try #require(files.completed)
        let feed = try Fixtures.bytes("catalog/feed.json")
        hook("venue-files", "catalog.json", feed)
        let status = try JSONParser.parse(try running.call("GET", "/api/v1/catalog/status").body)
        #expect(status["source"] == .string("flute:venue-files/catalog.json"))
        guard case .number(let fixtures)? = status["fixtures"] else { Issue.record("\(status)"); return }
        #expect(fixtures > 0)
        // Other files are not the feed; an unusable feed leaves the catalog as it was.
        hook("venue-files", "other.json", Array(#"{"fixtures":[]}"#.utf8))
        hook("venue-files", "catalog.json", Array("not json".utf8))
        #expect(try JSONParser.parse(try running.call("GET", "/api/v1/catalog/status").body)["fixtures"] == .number(fixtures))
        // A changed feed replaces it.
        hook("venue-files", "catalog.json", Array(#"{"fixtures":[{"id":"f1","type":"match","name":"Only one","startDate":"2026-11-21T15:00:00Z"}]}"#.utf8))
        #expect(try JSONParser.parse(try running.call("GET", "/api/v1/catalog/status").body)["fixtures"] == .number(1))
    }
}
