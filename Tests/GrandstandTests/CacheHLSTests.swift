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

/// HLS VOD prefetch and playback from the fan listener (`/items/ID/…m3u8`), whole and
/// pre-positioned (the first seconds from the box, the rest from the origin).
@Suite(.serialized) struct CacheHLSTests {
    static func daemon(_ origin: CacheOrigin) throws -> Daemon {
        var config = try DaemonTests.config()
        config.cache = origin.cacheConfig()
        config.stateDirectory = config.cache!.directory + "-state"
        return Daemon(config: config, board: nil)
    }

    /// `POST /api/v1/items` with `body` on the management listener at `port`; the status.
    static func addItem(_ port: UInt16, _ body: String) throws -> Int {
        try RawHTTPClient(port: port).send(Array(("POST /api/v1/items HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer secret\r\n" +
                                                  "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body).utf8)).status
    }

    /// ffprobe's `nb_read_frames` line (its warnings share the output).
    static func frameCount(_ output: String) -> Int? {
        output.split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.last
    }

    @Test func aPrepositionedItemPlaysItsStartFromTheBoxAndTheRestFromTheOrigin() throws {
        let origin = try CacheOrigin()
        defer { origin.stop() }
        try origin.metadata("vod", "{\"category\":\"highlights\",\"hls\":\"\(origin.base)/media/vod/master.m3u8\"}")
        let daemon = try Self.daemon(origin)
        try daemon.start()
        defer { daemon.stop(); daemon.cache?.removeDirectory() }
        let cache = try #require(daemon.cache)
        let status = try #require(daemon.status)
        #expect(try Self.addItem(status.management.port, "{\"id\":\"vod\",\"prepositionSeconds\":2.0}") == 202)
        let item = try cache.waitForItem("vod", [.partiallyCached, .cached, .failed])
        #expect(item.state == .partiallyCached, "\(item.errorDetail ?? "")")
        #expect(Set(item.files.map(\.path)) == ["metadata.json", "master.m3u8", "v0/index.m3u8", "v0/seg0.ts", "v0/seg1.ts"])

        let fan = RawHTTPClient(port: status.fan.port)
        let playlist = String(decoding: try fan.get("/items/vod/v0/index.m3u8").body, as: UTF8.self)
        let uris = playlist.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(uris.map(String.init) == ["/items/vod/v0/seg0.ts", "/items/vod/v0/seg1.ts", "\(origin.base)/media/vod/v0/seg2.ts",
                         "\(origin.base)/media/vod/v0/seg3.ts"])
        #expect(String(decoding: try fan.get("/items/vod/master.m3u8").body, as: UTF8.self).contains("/items/vod/v0/index.m3u8"))
        // Fans' list names the item's files by their fan URLs and plays its first playlist.
        let items = try JSONParser.parse(try fan.get("/items.json").body)["items"]
        guard case .array(let listed)? = items, let vod = listed.first(where: { $0["id"] == .string("vod") }),
              case .array(let files)? = vod["files"] else { Issue.record("no fan list: \(String(describing: items))"); return }
        #expect(vod["play"] == .string("/items/vod/master.m3u8") || vod["play"]?.encoded.hasSuffix(".m3u8\"") == true)
        #expect(files.contains { $0["url"] == .string("/items/vod/v0/index.m3u8") } && vod["source"] == .string("origin"))

        let before = origin.requests.count
        let frames = try runCommand(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                     "stream=nb_read_frames", "-of", "csv=p=0", "http://127.0.0.1:\(status.fan.port)/items/vod/master.m3u8"])
        #expect(Self.frameCount(frames) == 100, "\(frames)")
        let fetched = origin.requests.dropFirst(before)
        #expect(fetched.contains { $0.hasPrefix("/media/vod/v0/seg2.ts") })
        #expect(!fetched.contains { $0.hasPrefix("/media/vod/v0/seg0.ts") })
    }

    @Test func aWholeItemPlaysEntirelyFromTheBox() throws {
        let origin = try CacheOrigin()
        defer { origin.stop() }
        try origin.metadata("full", "{\"hls\":\"vod/master.m3u8\"}")
        let daemon = try Self.daemon(origin)
        try daemon.start()
        defer { daemon.stop(); daemon.cache?.removeDirectory() }
        let cache = try #require(daemon.cache)
        let status = try #require(daemon.status)
        _ = try cache.add(.init(id: "full"))
        let item = try cache.waitForItem("full", [.partiallyCached, .cached, .failed])
        #expect(item.state == .cached, "\(item.errorDetail ?? "")")
        let before = origin.requests.count
        let frames = try runCommand(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                     "stream=nb_read_frames", "-of", "csv=p=0", "http://127.0.0.1:\(status.fan.port)/items/full/master.m3u8"])
        #expect(Self.frameCount(frames) == 100, "\(frames)")
        #expect(origin.requests.count == before, "played from the origin: \(origin.requests.dropFirst(before))")
    }

    /// The SDK's quality choice for HLS items, as CDNs publish them (Tests/Fixtures/cache/renditions:
    /// two variants, the larger AES-128 encrypted, an audio and a subtitle rendition group): one
    /// variant is downloaded with the renditions its groups name and, for the encrypted one, its
    /// key; the stored master lists only what was chosen; the fan URLs rewrite every URI (variant,
    /// EXT-X-MEDIA, EXT-X-KEY) to the box, so ffmpeg plays the item, decrypting it, with the origin gone.
    @Test(arguments: [("lowest", "v0", false), ("highest", "v1", true), ("{\"maxHeight\":100}", "v0", false),
                      ("{\"maxBandwidth\":200000}", "v1", true)])
    func oneVariantIsChosenWithItsRenditionsAndKey(quality: String, variant: String, encrypted: Bool) throws {
        let origin = try CacheOrigin()
        var stopped = false
        defer { if !stopped { origin.stop() } }
        try origin.metadata("game", "{\"hls\":\"renditions/master.m3u8\"}")
        let daemon = try Self.daemon(origin)
        try daemon.start()
        defer { daemon.stop(); daemon.cache?.removeDirectory() }
        let cache = try #require(daemon.cache)
        let status = try #require(daemon.status)
        let add = { (body: String) in try Self.addItem(status.management.port, body) }
        #expect(try add("{\"id\":\"bad\",\"quality\":\"best\"}") == 400)
        #expect(try add("{\"id\":\"bad\",\"quality\":{\"maxHeight\":-1}}") == 400)
        #expect(try add("{\"id\":\"game\",\"quality\":\(quality.hasPrefix("{") ? quality : "\"" + quality + "\"")}") == 202)
        let item = try cache.waitForItem("game", [.partiallyCached, .cached, .failed])
        #expect(item.state == .cached, "\(item.errorDetail ?? "")")
        let other = variant == "v0" ? "v1" : "v0"
        let paths = Set(item.files.map(\.path))
        #expect(paths.isSuperset(of: ["master.m3u8", "\(variant)/index.m3u8", "\(variant)/seg0.ts", "\(variant)/seg1.ts",
                                      "audio/index.m3u8", "audio/seg0.ts", "subs/index.m3u8", "subs/seg0.vtt", "subs/seg1.vtt"]), "\(paths)")
        #expect(!paths.contains { $0.hasPrefix(other + "/") }, "\(paths)")
        #expect(paths.contains("keys/k1.key") == encrypted, "\(paths)")

        let fan = RawHTTPClient(port: status.fan.port)
        let master = String(decoding: try fan.get("/items/game/master.m3u8").body, as: UTF8.self)
        #expect(master.contains("/items/game/\(variant)/index.m3u8") && !master.contains(other + "/index.m3u8"), "\(master)")
        #expect(master.contains("URI=\"/items/game/audio/index.m3u8\"") && master.contains("URI=\"/items/game/subs/index.m3u8\""), "\(master)")
        if encrypted {
            let media = String(decoding: try fan.get("/items/game/v1/index.m3u8").body, as: UTF8.self)
            #expect(media.contains("#EXT-X-KEY:METHOD=AES-128,URI=\"/items/game/keys/k1.key\""), "\(media)")
        }

        // Offline: the origin is gone; ffmpeg plays the video variant (decrypted) and the audio rendition.
        origin.stop()
        stopped = true
        let frames = try runCommand(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                     "stream=nb_read_frames,width", "-of", "csv=p=0", "http://127.0.0.1:\(status.fan.port)/items/game/master.m3u8"])
        #expect(frames.contains(variant == "v0" ? "160,50" : "320,50"), "\(frames)")
        let audio = try runCommand(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "a:0", "-show_entries",
                                    "stream=codec_name,nb_read_frames", "-of", "csv=p=0", "http://127.0.0.1:\(status.fan.port)/items/game/master.m3u8"])
        #expect(audio.contains("aac,"), "\(audio)")
    }
}
