import Foundation
import GrandstandCore
import TestSupport
import Testing

/// `grandstand demo` end to end in a private network namespace (root, real kernel): the
/// embedded streamer on the namespace's loopback, the gateway capturing it, and real clients
/// (curl, ffmpeg, ffprobe) reading the fan listener. Under qemu-user (no IP_MULTICAST_IF, no live
/// capture) and without root, the clear error is asserted instead; the VM runs it for real.
@Suite(.serialized) struct DemoEndToEndTests {
    static let fan = "127.0.0.1:18480"
    static let management = "127.0.0.1:18481"

    @Test func demoServesLiveChannelsToRealClients() throws {
        guard TestEnvironment.isRoot, !TestEnvironment.isQEMUUser else {
            // SendProcess runs the binary through the qemu-user runner when the suite runs under it.
            let demo = try SendProcess.start(namespace: nil, arguments: ["demo", "--sample", SendEndToEndTests.sample, "--duration", "2",
                                                                   "--fan", "127.0.0.1:0", "--management", "127.0.0.1:0"])
            let output = demo.finish()
            if TestEnvironment.isQEMUUser {
                #expect(demo.status == 1, "\(output)")
                #expect(output.contains("grandstand demo: streamer:") && output.contains("IP_MULTICAST_IF"), "\(output)")
            } else {
                #expect(output.contains("capture on lo unavailable"), "\(output)")
            }
            return
        }
        let namespace = try NetworkNamespace(prefix: "gs-demo")
        let demo = try Child(["ip", "netns", "exec", namespace.name, SendEndToEndTests.binary, "demo",
                              "--sample", SendEndToEndTests.sample, "--channels", "2", "--duration", "90",
                              "--fan", Self.fan, "--management", Self.management])
        defer { demo.kill() }
        let client = Client(namespace: namespace)

        // Channels appear after the first SAP announcement; thumbnails after the first segment.
        try waitFor("a live channel with a thumbnail", timeout: 30) {
            let list = try? JSONParser.parse(Array(client.get("/channels.json").body.utf8))
            return Self.item(list, 0)?["live"] == .bool(true) && Self.item(list, 0)?["thumbnail"] != .null && Self.item(list, 1) != nil
        }
        let list = try JSONParser.parse(Array(client.get("/channels.json").body.utf8))
        #expect(Self.item(list, 0)?["id"] == .string("main-camera"))
        #expect(Self.item(list, 0)?["playlist"] == .string("/channels/main-camera/live.m3u8"))
        #expect(Self.item(list, 1)?["id"] == .string("goal-cam"))
        let base = "/channels/main-camera/"

        // The live playlist: LL-HLS with a preload hint; the right headers.
        let live = client.get(base + "live.m3u8")
        #expect(live.status == 200)
        #expect(live.headers.contains("content-type: application/vnd.apple.mpegurl"), "\(live.headers)")
        #expect(live.headers.contains("cache-control: no-cache"))
        #expect(live.headers.contains("access-control-allow-origin: *"))
        #expect(live.body.contains("#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES"))
        let hint = try #require(Self.preloadHint(live.body), "\(live.body)")

        // Blocking reload: asking for the hinted part returns once it is published (≤ a part or
        // two later), listing it; one segment too far ahead is refused at once.
        let started = Date()
        let blocked = client.get(base + "live.m3u8?_HLS_msn=\(hint.msn)&_HLS_part=\(hint.part)")
        let waited = Date().timeIntervalSince(started)
        #expect(blocked.status == 200)
        #expect(blocked.body.contains("URI=\"seg\(hint.msn).\(hint.part).m4s\""), "\(blocked.body)")
        #expect(waited < 2.0, "blocked \(waited) s")
        let tooFar = client.get(base + "live.m3u8?_HLS_msn=\(hint.msn + 3)&_HLS_part=0")
        #expect(tooFar.status == 400)
        #expect(client.get(base + "live.m3u8?_HLS_msn=\(hint.msn)&_HLS_part=\(hint.part + 30)").status == 400)
        #expect(client.get(base + "live.m3u8?_HLS_msn=x").status == 400)

        // The hinted part itself is served once it exists, immutable.
        let part = client.get(base + "seg\(hint.msn).\(hint.part).m4s", bodyTo: "/dev/null")
        #expect(part.status == 200)
        #expect(part.headers.contains("content-type: video/mp4"))
        #expect(part.headers.contains("cache-control: public, max-age=60, immutable"))

        // Rewind: classic playlist starting back in time, clamped to the window.
        let rewind = client.get(base + "rewind.m3u8?offset=-20")
        #expect(rewind.status == 200)
        #expect(rewind.body.contains("#EXT-X-START:TIME-OFFSET="), "\(rewind.body)")
        #expect(!rewind.body.contains("#EXT-X-PART:"))
        let farBack = client.get(base + "rewind.m3u8?offset=-100000")
        let windowStart = Self.mediaSequence(client.get(base + "live.m3u8").body)
        #expect(Self.mediaSequence(farBack.body) == windowStart)
        #expect(client.get(base + "rewind.m3u8").status == 400)

        // Errors.
        #expect(client.get("/channels/nope/live.m3u8").status == 404)
        #expect(client.get(base + "seg999999.ts").status == 404)
        // A `..` segment: 400 from the request parser (HTTP1RequestParser).
        #expect(client.get(base + "../../etc/passwd").status == 400)
        #expect(client.get("/nope").status == 404)

        // Thumbnail: a JPEG of the sample's size.
        let thumbnail = FileManager.default.temporaryDirectory.appendingPathComponent("gs-demo-thumb-\(getpid()).jpg").path
        defer { try? FileManager.default.removeItem(atPath: thumbnail) }
        let jpeg = client.get(base + "thumbnail.jpg", bodyTo: thumbnail)
        #expect(jpeg.headers.contains("content-type: image/jpeg"))
        let size = try runCommand(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0", thumbnail])
        #expect(size.trimmingCharacters(in: .whitespacesAndNewlines) == "mjpeg,640,360")

        // A real HLS client decodes the live playlist without an error.
        let decode = try namespace.exec(["ffmpeg", "-nostdin", "-v", "error", "-i", "http://\(Self.fan)\(base)live.m3u8",
                                         "-t", "4", "-f", "null", "-"])
        #expect(decode.isEmpty, "\(decode)")
        let probe = try namespace.exec(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0",
                                        "http://\(Self.fan)/channels/goal-cam/live.m3u8"])
        #expect(probe.contains("h264") && probe.contains("aac"), "\(probe)")

        // The fan page, and the management API behind its token.
        let page = client.get("/")
        #expect(page.headers.contains("content-type: text/html; charset=utf-8"))
        #expect(page.body.contains("<script src=\"/app.js\">"))
        #expect(client.get("/app.js").body.contains("/channels.json"))
        // Headless Chromium renders the channel list from the running gateway, each channel with
        // its thumbnail (`?autoplay=0`: no player and no stream left open, so the virtual time
        // budget can run out; FanAppBrowserTests plays the app).
        let dom = try namespace.exec(["timeout", "-s", "KILL", "60", "chromium", "--headless", "--no-sandbox", "--disable-gpu",
                                      "--virtual-time-budget=4000", "--dump-dom", "http://\(Self.fan)/?autoplay=0"])
        #expect(dom.contains("id=\"channel-main-camera\""), "\(dom)")
        #expect(dom.contains("<h3 id=\"title-goal-cam\">Goal Cam</h3>"), "\(dom)")
        #expect(dom.contains("href=\"/channels/main-camera/live.m3u8\""), "\(dom)")
        #expect(dom.contains("src=\"/channels/goal-cam/thumbnail.jpg"), "\(dom)")
        #expect(!dom.contains("data-player=\"error\""), "\(dom)")
        #expect(client.get("/api/v1/stats").status == 404)
        #expect(client.get("/api/v1/stats", management: true, token: nil).status == 401)
        let stats = try JSONParser.parse(Array(client.get("/api/v1/stats", management: true, token: "demo").body.utf8))
        let segments = stats["channels"]?["main-camera"]?["hls_segments"]
        #expect(segments.map { $0 != .number(0) } == true, "\(String(describing: segments))")
        // The demo streams with Reed-Solomon FEC: windows are counted.
        let windows = stats["channels"]?["main-camera"]?["protection_windows"]
        #expect(windows.map { $0 != .number(0) } == true, "\(String(describing: windows))")
        let channels = try JSONParser.parse(Array(client.get("/api/v1/channels", management: true, token: "demo").body.utf8))
        #expect(Self.item(channels, 0)?["id"] == .string("main-camera"))
    }

    static func item(_ value: JSONValue?, _ index: Int) -> JSONValue? {
        guard case .array(let items)? = value, index < items.count else { return nil }
        return items[index]
    }

    /// The demo's wire recorded and replayed: `hls/ID/` holds the same channel as whole segments
    /// that ffmpeg decodes without error, and two replays write identical trees.
    @Test func recordedDemoReplaysToDecodableHLS() throws {
        guard TestEnvironment.isRoot, !TestEnvironment.isQEMUUser else { return try demoServesLiveChannelsToRealClients() }
        let namespace = try NetworkNamespace(prefix: "gs-demorec")
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("gs-demorec-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let recording = work.appendingPathComponent("lo.pcap").path
        let dumpcap = try Child(["ip", "netns", "exec", namespace.name, "dumpcap", "-q", "-P", "-i", "lo", "-f", "udp",
                                 "-w", recording, "-a", "duration:9"])
        defer { dumpcap.kill() }
        try waitFor("dumpcap to start") { FileManager.default.fileExists(atPath: recording) }
        let demo = try Child(["ip", "netns", "exec", namespace.name, SendEndToEndTests.binary, "demo",
                              "--sample", SendEndToEndTests.sample, "--channels", "1", "--duration", "8",
                              "--fan", Self.fan, "--management", Self.management])
        defer { demo.kill() }
        _ = demo.finish()
        let recorded = dumpcap.finish()
        #expect(dumpcap.status == 0, "\(recorded)")
        var trees: [String] = []
        for run in 0..<2 {
            let out = work.appendingPathComponent("out\(run)").path
            try runCommand([SendEndToEndTests.binary, "replay", "--pcap", recording, "--out", out, "--quiet"])
            trees.append(out)
        }
        let playlist = try String(contentsOfFile: trees[0] + "/hls/main-camera/index.m3u8", encoding: .utf8)
        #expect(playlist.hasSuffix("#EXT-X-ENDLIST\n"))
        #expect(playlist.components(separatedBy: "#EXTINF:").count - 1 >= 2, "\(playlist)")
        // The whole playlist decodes (exit 0); every segment but the last decodes without a
        // message (the last may end inside an audio frame where the recording stopped).
        try runCommand(["ffmpeg", "-nostdin", "-v", "error", "-i", trees[0] + "/hls/main-camera/index.m3u8", "-f", "null", "-"])
        let segments = playlist.split(separator: "\n").filter { $0.hasPrefix("seg") }
        for segment in segments.dropLast() {
            let decode = try runCommand(["ffmpeg", "-nostdin", "-v", "error", "-i", trees[0] + "/hls/main-camera/" + segment,
                                         "-f", "null", "-"])
            #expect(decode.isEmpty, "\(segment): \(decode)")
        }
        #expect((try? runCommand(["diff", "-r", trees[0], trees[1]])) != nil)
    }

    /// `#EXT-X-PRELOAD-HINT:TYPE=PART,URI="segM.P.m4s"` (or `.ts`) → (M, P).
    static func preloadHint(_ playlist: String) -> (msn: Int, part: Int)? {
        guard let line = playlist.split(separator: "\n").first(where: { $0.hasPrefix("#EXT-X-PRELOAD-HINT:") }),
              let start = line.range(of: "URI=\"seg") else { return nil }
        let numbers = line[start.upperBound...].prefix { $0 != "\"" }.split(separator: ".")
        guard numbers.count == 3, let msn = Int(numbers[0]), let part = Int(numbers[1]) else { return nil }
        return (msn, part)
    }

    static func mediaSequence(_ playlist: String) -> Int? {
        playlist.split(separator: "\n").first { $0.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") }
            .flatMap { Int($0.dropFirst("#EXT-X-MEDIA-SEQUENCE:".count)) }
    }

    /// curl inside the namespace: status, lowercased headers, body.
    struct Client {
        let namespace: NetworkNamespace

        struct Response {
            var status = 0
            var headers: [String] = []
            var body = ""
        }

        func get(_ path: String, bodyTo file: String? = nil, management: Bool = false, token: String? = nil) -> Response {
            let host = management ? DemoEndToEndTests.management : DemoEndToEndTests.fan
            let headerFile = FileManager.default.temporaryDirectory.appendingPathComponent("gs-demo-h-\(getpid())-\(UUID())").path
            defer { try? FileManager.default.removeItem(atPath: headerFile) }
            var command = ["curl", "-s", "--path-as-is", "-D", headerFile, "-o", file ?? "-"]
            if let token { command += ["-H", "Authorization: Bearer \(token)"] }
            command.append("http://\(host)\(path)")
            guard let body = try? namespace.exec(command),
                  let head = try? String(contentsOfFile: headerFile, encoding: .utf8) else { return Response() }
            let lines = head.split(separator: "\r\n").map { $0.lowercased() }
            let status = lines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
            return Response(status: status, headers: Array(lines.dropFirst()), body: body)
        }
    }
}
