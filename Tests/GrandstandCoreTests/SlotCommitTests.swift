import Testing
@testable import GrandstandCore
import TestSupport

/// The booted slot's commit decision (docs/updates.md): marked good after health held for
/// `markGoodAfterSeconds`, rolled back after `rollbackAfterSeconds` only when another slot is good.
/// Time is a plain number stepped by hand, the way a manual clock would.
struct SlotCommitTests {
    static let running = ServiceState(reasons: [.noChannels, .wifiDown])   // running, but down for venue reasons
    static let starting = ServiceState(reasons: .notRunning)
    static let up = ServiceState(reasons: [])
    static let trial = SlotCommit.Trial(slot: "rootfs.1", good: false, fallback: true)

    static func config(markGood: Int = 60, rollback: Int = 300, health: GatewayConfig.Update.Health = .running) -> GatewayConfig.Update {
        var config = GatewayConfig.Update()
        config.markGoodAfterSeconds = markGood
        config.rollbackAfterSeconds = rollback
        config.health = health
        return config
    }

    @Test func marksGoodOnceHealthHeldLongEnough() {
        var commit = SlotCommit(config: Self.config(), startedAt: 1000)
        #expect(commit.decide(now: 1000, state: Self.starting, trial: Self.trial) == .wait)
        #expect(commit.decide(now: 1010, state: Self.running, trial: Self.trial) == .wait)
        #expect(commit.decide(now: 1069, state: Self.running, trial: Self.trial) == .wait)
        #expect(commit.decide(now: 1070, state: Self.running, trial: Self.trial) == .markGood(reason: "healthy (running) for 60 s"))
        #expect(commit.decide(now: 1071, state: Self.running, trial: Self.trial) == .wait)   // once
    }

    @Test func aBreakInHealthRestartsTheHold() {
        var commit = SlotCommit(config: Self.config(), startedAt: 0)
        _ = commit.decide(now: 0, state: Self.running, trial: Self.trial)
        #expect(commit.decide(now: 59, state: Self.starting, trial: Self.trial) == .wait)
        #expect(commit.decide(now: 60, state: Self.running, trial: Self.trial) == .wait)
        #expect(commit.decide(now: 119, state: Self.running, trial: Self.trial) == .wait)
        #expect(commit.decide(now: 120, state: Self.running, trial: Self.trial) == .markGood(reason: "healthy (running) for 60 s"))
    }

    @Test func requiringUpIgnoresMereRunning() {
        var commit = SlotCommit(config: Self.config(markGood: 10, rollback: 100, health: .up), startedAt: 0)
        for now in stride(from: 0.0, through: 99, by: 1) {
            #expect(commit.decide(now: now, state: Self.running, trial: Self.trial) == .wait)
        }
        guard case .rollBack(let reason) = commit.decide(now: 100, state: Self.running, trial: Self.trial) else {
            Issue.record("expected a rollback at 100 s")
            return
        }
        #expect(reason == "not healthy 100 s into the trial (up needed for 10 s within 100 s)")
        #expect(commit.decide(now: 200, state: Self.up, trial: Self.trial) == .wait)   // decided
    }

    @Test func noRollbackWithoutAGoodSlotToFallBackTo() {
        var commit = SlotCommit(config: Self.config(markGood: 10, rollback: 20), startedAt: 0)
        let alone = SlotCommit.Trial(slot: "rootfs.0", good: false, fallback: false)
        #expect(commit.decide(now: 500, state: Self.starting, trial: alone) == .wait)
        _ = commit.decide(now: 501, state: Self.running, trial: alone)
        #expect(commit.decide(now: 511, state: Self.running, trial: alone) == .markGood(reason: "healthy (running) for 10 s"))
    }

    @Test func aGoodSlotOrNoRAUCNeedsNothing() {
        var commit = SlotCommit(config: Self.config(markGood: 1, rollback: 10), startedAt: 0)
        let good = SlotCommit.Trial(slot: "rootfs.0", good: true, fallback: true)
        #expect(commit.decide(now: 0, state: Self.running, trial: good) == .wait)
        #expect(commit.decide(now: 100, state: Self.running, trial: good) == .wait)
        #expect(commit.decide(now: 200, state: Self.starting, trial: nil) == .wait)
    }

    @Test func theRecordTellsTrialFromRollback() throws {
        let record = UpdateRecord(slot: "rootfs.1", version: "0.2.0", from: "rootfs.0", installedAt: 1_767_225_600)
        #expect(record.outcome(booted: "rootfs.1") == .onTrial)
        #expect(record.outcome(booted: "rootfs.0") == .rolledBack)
        #expect(UpdateRecord(json: try JSONParser.parse(record.json.encoded)) == record)
        #expect(UpdateRecord(json: try JSONParser.parse(#"{"slot":"rootfs.1"}"#)) == nil)
    }
}

/// The `update` config section: defaults, values, bad values with their JSON paths.
struct UpdateConfigTests {
    static func config(_ update: String) throws -> GatewayConfig {
        try GatewayConfig.decode(Array(#"{"license":{"venueName":"V","contentOwner":"O","appDeveloper":"D"},"management":{"token":"t"}\#(update)}"#.utf8))
    }

    @Test func defaultsAndValues() throws {
        #expect(try Self.config("").update == GatewayConfig.Update())
        let update = try Self.config(#","update":{"markGoodAfterSeconds":30,"rollbackAfterSeconds":120,"health":"up"}"#).update
        #expect(update.markGoodAfterSeconds == 30 && update.rollbackAfterSeconds == 120 && update.health == .up)
        #expect(update.multicast == nil)
        let multicast = try Self.config(#","update":{"multicast":{"channel":"updates","windows":["02:00-05:00"],"maxViewers":5,"staggerSeconds":600}}"#).update.multicast
        #expect(multicast?.channel == "updates" && multicast?.rollout.windows.map(\.description) == ["02:00-05:00"])
        #expect(multicast?.rollout.maxViewers == 5 && multicast?.rollout.staggerSeconds == 600)
        #expect(try Self.config(#","update":{"multicast":{"channel":"updates"}}"#).update.multicast?.rollout == RolloutPolicy())
    }

    @Test(arguments: [
        (#","update":{"markGoodAfterSeconds":0,"health":"green"}"#,
         ["$.update.markGoodAfterSeconds: 0 is out of range 1...86400", "$.update.health: \"green\" is not a health requirement (running, up)"]),
        (#","update":{"markGoodAfterSeconds":600,"rollbackAfterSeconds":300}"#,
         ["$.update.rollbackAfterSeconds: 300 is not more than markGoodAfterSeconds (600)"]),
        (#","update":{"markGood":1}"#,
         ["$.update.markGood: unknown key (expected one of: health, markGoodAfterSeconds, multicast, rollbackAfterSeconds)"]),
        (#","update":{"multicast":{"windows":["2-5"],"staggerSeconds":-1}}"#,
         ["$.update.multicast.channel: required string is missing"]),
        (#","update":{"multicast":{"channel":"u","windows":["2-5"],"staggerSeconds":-1}}"#,
         ["$.update.multicast.windows[0]: \"2-5\" is not a UTC window HH:MM-HH:MM", "$.update.multicast.staggerSeconds: -1 is out of range 0...86400"]),
    ])
    func badValuesAreReportedWithTheirPath(update: String, expected: [String]) {
        let error = thrownError(ConfigError.self) { _ = try Self.config(update) }
        #expect(error?.issues.map(\.description) == expected)
    }
}
