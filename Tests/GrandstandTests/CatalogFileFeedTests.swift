import Foundation
#if canImport(Glibc)
import Glibc
#endif
import GrandstandCore
import TestSupport
import Testing

/// The catalog feed arriving over a file channel end to end: `grandstand send --files` carries a
/// `catalog.json` to the daemon (live ingest in a private network namespace); `/catalog` then
/// answers from it, and a changed feed replaces it. Needs root; under qemu-user (no packet
/// sockets) the capture's clear error is checked instead, as in FileDeliveryEndToEndTests.
@Suite(.serialized) struct CatalogFileFeedTests {
    static func total(_ reply: RawHTTPClient.Reply) -> Double? {
        guard reply.status == 200, case .number(let total)? = try? JSONParser.parse(reply.body)["total"] else { return nil }
        return total
    }

    @Test func aFeedSentOnAFileChannelIsTheCatalogAndAChangedOneReplacesIt() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("gs-catalog-flute-\(getpid())").path
        try FileManager.default.createDirectory(atPath: work + "/out", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let config = try GatewayConfig.decode(Array(FileDeliveryEndToEndTests.config(state: work + "/state").utf8))
        #expect(config.catalog.feedFile == "catalog.json")
        guard TestEnvironment.isRoot, !TestEnvironment.isQEMUUser else {
            try expectNoLiveCaptureHere(config)
            return
        }
        let feed = try Fixtures.bytes("catalog/feed.json")
        try Data(feed).write(to: URL(fileURLWithPath: work + "/out/catalog.json"), options: .atomic)
        let gateway = try NetnsGateway(prefix: "gs-catfeed", config: config)
        defer { gateway.stop() }
        #expect(Self.total(try gateway.get("/catalog")) == 0)
        let send = try gateway.send(["--files", "Venue Files@239.255.48.1:48000=\(work)/out", "--loop", "--duration", "90"])
        defer { send.kill() }
        let expected = Double(try CatalogFeedDecoder.decode(feed).fixtures.count)
        try waitFor("the feed in /catalog", timeout: 60) { Self.total(try gateway.get("/catalog")) == expected }
        let catalogStatus = try JSONParser.parse(try gateway.get("/api/v1/catalog/status", management: true).body)
        #expect(catalogStatus["source"] == .string("flute:venue-files/catalog.json"))

        let changed = #"{"fixtures":[{"id":"f1","type":"match","name":"Only one","startDate":"2026-11-21T15:00:00Z"}]}"#
        try Data(changed.utf8).write(to: URL(fileURLWithPath: work + "/out/catalog.json"), options: .atomic)
        try waitFor("the changed feed in /catalog", timeout: 60) { Self.total(try gateway.get("/catalog")) == 1 }
        #expect(try gateway.get("/catalog?q1=name:like:only").text.contains("\"f1\""))
    }
}
