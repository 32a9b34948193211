import Foundation
import GrandstandCore
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import GrandstandDaemon
@testable import GrandstandOperations
@testable import GrandstandServices

/// Item events end to end, with curl as the real client on both listeners: a fan requests two
/// items (`POST /items`), one downloads and is deleted, one does not exist. The fans' stream
/// (`/items/events`) and the operator's (`/api/v1/events`) carry discovered, download started,
/// progress, downloaded, failed with its code and deleted; the journal has them by MESSAGE_ID;
/// fans never see an origin URL.
@Suite(.serialized) struct CacheItemEventsTests {
    /// `curl -sN` following an event stream into a file until stopped.
    final class Follower {
        let process = Process()
        let output: String

        init(_ url: String, headers: [String] = []) throws {
            output = NSTemporaryDirectory() + "gs-sse-\(UUID().uuidString)"
            _ = FileManager.default.createFile(atPath: output, contents: nil)
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["curl", "-sN", "--max-time", "120"] + headers.flatMap { ["-H", $0] } + [url]
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
            try process.run()
        }

        var events: [ServerSentEvent] {
            var parser = ServerSentEventParser()
            return parser.feed((try? Data(contentsOf: URL(fileURLWithPath: output))).map(Array.init) ?? [])
        }

        func stop() {
            // SIGKILL: the test process blocks SIGTERM, and curl inherits the mask.
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            try? FileManager.default.removeItem(atPath: output)
        }
    }

    /// curl's output when it ends on its `--max-time` (exit 28), as a stream follower does.
    static func curlUntilTimeout(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["curl"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    @Test func fansAndOperatorsFollowItemEventsWithCurl() throws {
        let origin = try CacheOrigin()
        defer { origin.stop() }
        let run = String(UUID().uuidString.prefix(8)).lowercased()
        let goal = "goal-\(run)", ghost = "ghost-\(run)"
        let clip = cacheTestBytes(400_000)
        try origin.media("clip.bin", clip)
        try origin.metadata(goal, #"{"files":[{"url":"clip.bin","path":"clip.bin","size":400000}]}"#)
        var config = try DaemonTests.config()
        config.cache = origin.cacheConfig()
        config.cache?.fans = GatewayConfig.FanRequests(categories: ["highlights"])
        config.stateDirectory = config.cache!.directory + "-state"
        let daemon = Daemon(config: config, board: nil)
        try daemon.start()
        defer { daemon.stop(); daemon.cache?.removeDirectory() }
        let cache = try #require(daemon.cache)
        let status = try #require(daemon.status)
        let fanBase = "http://127.0.0.1:\(status.fan.port)"
        let managementBase = "http://127.0.0.1:\(status.management.port)"

        let fan = try Follower(fanBase + "/items/events")
        defer { fan.stop() }
        let kinds = CacheItemEvent.Kind.allCases.map { "item-" + $0.rawValue }.joined(separator: ",")
        let operators = try Follower(managementBase + "/api/v1/events?kinds=" + kinds, headers: ["Authorization: Bearer secret"])
        defer { operators.stop() }
        try waitFor("both streams connected", timeout: 20) { cache.events.fans.count == 1 && daemon.events.hub.count == 1 }

        for id in [goal, ghost] {
            let answer = try runCommand(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "-H", "Content-Type: application/json",
                                         "--data", #"{"id":"\#(id)","category":"highlights"}"#, fanBase + "/items"])
            #expect(answer == "202", "POST /items \(id)")
        }
        #expect(try cache.waitForItem(goal, [.cached, .failed]).state == .cached)
        // An unknown content id stays metadata-not-received, with its code (docs/cache.md "Error model").
        try waitFor("the ghost's error", timeout: 60) { cache.item(ghost)?.error == .contentIDDoesNotExist }
        #expect(cache.item(ghost)?.state == .metadataNotReceived)
        let deleted = try runCommand(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "DELETE", "-H", "Authorization: Bearer secret",
                                      managementBase + "/api/v1/items/" + goal])
        #expect(deleted == "200")
        try waitFor("the deleted event on both streams", timeout: 20) {
            fan.events.contains { $0.event == "deleted" } && operators.events.contains { $0.event == "item-deleted" }
        }

        // Fans: the SDK's sequence for the item, its file's bytes, the ghost's code, no origin.
        let fanEvents = fan.events
        let forGoal = fanEvents.filter { (try? JSONParser.parse(Array($0.data.utf8)))?["id"] == .string(goal) }
        let sequence = forGoal.compactMap(\.event).filter { $0 != "progress" }
        #expect(sequence == ["discovered", "download-started", "downloaded", "deleted"], "\(forGoal.map(\.data))")
        let progress = try forGoal.filter { $0.event == "progress" }.map { try JSONParser.parse(Array($0.data.utf8)) }
        #expect(!progress.isEmpty && progress.allSatisfy { $0["path"] == .string("clip.bin") && $0["fileSize"] == .number(400_000) })
        #expect(progress.count < 50, "throttled: \(progress.count) progress events")
        let failed = try #require(fanEvents.first { $0.event == "failed" })
        let failure = try JSONParser.parse(Array(failed.data.utf8))
        #expect(failure["id"] == .string(ghost) && failure["error"] == .string("content-id-does-not-exist"))
        let fanText = fanEvents.map(\.data).joined(separator: "\n")
        #expect(!fanText.contains("127.0.0.1:\(origin.port)") && !fanText.contains("http"), "\(fanText)")
        #expect(fanEvents.allSatisfy { $0.id != nil })

        // Operators: the same events with their MESSAGE_IDs, the failure's detail included.
        // (The stream opens with the service state, `status`.)
        let operatorEvents = try operators.events.filter { $0.event != "status" }.map { try JSONParser.parse(Array($0.data.utf8)) }
        let goalKinds = operatorEvents.filter { $0["fields"]?["ITEM"] == .string(goal) }.compactMap { $0["kind"] }.filter { $0 != .string("item-progress") }
        #expect(goalKinds == ["item-discovered", "item-download-started", "item-downloaded", "item-deleted"].map(JSONValue.string))
        let detail = operatorEvents.first { $0["kind"] == .string("item-failed") }?["fields"]?["ERROR_DETAIL"]
        #expect(detail.map { $0.encoded.contains("/meta/\(ghost)") } == true, "\(String(describing: detail))")
        #expect(operatorEvents.allSatisfy { event in
            GatewayEvent.Kind.allCases.contains { .string($0.rawValue) == event["kind"] && .string($0.messageID) == event["messageId"] }
        })

        // A fan that reconnects with Last-Event-ID gets what followed that event.
        let firstID = try #require(fanEvents.first?.id)
        let replay = try Self.curlUntilTimeout(["-sN", "--max-time", "2", "-H", "Last-Event-ID: \(firstID)", fanBase + "/items/events"])
            .split(separator: "\n").filter { $0.hasPrefix("id: ") }
        #expect(replay.count == fanEvents.count - 1)
        #expect(try runCommand(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", fanBase + "/items/events?kinds=nope"]) == "400")

        // journald has them under their MESSAGE_IDs (through the management API's log search).
        // The bound is the suite's usual one for the journal: beside the whole suite on a loaded
        // 2-core runner a search once took over 20 s to see the entry.
        try waitFor("item-downloaded in the journal", timeout: 60) {
            let logs = try runCommand(["curl", "-s", "-H", "Authorization: Bearer secret",
                                       managementBase + "/api/v1/logs?since=-5m&messageId=" + GatewayEvent.Kind.itemDownloaded.messageID])
            return logs.contains(goal)
        }

    }
}
