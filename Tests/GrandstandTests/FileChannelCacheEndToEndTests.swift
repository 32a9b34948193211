import Foundation
#if canImport(Glibc)
import Glibc
#endif
import GrandstandCore
import TestSupport
import Testing
@testable import GrandstandIngest
@testable import GrandstandServices
@testable import GrandstandDaemon
@testable import GrandstandOperations
@testable import GrandstandServing
@testable import GrandstandStreamer

/// The content cache as the file channels' sink, live (docs/files.md "Storing", docs/cache.md):
/// `grandstand send --files` with RFC 5510 Reed-Solomon repair, gzip Content-Encoding and a
/// zero-byte file, under loss, into the daemon (with `cache` configured) in a private netns. The
/// files become one cached item (`file-channel-ID`, source `file-channel:ID`) served
/// byte-identical on `/files/ID/PATH`; a changed file replaces its entry. Needs root; under
/// qemu-user the capture's clear error is checked instead (FileDeliveryEndToEndTests).
@Suite(.serialized) struct FileChannelCacheEndToEndTests {
    static func config(state: String) -> String {
        """
        {"license":{"venueName":"Test Arena","contentOwner":"Test Owner","appDeveloper":"Test App"},
         "listeners":{"fan":"127.0.0.1:0","management":"127.0.0.1:0"},"management":{"token":"secret"},
         "network":{"interface":"gsv1"},"stateDirectory":"\(state)","cache":{"directory":"\(state)/cache"}}
        """
    }

    @Test func receivedFilesBecomeACachedItemServedByteIdentical() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("gs-flute-cache-\(getpid())").path
        try FileManager.default.createDirectory(atPath: work + "/out", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let config = try GatewayConfig.decode(Array(Self.config(state: work + "/state").utf8))
        #expect(config.cache?.directory == work + "/state/cache")
        guard TestEnvironment.isRoot, !TestEnvironment.isQEMUUser else {
            // No live capture here (FileDeliveryEndToEndTests checks its clear error): the sink
            // side alone — the configured cache stores a received (empty) file as the channel's item.
            let cache = try ContentCache(try #require(config.cache))
            defer { cache.stop() }
            let stored = try cache.store(ReceivedFile(channelID: "venue-files", path: "empty.txt", contentType: nil, toi: 1,
                                                      fdtInstance: 0, bytes: [], completedNanoseconds: 1))
            #expect(stored.size == 0)
            #expect(cache.lookup(channelID: "venue-files", path: "empty.txt")?.size == 0)
            #expect(cache.item("file-channel-venue-files")?.source == .fileChannel("venue-files"))
            return
        }
        var generator = SeededBytes(seed: 7)
        var expected: [String: [UInt8]] = [
            "menu.json": Array(String(repeating: "{\"item\":\"hot dog\",\"price\":5},\n", count: 300).utf8),
            "maps/level-1.bin": generator.bytes(40_000),
            "empty.txt": [],
        ]
        try NetnsGateway.write(expected, into: work + "/out")
        let gateway = try NetnsGateway(prefix: "gs-fcache", config: config)
        defer { gateway.stop() }
        let daemon = gateway.daemon
        try #require(daemon.cache != nil, "the cache opened: \(daemon.events.hub.recentKinds)")
        let send = try gateway.send(["--files", "Venue Files@239.255.48.2:48002=\(work)/out", "--file-block", "16", "--file-repair", "6",
                              "--file-symbol-size", "1000", "--file-encoding", "gzip", "--file-tsi", "77",
                              "--drop-rate", "0.05", "--loop", "--duration", "90"])
        defer { send.kill() }

        func served(_ path: String) throws -> [UInt8]? {
            let reply = try gateway.get("/files/venue-files/\(path)")
            return reply.status == 200 ? reply.body : nil
        }
        try waitFor("every file served from the cache", timeout: 60) {
            try expected.allSatisfy { try served($0.key) == $0.value }
        }
        #expect(try gateway.get("/files/venue-files/empty.txt").status == 200, "a zero-byte file is an empty 200")

        // One item for the channel's files, in the cache's store.
        func channelItem() throws -> JSONValue? {
            let reply = try gateway.get("/api/v1/items?source=file-channel", management: true)
            try #require(reply.status == 200, "\(reply.status) \(reply.text)")
            let list = try JSONParser.parse(reply.body)
            guard case .array(let items)? = list["items"] else { return nil }
            return items.first { $0["id"] == .string("file-channel-venue-files") }
        }
        let item = try #require(try channelItem())
        #expect(item["source"] == .string("file-channel:venue-files"))
        #expect(item["state"] == .string("cached"))
        guard case .array(let files)? = item["files"] else { Issue.record("no files in \(item)"); return }
        #expect(Set(files.compactMap { if case .string(let p)? = $0["path"] { return p } else { return nil } }) == Set(expected.keys))
        let tableReply = try gateway.get("/api/v1/files/venue-files", management: true)
        try #require(tableReply.status == 200, "\(tableReply.status) \(tableReply.text)")
        let table = try JSONParser.parse(tableReply.body)
        guard case .array(let rows)? = table["files"] else { Issue.record("no table in \(table)"); return }
        #expect(rows.allSatisfy { if case .string(let local)? = $0["localPath"] { return local.hasPrefix(work + "/state/cache") } else { return false } },
                "stored by the cache, not the plain directory sink")
        #expect(IngestStats.int(table["stats"]?["content_decoding_failures"]) == 0)
        let recovered = IngestStats.int(table["stats"]?["symbols_recovered"]) ?? 0

        // channels.json lists the file channel with its files URL; the announced TSI is the channel's.
        let channels = try gateway.get("/channels.json")
        #expect(channels.text.contains("\"files\":\"/files/venue-files/\""), "\(channels.text)")
        #expect(daemon.gateway.channels.first { $0.id == "venue-files" }?.fluteTSI == 77)

        // A changed file replaces the item's entry for that path.
        expected["menu.json"] = Array(String(repeating: "{\"item\":\"pretzel\",\"price\":4},\n", count: 280).utf8)
        try NetnsGateway.write(["menu.json": expected["menu.json"]!], into: work + "/out")
        try waitFor("the changed menu", timeout: 60) { try served("menu.json") == expected["menu.json"] }
        let after = try #require(try channelItem())
        guard case .array(let later)? = after["files"] else { Issue.record("no files in \(after)"); return }
        let menus = later.filter { $0["path"] == .string("menu.json") }
        #expect(menus.count == 1)
        #expect(menus.first?["sha256"] == .string(SHA256.hex(expected["menu.json"]!)))
        for (path, bytes) in expected { #expect(try served(path) == bytes, "\(path)") }
        print("flute into the cache: \(recovered) symbols rebuilt by RFC 5510 Reed-Solomon")
    }
}
