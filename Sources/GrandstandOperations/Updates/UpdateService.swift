import GrandstandCore
import GrandstandRuntime
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A/B updates on the box (docs/updates.md): installs a bundle into the other slot through RAUC
/// (`POST /api/v1/update`, `grandstand update install`), reports progress and the last result,
/// and decides the booted slot's fate (`SlotCommit`): marked good once health has held for
/// `update.markGoodAfterSeconds`, or marked bad and rebooted out of after `rollbackAfterSeconds`.
/// Runs on its own thread (`update`), polling RAUC once a second while installing, every
/// `pollSeconds` otherwise.
public final class UpdateService: Sendable {
    public struct Status: Sendable {
        /// `idle`, `installing`.
        public var phase = "idle"
        public var source: String?
        public var percent = 0
        public var step = ""
        public var rebootWhenDone = false
        /// The last result: `installed`, `failed`, `committed`, `rolled-back`, `rolling-back`.
        public var lastResult: String?
        public var lastMessage: String?
        public var lastVersion: String?
        public var lastAt: Double?
        public var slots: [SlotStatus] = []
        public var bootedSlot: String?
        public var error: String?
        /// Bundles heard on the update channel; nil without `update.multicast`.
        public var multicast: MulticastStatus?
    }

    public enum InstallRefusal: Error, Equatable, CustomStringConvertible {
        case busy, unavailable(String), refused(String)
        public var description: String {
            switch self {
            case .busy: "an installation is already running"
            case .unavailable(let why): "updates are not available: \(why)"
            case .refused(let why): why
            }
        }
    }

    private let updater: any SlotUpdater
    private let events: EventLog
    private let clock: any Clock
    private let health: @Sendable () -> ServiceState
    private let requestReboot: @Sendable () -> Void
    private let recordPath: String
    private let pollNanoseconds: Int64
    private let state: Mutex<Status>
    private let commit: Mutex<SlotCommit>
    private let thread = Mutex<ServiceThread?>(nil)
    /// When to ask for the reboot after an install (a few seconds: clients read the result first).
    private let rebootAt = Mutex<Int64?>(nil)
    /// Bundles heard on the update channel (`update.multicast`).
    private let multicast: MulticastUpdates?
    static let rebootDelayNanoseconds: Int64 = 3_000_000_000

    /// `recordPath`: the install record on the data partition (`stateDirectory/update.json`);
    /// `multicast`: what bundles heard on `update.multicast.channel` need (nil: not listened to).
    /// `trialStartedAt`: when the booted slot's trial began, in `clock`'s monotonic seconds (nil:
    /// now). The daemon passes the boot (0: CLOCK_MONOTONIC counts from boot on Linux), so
    /// `rollbackAfterSeconds` is a deadline per boot: a daemon that dies and is restarted again
    /// and again, slower than systemd's start limit, still meets it (docs/updates.md).
    public init(config: GatewayConfig, updater: any SlotUpdater, events: EventLog, clock: any Clock,
                recordPath: String, pollSeconds: Double = 5, multicast: MulticastInputs? = nil, trialStartedAt: Double? = nil,
                health: @escaping @Sendable () -> ServiceState, requestReboot: @escaping @Sendable () -> Void) {
        self.updater = updater
        self.events = events
        self.clock = clock
        self.health = health
        self.requestReboot = requestReboot
        self.recordPath = recordPath
        pollNanoseconds = Int64(pollSeconds * 1e9)
        state = Mutex(Status())
        commit = Mutex(SlotCommit(config: config.update, startedAt: trialStartedAt ?? Double(clock.monotonicNanoseconds()) / 1e9))
        if let channel = config.update.multicast, let multicast {
            self.multicast = MulticastUpdates(config: channel, inputs: multicast, events: events)
        } else {
            self.multicast = nil
        }
    }

    public var status: Status {
        var status = state.withLock { $0 }
        status.multicast = multicast?.status
        return status
    }

    /// A file stored on the update channel (called on the capture thread): inspected, and maybe
    /// installed, on the update thread's next round (within six polls: bundles are rare).
    /// `identity` tells stored versions apart (path, size, ETag).
    public func heard(path: String, identity: String) {
        multicast?.heard(path: path, identity: identity)
    }

    /// Reads the slots, settles a record left by the previous boot (rolled back?), starts the thread.
    public func start() throws(RuntimeError) {
        refreshSlots()
        settleRecord()
        let service = self
        try thread.withLock { (thread: inout ServiceThread?) throws(RuntimeError) in
            thread = try ServiceThread(name: "update") { stop in service.run(stop) }
        }
    }

    public func stop() {
        thread.withLock { thread in defer { thread = nil }; return thread }?.stop()
    }

    /// Starts installing `source` (an absolute path or an http(s) URL); `reboot`: reboot into the
    /// new slot once it is written.
    public func install(_ source: String, reboot: Bool) -> Result<Void, InstallRefusal> {
        let busy = state.withLock { status -> Bool in
            if status.phase == "installing" { return true }
            status.phase = "installing"
            status.source = source
            status.percent = 0
            status.step = "starting"
            status.rebootWhenDone = reboot
            return false
        }
        if busy { return .failure(.busy) }
        do {
            try updater.install(source)
        } catch {
            finish(result: "failed", message: "\(error)", version: nil)
            return .failure(.refused("\(error)"))
        }
        thread.withLock { $0?.stopSignal.wake() }
        return .success(())
    }

    private func run(_ stop: StopSignal) {
        while !stop.isRaised {
            let installing = state.withLock { $0.phase == "installing" }
            if installing { pollInstall() } else { refreshSlots() }
            roundMulticast()
            if let at = rebootAt.withLock({ $0 }), clock.monotonicNanoseconds() >= at {
                rebootAt.withLock { $0 = nil }
                requestReboot()
            }
            decideCommit()
            // Once the booted slot is good only a new install needs us: RAUC is asked (and runs
            // grub-editenv) every six polls then.
            let settled = state.withLock { status in status.slots.first { $0.state == "booted" }?.bootStatus == "good" }
            let soon = installing || rebootAt.withLock { $0 } != nil
            let relaxed = settled && !(multicast?.active ?? false)
            _ = clock.wait(nanoseconds: soon ? 1_000_000_000 : relaxed ? 6 * pollNanoseconds : pollNanoseconds, or: stop)
        }
    }

    /// The multicast rollout's round: inspect what was heard, install or reboot when it says so.
    private func roundMulticast() {
        guard let multicast else { return }
        let (slots, installing, installed) = state.withLock { ($0.slots, $0.phase == "installing", $0.lastResult == "installed") }
        multicast.round(now: Double(clock.wallNanoseconds()) / 1e9, slots: slots, installing: installing, installed: installed, install: { path in
            if case .failure(let refusal) = install(path, reboot: false) { return refusal.description }
            return nil
        }, reboot: requestReboot)
    }

    private func pollInstall() {
        do {
            let (percent, step) = try updater.progress()
            state.withLock { $0.percent = percent; $0.step = step }
            guard try updater.operation() == "idle" else { return }
            let error = try updater.lastError()
            if !error.isEmpty {
                finish(result: "failed", message: error, version: nil)
                return
            }
            refreshSlots()
            let slots = state.withLock { $0.slots }
            // Two slots: the one written is the one not booted (RAUC made it primary).
            guard let booted = slots.first(where: { $0.state == "booted" }),
                  let target = slots.first(where: { $0.name != booted.name }) else {
                finish(result: "failed", message: "installed, but no slot other than the booted one is listed", version: nil)
                return
            }
            let record = UpdateRecord(slot: target.name, version: target.version ?? "unknown", from: booted.name,
                                      installedAt: Double(clock.wallNanoseconds()) / 1e9)
            writeRecord(record)
            let reboot = state.withLock { $0.rebootWhenDone }
            events.record(GatewayEvent(.updateInstalled, "update \(record.version) installed into \(target.name) (boot \(target.bootname) next)"
                                       + (reboot ? "; rebooting" : "; reboot to run it"),
                                       fields: [("SLOT", target.name), ("VERSION", record.version), ("FROM", booted.name)]))
            finish(result: "installed", message: "written to \(target.name); \(reboot ? "rebooting" : "reboot to run it")",
                   version: record.version)
            if reboot { rebootAt.withLock { $0 = clock.monotonicNanoseconds() + Self.rebootDelayNanoseconds } }
        } catch {
            state.withLock { $0.error = "\(error)" }
        }
    }

    private func finish(result: String, message: String, version: String?) {
        let source = state.withLock { $0.source } ?? ""
        defer { multicast?.finished(source: source, error: result == "failed" ? message : nil) }
        if result == "failed" {
            events.record(GatewayEvent(.updateFailed, "update from \(source) refused: \(message)", fields: [("SOURCE", source), ("ERROR", message)]))
        }
        let now = Double(clock.wallNanoseconds()) / 1e9
        state.withLock { status in
            status.phase = "idle"
            status.lastResult = result
            status.lastMessage = message
            status.lastVersion = version
            status.lastAt = now
        }
    }

    private func refreshSlots() {
        do {
            let slots = try updater.slots()
            state.withLock { status in
                status.slots = slots
                status.bootedSlot = slots.first { $0.state == "booted" }?.name
                status.error = nil
            }
        } catch {
            state.withLock { $0.error = "\(error)" }
        }
    }

    private func decideCommit() {
        let slots = state.withLock { $0.slots }
        var trial: SlotCommit.Trial?
        if let booted = slots.first(where: { $0.state == "booted" }) {
            trial = SlotCommit.Trial(slot: booted.name, good: booted.bootStatus == "good",
                                     fallback: slots.contains { $0.name != booted.name && $0.bootStatus == "good" })
        }
        let now = Double(clock.monotonicNanoseconds()) / 1e9
        let serviceState = health()
        let action = commit.withLock { $0.decide(now: now, state: serviceState, trial: trial) }
        guard let trial, action != .wait else { return }
        let record = readRecord()
        let version = record?.slot == trial.slot ? record?.version : nil
        switch action {
        case .wait:
            return
        case .markGood(let reason):
            do {
                _ = try updater.markBooted("good")
            } catch {
                state.withLock { $0.error = "mark-good: \(error)" }
                return
            }
            if let version {
                removeRecord()
                events.record(GatewayEvent(.updateCommitted, "update \(version) committed: \(trial.slot) marked good, \(reason)",
                                           fields: [("SLOT", trial.slot), ("VERSION", version)]))
                finishCommit("committed", "\(trial.slot) marked good: \(reason)", version)
            }
            refreshSlots()
        case .rollBack(let reason):
            events.record(GatewayEvent(.updateRollingBack, "giving up \(trial.slot)\(version.map { " (update \($0))" } ?? ""): \(reason); "
                                       + "marking it bad and rebooting into the other slot",
                                       fields: [("SLOT", trial.slot), ("VERSION", version ?? ""), ("REASON", reason)]))
            _ = try? updater.markBooted("bad")
            finishCommit("rolling-back", reason, version)
            requestReboot()
        }
    }

    private func finishCommit(_ result: String, _ message: String, _ version: String?) {
        let now = Double(clock.wallNanoseconds()) / 1e9
        state.withLock { status in
            status.lastResult = result
            status.lastMessage = message
            status.lastVersion = version
            status.lastAt = now
        }
    }

    /// The previous boot installed an update: booted elsewhere means it was rolled back.
    private func settleRecord() {
        guard let record = readRecord(), let booted = state.withLock({ $0.bootedSlot }) else { return }
        guard record.outcome(booted: booted) == .rolledBack else { return }
        removeRecord()
        let message = "update \(record.version) in \(record.slot) rolled back: booted \(booted) again"
        events.record(GatewayEvent(.updateRolledBack, message,
                                   fields: [("SLOT", record.slot), ("VERSION", record.version), ("BOOTED", booted)]))
        finishCommit("rolled-back", message, record.version)
    }

    // MARK: the record file (small, written whole: temp file, fsync, rename)

    private func readRecord() -> UpdateRecord? {
        guard let bytes = UpdateFiles.read(recordPath), let json = try? JSONParser.parse(bytes) else { return nil }
        return UpdateRecord(json: json)
    }

    private func writeRecord(_ record: UpdateRecord) {
        if !UpdateFiles.write(recordPath, Array((record.json.encoded + "\n").utf8)) {
            state.withLock { $0.error = "could not write \(recordPath): \(String(cString: strerror(errno)))" }
        }
    }

    private func removeRecord() { unlink(recordPath) }
}

/// Whole small files: read, and written through a temp file, fsync and rename.
enum UpdateFiles {
    static func read(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = [], buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return bytes
    }

    static func write(_ path: String, _ bytes: [UInt8]) -> Bool {
        let temp = path + ".tmp"
        let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o640)
        guard fd >= 0 else { return false }
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == bytes.count, synced else { unlink(temp); return false }
        return rename(temp, path) == 0
    }
}

extension UpdateService.Status {
    /// `GET /api/v1/update`.
    public var json: JSONValue {
        var last: JSONValue = .null
        if let lastResult {
            last = .object([("result", .string(lastResult)), ("message", .string(lastMessage ?? "")),
                            ("version", lastVersion.map(JSONValue.string) ?? .null), ("at", lastAt.map(JSONValue.number) ?? .null)])
        }
        return .object([
            ("phase", .string(phase)), ("source", source.map(JSONValue.string) ?? .null),
            ("progress", .object([("percent", .number(Double(percent))), ("step", .string(step))])),
            ("bootedSlot", bootedSlot.map(JSONValue.string) ?? .null),
            ("slots", .array(slots.map(\.json))), ("last", last), ("error", error.map(JSONValue.string) ?? .null),
            ("multicast", multicast?.json ?? .null),
        ])
    }
}
