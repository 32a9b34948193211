import Foundation
import GrandstandCore
import TestSupport
import Testing
@testable import GrandstandDaemon
@testable import GrandstandIngest
@testable import GrandstandOperations
@testable import GrandstandServing
@testable import GrandstandStreamer

/// File channels through the ingest pipeline and the daemon's gateway without a capture (runs
/// everywhere, qemu-user included): SAP + a FLUTE carousel as datagrams → `IngestPipeline` →
/// `Gateway` → `DirectoryFileSink`; then `/files/ID/PATH`, the distribution table, the arrival
/// events, and `DirectoryFileSink`'s path rules.
@Suite(.serialized) struct FileDeliveryServingTests {
    static let origin = IPAddress.v4(0x0AC8_0001)
    static let group = Endpoint(address: .v4(0xEFFF_3001), port: 48_100)

    /// SAP announcements and `rounds` carousel rounds of `files`, merged by due time.
    static func datagrams(_ files: [FluteFile], rounds: Int, repair: Int = 0) throws -> [ScheduledDatagram] {
        let description = ChannelDescription(name: "C-Cast", media: .file, destination: group, origin: origin,
                                             extraAttributes: ["flute-tsi:7"])
        var scheduler = StreamerScheduler()
        scheduler.add(SAPAnnouncer(destination: Endpoint(address: SAPAnnouncer.defaultGroupV4, port: SAPMessage.port), origin: origin,
                                   channels: [description], compress: false, startNanoseconds: 1_767_225_600_000_000_000,
                                   intervalNanoseconds: 1_000_000_000))
        scheduler.add(try FluteCarouselSource(flow: "c-cast", destination: group, files: files,
                                              options: .init(tsi: 7, symbolLength: 700, maxBlockLength: 20, repairSymbols: repair, rounds: rounds),
                                              startNanoseconds: 1_767_225_600_100_000_000, math: repair > 0 ? FluteSend.reedSolomon() : nil))
        var out: [ScheduledDatagram] = []
        while !scheduler.isFinished, let due = scheduler.nextDueNanoseconds { out += scheduler.popDue(nowNanoseconds: due) }
        return out
    }

    static func feed(_ datagrams: [ScheduledDatagram], to gateway: Gateway, skip: (Int, [UInt8]) -> Bool = { _, _ in false }) {
        var pipeline = IngestPipeline()
        for (index, datagram) in datagrams.enumerated() where datagram.flow == "sap" || !skip(index, datagram.payload) {
            let received = Datagram(source: Endpoint(address: origin, port: 40_000), destination: datagram.destination,
                                    payload: datagram.payload[...], timestampNanoseconds: datagram.dueNanoseconds, hopLimit: 16)
            gateway.handle(pipeline.ingest(received))
        }
    }

    static let files = [
        FluteFile(path: "ccast-timeline.xml", bytes: Array("<timeline><clip src=\"media/clip.mp4\"/></timeline>\n".utf8), contentType: "application/xml"),
        FluteFile(path: "media/clip.mp4", bytes: SeededBytes(seed: 5).bytesOnce(30_001), contentType: "video/mp4"),
    ]

    @Test func receivedFilesAreServedListedAndAnnounced() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("gs-files-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        let config = try GatewayConfig.decode(Array("""
            {"license":{"venueName":"V","contentOwner":"O","appDeveloper":"D"},"listeners":{"fan":"127.0.0.1:0","management":"127.0.0.1:0"},"management":{"token":"secret"},"stateDirectory":"\(state)"}
            """.utf8))
        let daemon = Daemon(config: config, board: nil)
        try daemon.start()
        defer { daemon.stop() }
        let status = try #require(daemon.status)
        // The started gateway assembles files on its `files` thread: wait for both to be stored.
        let storedFiles = DispatchSemaphore(value: 0)
        daemon.gateway.files.observeStored { _, _ in storedFiles.signal() }
        // Reed-Solomon repair on (B = 20, max_n = 28: the clip's blocks of 15/14/14 sources get 6/5/5
        // repairs); every 7th packet of the clip lost (≤ 3 of any block), the rest kept.
        Self.feed(try Self.datagrams(Self.files, rounds: 1, repair: 8), to: daemon.gateway, skip: { index, payload in
            index % 7 == 3 && (try? LCTHeader.parse(payload[...]).get().header.toi) == 2
        })
        for _ in Self.files { #expect(storedFiles.wait(timeout: .now() + 20) == .success, "a file was not stored") }

        let fan = RawHTTPClient(port: status.fan.port)
        for file in Self.files {
            let reply = try fan.get("/files/c-cast/\(file.path)")
            #expect(reply.status == 200, "\(file.path): \(reply.text)")
            #expect(reply.body == file.bytes, "\(file.path): \(reply.body.count) bytes")
            #expect(reply.headers["content-type"] == file.contentType)
        }
        let stored = try Data(contentsOf: URL(fileURLWithPath: state + "/files/c-cast/media/clip.mp4"))
        #expect(Array(stored) == Self.files[1].bytes)
        #expect(try fan.get("/files/c-cast/nope.xml").status == 404)
        #expect(try fan.get("/files/c-cast/.hidden").status == 404)
        #expect(try fan.get("/files/other/ccast-timeline.xml").status == 404)
        #expect(try fan.get("/files/c-cast").status == 404)
        let partial = try fan.get("/files/c-cast/media/clip.mp4", headers: ["Range: bytes=-100"])
        #expect(partial.status == 206 && partial.body == Array(Self.files[1].bytes.suffix(100)))

        let management = RawHTTPClient(port: status.management.port)
        let table = try JSONParser.parse(try management.get("/api/v1/files/c-cast", headers: ["Authorization: Bearer secret"]).body)
        guard case .array(let rows)? = table["files"] else { Issue.record("no files: \(table)"); return }
        #expect(rows.map { $0["path"] } == [.string("ccast-timeline.xml"), .string("media/clip.mp4")])
        #expect(rows.map { $0["status"] } == [.string("complete"), .string("complete")])
        #expect(rows.map { $0["size"] } == [.number(Double(Self.files[0].bytes.count)), .number(30_001)])
        #expect(IngestStats.int(table["stats"]?["objects_completed"]) == 2)
        #expect((IngestStats.int(table["stats"]?["symbols_recovered"]) ?? 0) > 0)
        #expect(try management.get("/api/v1/files/nope", headers: ["Authorization: Bearer secret"]).status == 404)
        let all = try JSONParser.parse(try management.get("/api/v1/files", headers: ["Authorization: Bearer secret"]).body)
        guard case .array(let channels) = all else { Issue.record("not an array: \(all)"); return }
        #expect(channels.first?["id"] == .string("c-cast"))

        let events = try fan.get("/channels/c-cast/messages.json")
        #expect(events.status == 200)
        #expect(events.text.contains("media/clip.mp4") && events.text.contains("ccast-timeline.xml"))
    }

    @Test func directorySinkWritesAtomicallyAndRefusesEscapes() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("gs-sink-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let sink = DirectoryFileSink(root: root)
        let file = ReceivedFile(channelID: "c", path: "a/b.txt", contentType: "text/plain", toi: 1, fdtInstance: 0,
                                bytes: Array("hello".utf8), completedNanoseconds: 5)
        let stored = try sink.store(file)
        #expect(stored.localPath == root + "/c/a/b.txt" && stored.size == 5)
        #expect(stored.etag == "\"5d41402abc4b2a76b9719d911017c592\"")
        #expect(sink.lookup(channelID: "c", path: "a/b.txt") == stored)
        #expect(sink.files(channelID: "c") == [stored])
        // A newer version replaces the older; no temporary file is left behind.
        _ = try sink.store(ReceivedFile(channelID: "c", path: "a/b.txt", contentType: nil, toi: 2, fdtInstance: 1,
                                        bytes: Array("world!".utf8), completedNanoseconds: 6))
        #expect(try String(contentsOfFile: root + "/c/a/b.txt", encoding: .utf8) == "world!")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/c/a") == ["b.txt"])
        // After a restart the file is found on disk.
        #expect(DirectoryFileSink(root: root).lookup(channelID: "c", path: "a/b.txt")?.size == 6)
        for bad in ["../x", "a/../../x", ".tmp", "/etc/passwd"] {
            let refused = TestSupport.thrownError(StateFileError.self) {
                try sink.store(ReceivedFile(channelID: "c", path: bad, contentType: nil, toi: 3, fdtInstance: 0, bytes: [1],
                                            completedNanoseconds: 7))
            }
            #expect(refused != nil, "\(bad)")
            #expect(sink.lookup(channelID: "c", path: bad) == nil)
        }
        #expect(ContentLocation.relativePath("http://example.com/dir/./a.xml?x=1") == "dir/a.xml")
        #expect(ContentLocation.relativePath("/media//clip.mp4") == "media/clip.mp4")
        #expect(ContentLocation.relativePath("media/../x") == nil)
        #expect(ContentLocation.relativePath("a\\b") == nil)
    }
}

extension SeededBytes {
    func bytesOnce(_ count: Int) -> [UInt8] {
        var copy = self
        return copy.bytes(count)
    }
}
