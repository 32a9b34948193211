import Foundation
import Synchronization
import Testing
import GrandstandCore
@testable import GrandstandIngest
@testable import GrandstandOperations
import GrandstandRuntime
import RAUC
@testable import GrandstandServing
@testable import GrandstandStreamer

/// Bundles heard on the update channel (docs/updates.md "Multicast delivery"), against a fake
/// RAUC on a manual clock: a bundle carried by a FLUTE carousel and stored by the file channel
/// is inspected, installed under the rollout rule, and the reboot is asked for at the box's turn;
/// a wrongly signed or foreign bundle is refused once, journaled with its reason.
@Suite(.serialized) struct MulticastUpdateTests {
    /// RAUC as the update service sees it: `InspectBundle` answers from `bundles` (by the file's
    /// contents), installing writes the other slot at once.
    final class FakeRAUC: SlotUpdater, BundleInspector, @unchecked Sendable {
        struct State {
            var slots = [SlotStatus(name: "rootfs.0", bootname: "A", state: "booted", bootStatus: "good", version: "0.1.0"),
                         SlotStatus(name: "rootfs.1", bootname: "B", state: "inactive", bootStatus: "good", version: "0.0.9")]
            var installs: [String] = []
            var inspections: [String] = []
        }
        let lock = Mutex(State())
        /// File contents → what RAUC says (a version and compatible, or a refusal).
        let bundles: [String: Result<BundleInfo, BusError>]

        init(bundles: [String: Result<BundleInfo, BusError>]) { self.bundles = bundles }

        func inspect(_ path: String) throws -> BundleInfo {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            lock.withLock { $0.inspections.append(text) }
            guard let answer = bundles[text] else { throw BusError("InspectBundle", errno: 5, message: "Failed to open bundle") }
            return try answer.get()
        }
        func systemCompatible() throws -> String { "grandstand-qemu-virt" }
        func install(_ source: String) throws {
            let version = try inspect(source).version
            lock.withLock { $0.installs.append(source); $0.slots[1].version = version; $0.slots[1].state = "inactive" }
        }
        func operation() throws -> String { "idle" }
        func lastError() throws -> String { "" }
        func progress() throws -> (percent: Int, message: String) { (100, "done") }
        func slots() throws -> [SlotStatus] { lock.withLock { $0.slots } }
        func markBooted(_ state: String) throws -> String { "marked" }
        var installs: [String] { lock.withLock { $0.installs } }
        var inspections: [String] { lock.withLock { $0.inspections } }
    }

    static func info(_ version: String, _ compatible: String = "grandstand-qemu-virt", hash: String) -> Result<BundleInfo, BusError> {
        .success(BundleInfo(facts: ["manifest-hash": hash, "update.version": version, "update.compatible": compatible]))
    }

    static let fake = [
        "good bundle": info("0.2.0", hash: "aa11"),
        "foreign bundle": info("0.2.0", "grandstand-rpi4", hash: "bb22"),
        "old bundle": info("0.0.5", hash: "cc33"),
        "tampered bundle": .failure(BusError("InspectBundle", errno: 5, name: "org.gtk.GDBus.UnmappedGError.Quark._g_2dio_2derror_2dquark.Code30",
                                             message: "signature verification failed: unable to get local issuer certificate")),
    ]

    final class Box: Sendable {
        let service: UpdateService
        let rauc: FakeRAUC
        let events: EventLog
        let clock: ManualClock
        let files: FileChannels
        let state: String
        init(_ counters: Counters, service: UpdateService, rauc: FakeRAUC, events: EventLog, clock: ManualClock, files: FileChannels, state: String) {
            self.service = service
            self.rauc = rauc
            self.events = events
            self.clock = clock
            self.files = files
            self.state = state
            self.counters = counters
        }
        let counters: Counters
        func rebootCount() -> Int { counters.reboots.withLock { $0 } }
        func watching(_ count: Int) { counters.viewers.withLock { $0 = count } }
    }

    final class Counters: Sendable {
        let reboots = Mutex(0)
        let viewers = Mutex(0)
    }

    /// A box listening on channel `c-cast` with `rollout` (the update.multicast JSON members).
    static func box(_ rollout: String, boxKey: UInt64 = 120) throws -> Box {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("gs-mcupdate-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        let config = try GatewayConfig.decode(Array("""
            {"license":{"venueName":"V","contentOwner":"O","appDeveloper":"D"},"update":{"multicast":{"channel":"c-cast",\(rollout)}}}
            """.utf8))
        let clock = ManualClock(), events = EventLog(stderrOnly: true), rauc = FakeRAUC(bundles: fake)
        let counters = Counters()
        let inputs = MulticastInputs(inspector: rauc, viewers: { counters.viewers.withLock { $0 } }, boxKey: boxKey,
                                     runningVersion: "0.1.0", incomingDirectory: state + "/update-incoming")
        let service = UpdateService(config: config, updater: rauc, events: events, clock: clock, recordPath: state + "/update.json",
                                    pollSeconds: 1, multicast: inputs, health: { ServiceState(reasons: []) },
                                    requestReboot: { counters.reboots.withLock { $0 += 1 } })
        // The daemon's wiring: the file channel's stored bundles reach the update service.
        let files = FileChannels()
        files.sink = DirectoryFileSink(root: state + "/files")
        files.observeStored { id, file in
            guard id == "c-cast", file.path.hasSuffix(".raucb") else { return }
            service.heard(path: file.localPath, identity: "\(file.localPath) \(file.size) \(file.etag)")
        }
        return Box(counters, service: service, rauc: rauc, events: events, clock: clock, files: files, state: state)
    }

    /// Two carousel rounds of `files` through the ingest pipeline into the box's file channel.
    static func send(_ files: [FluteFile], to box: Box) throws {
        var pipeline = IngestPipeline()
        var channels: [String: Bool] = [:]
        for datagram in try FileDeliveryServingTests.datagrams(files, rounds: 2) {
            let received = Datagram(source: Endpoint(address: FileDeliveryServingTests.origin, port: 40_000), destination: datagram.destination,
                                    payload: datagram.payload[...], timestampNanoseconds: datagram.dueNanoseconds, hopLimit: 16)
            for action in pipeline.ingest(received) {
                switch action {
                case .channelsChanged(let changes):
                    box.files.apply(changes)
                    for change in changes { channels[change.channel.id] = true }
                case .fileDatagram(let id, let payload, let at):
                    _ = box.files.receive(id, payload, at: at)
                default:
                    break
                }
            }
        }
        #expect(channels["c-cast"] == true)
    }

    /// Steps the clock a second at a time until `done` or `seconds` have passed; the seconds taken.
    static func step(_ box: Box, seconds: Int, until done: () -> Bool) -> Int {
        for elapsed in 0..<seconds {
            if done() { return elapsed }
            let parked = box.clock.sleepers
            box.clock.advance(by: 1_000_000_000)
            box.clock.waitForSleepers(max(parked, 1))
        }
        return seconds
    }

    static func bundle(_ name: String, _ text: String) -> FluteFile {
        FluteFile(path: name, bytes: Array(text.utf8), contentType: "application/octet-stream")
    }

    /// Heard → inspected → installed at once (no windows, nobody watching) → reboot at the turn:
    /// the hour's start plus this box's key (120 s), not before. Heard again: not inspected again.
    @Test func aBundleHeardIsInstalledAndTheBoxRebootsAtItsTurn() throws {
        let box = try Self.box(#""staggerSeconds":600"#)
        defer { try? FileManager.default.removeItem(atPath: box.state) }
        try box.service.start()
        defer { box.service.stop() }
        box.clock.waitForSleepers(1)
        try Self.send([Self.bundle("grandstand-0.2.0.raucb", "good bundle"), Self.bundle("readme.txt", "not a bundle")], to: box)
        // Inspected on the service's next round (it polls every 6 s while idle), installed at once,
        // seen written on the round after.
        let installed = Self.step(box, seconds: 30) { box.service.status.multicast?.verdict == "installed" }
        #expect(installed <= 8)
        #expect(box.rauc.installs.count == 1 && box.rauc.installs.first?.hasPrefix(box.state + "/update-incoming/") == true)
        #expect(box.rauc.inspections.filter { $0 == "good bundle" }.count == 2)   // heard once (+ the fake's own read to install)
        #expect(box.events.hub.recentKinds.contains("update-heard") && box.events.hub.recentKinds.contains("update-installed"))
        let multicast = try #require(box.service.status.multicast)
        #expect(multicast.lastBundle?.version == "0.2.0" && multicast.lastBundle?.hash == "aa11")
        // The ManualClock starts on an hour (2026-01-01 00:00 UTC): the turn is 120 s into it.
        let turn: Int64 = 1_767_225_600 + 120
        #expect(box.service.status.multicast?.rebootAt == turn)
        #expect(box.rebootCount() == 0)
        let rebooted = Self.step(box, seconds: 200) { box.rebootCount() > 0 }
        #expect(box.clock.wallNanoseconds() / 1_000_000_000 >= turn && box.clock.wallNanoseconds() / 1_000_000_000 <= turn + 2, "after \(rebooted) s")
        #expect(box.service.status.multicast?.verdict == "rebooting")
        // The carousel repeats: the same stored file is not inspected again, nothing installs twice.
        try Self.send([Self.bundle("grandstand-0.2.0.raucb", "good bundle")], to: box)
        _ = Self.step(box, seconds: 3) { false }
        #expect(box.rauc.installs.count == 1)
        let metrics = PrometheusText.render(UpdateMetrics.families(box.service.status))
        #expect(metrics.contains("grandstand_update_multicast_info{channel=\"c-cast\",phase=\"rebooting\",verdict=\"rebooting\",version=\"0.2.0\"} 1\n"), "\(metrics)")
        #expect(metrics.contains("grandstand_update_multicast_bundles_heard_total 1\n"), "\(metrics)")
    }

    /// Outside the window nothing installs; with fans watching above the limit neither.
    @Test func waitsForTheWindowAndTheViewers() throws {
        // The ManualClock's day starts at 00:00 UTC: the window opens 60 s later.
        let box = try Self.box(#""windows":["00:01-02:00"],"maxViewers":2,"staggerSeconds":0"#)
        defer { try? FileManager.default.removeItem(atPath: box.state) }
        box.watching(5)
        try box.service.start()
        defer { box.service.stop() }
        box.clock.waitForSleepers(1)
        try Self.send([Self.bundle("b.raucb", "good bundle")], to: box)
        let accepted = Self.step(box, seconds: 10) { box.service.status.multicast?.verdict == "accepted" }
        #expect(accepted <= 7)
        _ = Self.step(box, seconds: 1) { false }
        #expect(box.service.status.multicast?.waiting == "outside the update windows")
        let opened = Self.step(box, seconds: 80) { box.service.status.multicast?.waiting == "5 fans watching" }
        #expect(accepted + 1 + opened >= 60 && accepted + 1 + opened <= 62)
        #expect(box.rauc.installs.isEmpty)
        box.watching(2)
        let elapsed = Self.step(box, seconds: 10) { box.rebootCount() > 0 }
        #expect(elapsed < 10)
        #expect(box.rauc.installs.count == 1)
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        var contents: String
        var verdict: String
        var reason: String
        var testDescription: String { contents }
    }

    static let refusals = [
        Refusal(contents: "tampered bundle", verdict: "unverified", reason: "signature verification failed: unable to get local issuer certificate"),
        Refusal(contents: "foreign bundle", verdict: "foreign", reason: "compatible \"grandstand-rpi4\" is not this box's \"grandstand-qemu-virt\""),
        Refusal(contents: "old bundle", verdict: "not-newer", reason: "version 0.0.5 is not newer than the booted 0.1.0"),
    ]

    /// Refused with the reason journaled (`update-refused`, its fields) and shown; nothing installs.
    @Test(arguments: refusals) func refusesWithTheReason(_ c: Refusal) throws {
        let box = try Self.box(#""staggerSeconds":0"#)
        defer { try? FileManager.default.removeItem(atPath: box.state) }
        try box.service.start()
        defer { box.service.stop() }
        box.clock.waitForSleepers(1)
        try Self.send([Self.bundle("x.raucb", c.contents)], to: box)
        _ = Self.step(box, seconds: 10) { box.service.status.multicast?.verdict == "refused" }
        let multicast = try #require(box.service.status.multicast)
        #expect(multicast.verdict == "refused" && multicast.bundlesRefused == 1)
        #expect(multicast.reason?.contains(c.reason) == true, "\(multicast.reason ?? "")")
        #expect(box.rauc.installs.isEmpty && box.rebootCount() == 0)
        // Journaled once (as the event stream shows it: the same fields), with the reason.
        let refused = box.events.hub.recentText.filter { $0.contains("event: update-refused\n") }
        #expect(refused.count == 1)
        let escaped = c.reason.replacingOccurrences(of: "\"", with: "\\\"")
        #expect(refused.first?.contains("\"VERDICT\":\"\(c.verdict)\"") == true, "\(refused)")
        #expect(refused.first?.contains(escaped) == true, "\(refused)")
        #expect(GatewayEvent.Kind.updateRefused.messageID == "cb02ca42b4ee491589e9779a37f5c93c")
        // The incoming link is gone with the refusal.
        #expect((try? FileManager.default.contentsOfDirectory(atPath: box.state + "/update-incoming"))?.isEmpty ?? true)
    }
}
