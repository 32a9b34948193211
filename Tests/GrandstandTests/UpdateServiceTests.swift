import Synchronization
import Testing
import GrandstandCore
@testable import GrandstandOperations
import GrandstandRuntime
#if canImport(Glibc)
import Glibc
#endif

/// The update service against a fake RAUC, on a manual clock (docs/updates.md): the booted slot
/// on trial is marked good after the configured hold, a slot that never gets healthy is marked
/// bad with a reboot request, and a record of an update that did not boot is reported as rolled back.
struct UpdateServiceTests {
    final class FakeRAUC: SlotUpdater, @unchecked Sendable {
        let lock = Mutex<(slots: [SlotStatus], marks: [String], installs: [String])>(([], [], []))
        init(booted: String, bootedGood: Bool) {
            let other = booted == "rootfs.0" ? "rootfs.1" : "rootfs.0"
            lock.withLock { $0.slots = [SlotStatus(name: booted, bootname: "X", state: "booted", bootStatus: bootedGood ? "good" : "bad", version: "2"),
                                        SlotStatus(name: other, bootname: "Y", state: "inactive", bootStatus: "good", version: "1")] }
        }
        func install(_ source: String) throws { lock.withLock { $0.installs.append(source) } }
        func operation() throws -> String { "idle" }
        func lastError() throws -> String { "" }
        func progress() throws -> (percent: Int, message: String) { (100, "done") }
        func slots() throws -> [SlotStatus] { lock.withLock { $0.slots } }
        func markBooted(_ state: String) throws -> String {
            lock.withLock { fake in
                fake.marks.append(state)
                if let i = fake.slots.firstIndex(where: { $0.state == "booted" }) { fake.slots[i].bootStatus = state }
            }
            return "marked"
        }
        var marks: [String] { lock.withLock { $0.marks } }
    }

    static func config(_ update: String) throws -> GatewayConfig {
        try GatewayConfig.decode(Array(#"{"license":{"venueName":"V","contentOwner":"O","appDeveloper":"D"},"update":\#(update)}"#.utf8))
    }

    static func recordPath() -> String {
        "/tmp/grandstand-update-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).json"
    }

    static func write(_ record: UpdateRecord, to path: String) {
        guard let file = fopen(path, "w") else { return }   // optional on trixie's glibc headers
        fputs(record.json.encoded, file)
        fclose(file)
    }

    /// Steps the clock a second at a time until `done` or `seconds` have passed.
    static func step(_ clock: ManualClock, seconds: Int, until done: () -> Bool) -> Int {
        for elapsed in 0..<seconds {
            if done() { return elapsed }
            clock.waitForSleepers(1)
            clock.advance(by: 1_000_000_000)
        }
        return seconds
    }

    @Test func marksTheTrialSlotGoodAfterTheHold() throws {
        let clock = ManualClock(), events = EventLog(stderrOnly: true), fake = FakeRAUC(booted: "rootfs.1", bootedGood: false)
        let path = Self.recordPath()
        defer { unlink(path) }
        Self.write(UpdateRecord(slot: "rootfs.1", version: "2", from: "rootfs.0", installedAt: 0), to: path)
        let service = UpdateService(config: try Self.config(#"{"markGoodAfterSeconds":30,"rollbackAfterSeconds":300}"#),
                                    updater: fake, events: events, clock: clock, recordPath: path, pollSeconds: 1,
                                    health: { ServiceState(reasons: .noChannels) }, requestReboot: { Issue.record("no reboot expected") })
        try service.start()
        defer { service.stop() }
        // The result and the slots are read back just after the mark: wait for all of it (the mark
        // alone raced them on a loaded machine).
        let elapsed = Self.step(clock, seconds: 60) {
            fake.marks == ["good"] && service.status.lastResult != nil && service.status.slots.contains { $0.state == "booted" && $0.bootStatus == "good" }
        }
        #expect(fake.marks == ["good"])
        #expect((30...33).contains(elapsed))
        #expect(service.status.lastResult == "committed" && service.status.lastVersion == "2")
        #expect(events.hub.recentKinds.contains("update-committed"))
        #expect(access(path, F_OK) != 0)   // the record is settled
        // /metrics shows the booted slot good with its version, and the result.
        let metrics = Self.metrics(service.status)
        #expect(metrics.contains("grandstand_update_slot_info{slot=\"rootfs.1\",bootname=\"X\",state=\"booted\",boot_status=\"good\",version=\"2\"} 1\n"), "\(metrics)")
        #expect(metrics.contains("grandstand_update_last_result{result=\"committed\",version=\"2\"} 1\n"), "\(metrics)")
        #expect(metrics.contains("grandstand_update_last_result{result=\"failed\",version=\"\"} 0\n"), "\(metrics)")
        #expect(metrics.contains("grandstand_update_installing 0\n") && metrics.contains("grandstand_update_last_result_timestamp_seconds "))
    }

    static func metrics(_ status: UpdateService.Status) -> String {
        PrometheusText.render(UpdateMetrics.families(status))
    }

    /// Before any result: the slots, nothing installing, no result family samples.
    @Test func metricsBeforeAnyUpdate() {
        var status = UpdateService.Status()
        status.slots = [SlotStatus(name: "rootfs.0", bootname: "A", state: "booted", bootStatus: "good", version: nil)]
        let metrics = Self.metrics(status)
        #expect(metrics.contains("grandstand_update_slot_info{slot=\"rootfs.0\",bootname=\"A\",state=\"booted\",boot_status=\"good\",version=\"\"} 1\n"))
        #expect(!metrics.contains("grandstand_update_last_result{") && !metrics.contains("timestamp_seconds "))
        status.phase = "installing"
        status.percent = 40
        #expect(Self.metrics(status).contains("grandstand_update_progress_percent 40\n"))
    }

    @Test func givesUpASlotThatNeverGetsHealthy() throws {
        let clock = ManualClock(), events = EventLog(stderrOnly: true), fake = FakeRAUC(booted: "rootfs.0", bootedGood: false)
        let reboots = Mutex(0)
        let service = UpdateService(config: try Self.config(#"{"markGoodAfterSeconds":10,"rollbackAfterSeconds":40,"health":"up"}"#),
                                    updater: fake, events: events, clock: clock, recordPath: Self.recordPath(), pollSeconds: 1,
                                    health: { ServiceState(reasons: .noChannels) }, requestReboot: { reboots.withLock { $0 += 1 } })
        try service.start()
        defer { service.stop() }
        let elapsed = Self.step(clock, seconds: 80) { reboots.withLock { $0 } > 0 }
        #expect(fake.marks == ["bad"])
        #expect((40...42).contains(elapsed))
        #expect(service.status.lastResult == "rolling-back")
        #expect(events.hub.recentKinds.contains("update-rolling-back"))
    }

    /// A daemon restarted late in its slot's trial (it died and systemd started it again, slower
    /// than the start limit) keeps the boot's deadline: the trial counts from the boot, not from
    /// this start, so a slowly crash-looping release is still rolled back.
    @Test func restartedDaemonKeepsTheBootsDeadline() throws {
        let clock = ManualClock(monotonic: 35_000_000_000)   // this start: 35 s after the boot
        let events = EventLog(stderrOnly: true), fake = FakeRAUC(booted: "rootfs.0", bootedGood: false)
        let reboots = Mutex(0)
        let service = UpdateService(config: try Self.config(#"{"markGoodAfterSeconds":10,"rollbackAfterSeconds":40,"health":"up"}"#),
                                    updater: fake, events: events, clock: clock, recordPath: Self.recordPath(), pollSeconds: 1,
                                    trialStartedAt: 0, health: { ServiceState(reasons: .noChannels) },
                                    requestReboot: { reboots.withLock { $0 += 1 } })
        try service.start()
        defer { service.stop() }
        let elapsed = Self.step(clock, seconds: 80) { reboots.withLock { $0 } > 0 }
        #expect(fake.marks == ["bad"])
        #expect((5...7).contains(elapsed))
    }

    @Test func reportsARollbackFoundAtStart() throws {
        let clock = ManualClock(), events = EventLog(stderrOnly: true), fake = FakeRAUC(booted: "rootfs.1", bootedGood: true)
        let path = Self.recordPath()
        defer { unlink(path) }
        Self.write(UpdateRecord(slot: "rootfs.0", version: "3", from: "rootfs.1", installedAt: 0), to: path)
        let service = UpdateService(config: try Self.config("{}"), updater: fake, events: events, clock: clock, recordPath: path,
                                    health: { ServiceState(reasons: []) }, requestReboot: {})
        try service.start()
        service.stop()
        #expect(service.status.lastResult == "rolled-back" && service.status.lastVersion == "3")
        #expect(events.hub.recentKinds.contains("update-rolled-back"))
        #expect(fake.marks.isEmpty)
        #expect(access(path, F_OK) != 0)
    }
}
