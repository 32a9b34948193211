import Foundation
import GrandstandCore
import GrandstandRuntime
import TestSupport
import Testing
@testable import GrandstandDaemon
@testable import GrandstandOperations

/// The uploader against a local collector that fails, answers late, refuses and recovers:
/// every queued report arrives once, in order, across a restart of the uploader.
@Suite(.serialized) struct ReporterUploadTests {
    static func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gs-report-\(getpid())-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func settings(port: UInt16, queue: String, limit: Int = 100) -> Reporter.Settings {
        Reporter.Settings(target: UploadTarget(host: "127.0.0.1", port: port, target: "/reports"), intervalMilliseconds: 150,
                          timeoutMilliseconds: 1_500, backoff: UploadBackoff(initialMilliseconds: 50, maxMilliseconds: 400),
                          queueDirectory: queue, queueLimit: limit)
    }

    static func sources() -> Reporter.Sources {
        var sources = Reporter.Sources()
        sources.board = "test-board"
        sources.stats = { IngestStats(total: ["window_no_loss": .number(5)], channels: ["ch1": ["ts_packets": .number(7)]]) }
        return sources
    }

    /// (app session, report_sequence) of each delivered body.
    static func identities(_ bodies: [[UInt8]]) throws -> [(String, Int)] {
        try bodies.map { body in
            let report = try JSONParser.parse(body)
            guard case .string(let session)? = report["app_session_uuid"], let sequence = IngestStats.int(report["report_sequence"]) else {
                throw CollectorError("report without identity: \(String(decoding: body, as: UTF8.self))")
            }
            return (session, sequence)
        }
    }

    /// Steps the reporter's clock 50 ms at a time until `condition` holds: each step wakes the
    /// reporter, which builds or uploads what is due and parks again before the check. Time in
    /// the reporter moves only here; the collector and the HTTP timeouts are real.
    static func drive(_ clock: ManualClock, until what: String, steps: Int = 400, _ condition: () -> Bool) throws {
        for _ in 0..<steps {
            guard clock.waitForSleepers(1) else { throw CollectorError("the reporter did not park (\(what))") }
            if condition() { return }
            clock.advance(by: 50_000_000)
        }
        guard condition() else { throw CollectorError("\(what): not within \(steps) steps of 50 ms") }
    }

    @Test func reportsSurviveFailuresAnOutageAndARestart() throws {
        let root = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let state = root + "/state", queue = root + "/state/reports"
        let collector = ReporterCollector()
        collector.mode = .fail(500)
        try collector.listen()
        defer { collector.closeListener() }

        // Session A: the collector first fails with 500, then answers late, then refuses connections.
        let clockA = ManualClock()
        let first = try Reporter(settings: Self.settings(port: collector.port, queue: queue), stateDirectory: state, sources: Self.sources(),
                                 clock: clockA)
        try first.start()
        try Self.drive(clockA, until: "three 500 answers") { collector.requests >= 3 && first.counters.failures >= 3 && first.counters.built >= 2 }
        #expect(collector.accepted.isEmpty)
        #expect(first.counters.failures >= 3 && first.counters.delivered == 0)
        collector.mode = .delay(milliseconds: 300)
        try Self.drive(clockA, until: "two late deliveries") { collector.accepted.count >= 2 }
        collector.closeListener()
        let failuresBefore = first.counters.failures
        try Self.drive(clockA, until: "refused attempts while reports pile up") {
            let counters = first.counters
            return counters.failures >= failuresBefore + 2 && counters.queued >= 3
        }
        first.stop()
        let sessionA = first.appSessionUUID.description, builtA = Int(first.counters.lastSequence)
        #expect(first.counters.lastError?.contains("Connection refused") == true, "\(first.counters.lastError ?? "")")
        let leftOnDisk = try FileManager.default.contentsOfDirectory(atPath: queue).filter { $0.hasPrefix("report-") }
        #expect(leftOnDisk.count == first.counters.queued && !leftOnDisk.isEmpty)

        // Session B (a restart): same device, new app session; the collector comes back after a while.
        let clockB = ManualClock()
        let second = try Reporter(settings: Self.settings(port: collector.port, queue: queue), stateDirectory: state, sources: Self.sources(),
                                  clock: clockB)
        #expect(second.deviceUUID == first.deviceUUID)
        #expect(second.appSessionUUID != first.appSessionUUID)
        #expect(second.counters.queued == leftOnDisk.count)
        try second.start()
        try Self.drive(clockB, until: "300 ms of refused attempts") { clockB.monotonicNanoseconds() >= 1_300_000_000 }
        collector.mode = .accept
        try collector.listen()
        try Self.drive(clockB, until: "the backlog and two new reports delivered") {
            let counters = second.counters
            return counters.queued == 0 && counters.built >= 2 && counters.delivered >= leftOnDisk.count + 2
        }
        second.stop()
        let sessionB = second.appSessionUUID.description
        let remaining = try FileManager.default.contentsOfDirectory(atPath: queue).filter { $0.hasPrefix("report-") }.count
        let deliveredB = Int(second.counters.lastSequence) - remaining

        let delivered = try Self.identities(collector.accepted)
        let expected = (1...builtA).map { (sessionA, $0) } + (1...deliveredB).map { (sessionB, $0) }
        #expect(delivered.map(\.0) == expected.map(\.0))
        #expect(delivered.map(\.1) == expected.map(\.1), "in order, none lost, none twice")
        let report = try JSONParser.parse(try #require(collector.accepted.last))
        #expect(report["device_uuid"] == .string(first.deviceUUID.description))
        #expect(report["board"] == .string("test-board"))
        #expect(report["total"]?["window_no_loss"] == .number(5))
        #expect(report["channels"]?["ch1"]?["video_session_uuid"] != nil)
        let stored = try String(contentsOfFile: state + "/device-uuid", encoding: .utf8)
        #expect(stored == first.deviceUUID.description + "\n")
    }

    @Test func fullQueueDropsTheOldestAndCountsThem() throws {
        let root = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let queue = try ReportQueue(directory: root + "/q", limit: 3)
        for n in 1...5 { try queue.enqueue(Array("r\(n)".utf8)) }
        #expect(queue.sequences == [3, 4, 5])
        #expect(queue.dropped == 2)
        #expect(queue.oldest().map { String(decoding: $0.bytes, as: UTF8.self) } == "r3")
        // A torn write of an earlier run (temporary file) is cleaned up; numbering continues.
        _ = FileManager.default.createFile(atPath: root + "/q/.report-00000000000000000006.json.tmp", contents: Data("x".utf8))
        let reopened = try ReportQueue(directory: root + "/q", limit: 3)
        #expect(reopened.sequences == [3, 4, 5])
        #expect(!FileManager.default.fileExists(atPath: root + "/q/.report-00000000000000000006.json.tmp"))
        reopened.remove(3)
        try reopened.enqueue(Array("r6".utf8))
        #expect(reopened.sequences == [4, 5, 6])
        #expect(reopened.dropped == 0)
    }

    @Test func deviceUUIDIsCreatedOnceAndUnusableStateIsAClearError() throws {
        let root = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let first = try DeviceIdentity.load(stateDirectory: root + "/s")
        #expect(try DeviceIdentity.load(stateDirectory: root + "/s") == first)
        #expect(first.description.count == 36 && Array(first.description)[14] == "4")
        _ = FileManager.default.createFile(atPath: root + "/file", contents: Data())
        let error = thrownError(StateFileError.self) { try DeviceIdentity.load(stateDirectory: root + "/file/s") }
        #expect(error?.description == "create folder \(root)/file/s: Not a directory (errno 20)")
    }

    /// The daemon with `reporting.url`: a report arrives with the device UUID from the state
    /// folder and the Wi-Fi reading's clear error (no wlan0 here, or no netlink under qemu-user).
    @Test func daemonUploadsReports() throws {
        let root = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let collector = ReporterCollector()
        try collector.listen()
        defer { collector.closeListener() }
        let config = try GatewayConfig.decode(Array("""
        {"license":{"venueName":"V","contentOwner":"O","appDeveloper":"D"},
         "listeners":{"fan":"127.0.0.1:0","management":"127.0.0.1:0"},"management":{"token":"t"},
         "network":{"wifiInterface":"gs-nowifi0"},"stateDirectory":"\(root)",
         "reporting":{"url":"http://127.0.0.1:\(collector.port)/r","intervalSeconds":1}}
        """.utf8))
        let daemon = Daemon(config: config, board: nil)
        try daemon.start()
        defer { daemon.stop() }
        try waitFor("a report from the daemon", timeout: 20) { !collector.accepted.isEmpty }
        let report = try JSONParser.parse(collector.accepted[0])
        let stored = try String(contentsOfFile: root + "/device-uuid", encoding: .utf8)
        #expect(report["device_uuid"] == .string(stored.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(report["report_sequence"] == .number(1))
        #expect(report["wifi"] == .null)
        let wifiError = report["wifi_error"].flatMap { if case .string(let text) = $0 { text } else { nil } } ?? ""
        #expect(wifiError == "gs-nowifi0: no such network interface" || wifiError.contains("generic netlink unavailable"), "\(wifiError)")
        #expect(report["session_link_indicator"] == .number(0))
    }
}
