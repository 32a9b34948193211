import GrandstandCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What the multicast side of the update service needs from the daemon (docs/updates.md
/// "Multicast delivery").
public struct MulticastInputs: Sendable {
    public var inspector: any BundleInspector
    /// Fans watching now: the fan listener's open connections.
    public var viewers: @Sendable () -> Int
    /// This box's place in the reboot stagger (`boxKey(stateDirectory:)`).
    public var boxKey: UInt64
    /// The running build's version: the booted slot's when RAUC has none for it (a flashed image).
    public var runningVersion: String
    /// Where a heard bundle is kept (a hard link to the stored file) until it is installed or
    /// refused, so the file channel replacing or evicting its copy does not pull it away from RAUC.
    public var incomingDirectory: String

    public init(inspector: any BundleInspector, viewers: @escaping @Sendable () -> Int, boxKey: UInt64, runningVersion: String,
                incomingDirectory: String) {
        self.inspector = inspector
        self.viewers = viewers
        self.boxKey = boxKey
        self.runningVersion = runningVersion
        self.incomingDirectory = incomingDirectory
    }

    /// FNV-1a of the box's device UUID (`stateDirectory/device-uuid`, the reports' identity): the
    /// same box keeps its turn across restarts; 0 when the state directory cannot hold it.
    public static func boxKey(stateDirectory: String) -> UInt64 {
        (try? DeviceIdentity.load(stateDirectory: stateDirectory)).map { FNV.hash64(Array($0.description.utf8)) } ?? 0
    }
}

/// The multicast rollout as `GET /api/v1/update` (`multicast`), `/metrics` and reports show it.
public struct MulticastStatus: Sendable, Equatable {
    public struct Bundle: Sendable, Equatable {
        public var path: String
        public var version: String
        public var compatible: String
        /// RAUC's manifest hash (empty when RAUC could not read the bundle).
        public var hash: String
        /// Wall-clock seconds when it was heard.
        public var at: Double
    }

    public var channel: String
    /// `MulticastRollout.Phase`: idle, pending, installing, installed, rebooting.
    public var phase = "idle"
    public var bundlesHeard = 0
    public var bundlesRefused = 0
    public var lastBundle: Bundle?
    /// The last bundle's verdict: accepted, refused, installing, installed, failed, rebooting.
    public var verdict: String?
    /// Why it was refused or failed.
    public var reason: String?
    /// Why the box waits now (outside the windows, fans watching, its turn, busy).
    public var waiting: String?
    /// The planned reboot (Unix seconds) once the bundle is installed and the turn is known.
    public var rebootAt: Int64?

    public var json: JSONValue {
        let bundle: JSONValue = lastBundle.map { bundle in
            .object([("path", .string(bundle.path)), ("version", .string(bundle.version)), ("compatible", .string(bundle.compatible)),
                     ("hash", .string(bundle.hash)), ("at", .number(bundle.at))])
        } ?? .null
        return .object([
            ("channel", .string(channel)), ("phase", .string(phase)), ("bundlesHeard", .number(Double(bundlesHeard))),
            ("bundlesRefused", .number(Double(bundlesRefused))), ("lastBundle", bundle),
            ("verdict", verdict.map(JSONValue.string) ?? .null), ("reason", reason.map(JSONValue.string) ?? .null),
            ("waiting", waiting.map(JSONValue.string) ?? .null), ("rebootAt", rebootAt.map { .number(Double($0)) } ?? .null),
        ])
    }
}

/// Bundles heard on the update channel, handled on the update thread (`UpdateService`): each
/// stored file is inspected through RAUC once (signature, compatible, version), and the decision
/// (`MulticastRollout`) installs it through the service and asks for the reboot at the box's turn.
/// Refusals are journaled as `update-refused`, acceptances as `update-heard`.
final class MulticastUpdates: Sendable {
    private struct Heard: Sendable {
        var path: String
        /// The stored file's identity (path, size, validator): one inspection per stored version.
        var identity: String
    }

    private let inputs: MulticastInputs
    private let events: EventLog
    private let queue = Mutex<[Heard]>([])
    private let inspected = Mutex<Set<String>>([])
    private let rollout: Mutex<MulticastRollout>
    private let shown: Mutex<MulticastStatus>
    private let compatible = Mutex<String?>(nil)
    private let linkNumber = Mutex(0)

    init(config: GatewayConfig.Multicast, inputs: MulticastInputs, events: EventLog) {
        self.inputs = inputs
        self.events = events
        rollout = Mutex(MulticastRollout(policy: config.rollout, boxKey: inputs.boxKey))
        shown = Mutex(MulticastStatus(channel: config.channel))
        Self.clear(inputs.incomingDirectory)
    }

    var status: MulticastStatus { shown.withLock { $0 } }

    /// Something to do soon: a file to inspect, a bundle waiting for the policy or its turn.
    var active: Bool { !queue.withLock { $0.isEmpty } || rollout.withLock { $0.phase != .idle } }

    /// A file the update channel stored (any thread); inspected on the next round.
    func heard(path: String, identity: String) {
        guard !inspected.withLock({ $0.contains(identity) }) else { return }
        queue.withLock { queue in
            if !queue.contains(where: { $0.identity == identity }) { queue.append(Heard(path: path, identity: identity)) }
        }
    }

    /// One round of the update thread at wall-clock `now` (Unix seconds). `installing`: RAUC is
    /// writing a slot (it inspects nothing meanwhile); `installed`: an update (from HTTP, say) was
    /// written and waits for its reboot; `install` starts one and returns its error.
    func round(now: Double, slots: [SlotStatus], installing: Bool, installed: Bool, install: (String) -> String?, reboot: () -> Void) {
        if !installing {
            for heard in queue.withLock({ queue in defer { queue.removeAll() }; return queue }) { inspect(heard, now: now, slots: slots) }
        }
        let booted = slots.first { $0.state == "booted" }
        let busy = installing ? "an installation is running"
            : installed ? "an installed update waits for its reboot"
            : booted.map { $0.bootStatus != "good" ? "the booted slot \($0.name) is on trial (not yet marked good)" : nil } ?? "no booted slot known"
        let action = rollout.withLock { $0.tick(nowUnixSeconds: Int64(now), viewers: inputs.viewers(), busy: busy) }
        switch action {
        case .install(let bundle):
            show(verdict: "installing", reason: nil, waiting: nil)
            if let error = install(bundle.path) { finished(source: bundle.path, error: error) }
        case .reboot:
            show(verdict: "rebooting", reason: nil, waiting: nil)
            reboot()
        case .wait(let wait):
            var turn: Int64?
            if case .policy(.turn(let at)) = wait { turn = at }
            shown.withLock { $0.waiting = wait.description; $0.rebootAt = turn ?? $0.rebootAt }
        case .none, .refuse:
            shown.withLock { $0.waiting = nil }
        }
        let phase = rollout.withLock { $0.phase.rawValue }
        shown.withLock { $0.phase = phase }
    }

    /// An install the service ran ended (`error` nil: written); only ours (by path) count.
    func finished(source: String, error: String?) {
        let action = rollout.withLock { rollout -> MulticastRollout.Action? in
            guard rollout.installing?.path == source else { return nil }
            return rollout.installFinished(error: error)
        }
        guard let action else { return }
        if case .refuse(_, let refusal) = action {
            show(verdict: "failed", reason: refusal.description, waiting: nil)
        } else {
            show(verdict: "installed", reason: nil, waiting: nil)
        }
        removeLink(source)
        let phase = rollout.withLock { $0.phase.rawValue }
        shown.withLock { $0.phase = phase }
    }

    // MARK: inspection

    private func inspect(_ heard: Heard, now: Double, slots: [SlotStatus]) {
        inspected.withLock { _ = $0.insert(heard.identity) }
        let path = keep(heard.path)
        let system: MulticastRollout.System
        do {
            let booted = slots.first { $0.state == "booted" }?.version ?? ""
            system = MulticastRollout.System(compatible: try systemCompatible(), version: booted.isEmpty ? inputs.runningVersion : booted)
        } catch {
            // RAUC not answering: hear the file again on the next round.
            inspected.withLock { _ = $0.remove(heard.identity) }
            queue.withLock { $0.append(heard) }
            removeLink(path)
            shown.withLock { $0.reason = "cannot read RAUC's compatible: \(error)" }
            return
        }
        shown.withLock { $0.bundlesHeard += 1 }
        let action: MulticastRollout.Action
        var bundle = MulticastRollout.Bundle(key: heard.identity, path: path, compatible: "", version: "")
        do {
            let info = try inputs.inspector.inspect(path)
            bundle = MulticastRollout.Bundle(key: info.manifestHash.isEmpty ? heard.identity : info.manifestHash, path: path,
                                             compatible: info.compatible, version: info.version)
            let (replaced, verdict) = rollout.withLock { rollout in
                let waiting = rollout.pending
                let action = rollout.verified(bundle, system: system)
                return (waiting != nil && rollout.pending != waiting ? waiting : nil, action)
            }
            if let replaced { removeLink(replaced.path) }   // a newer bundle took its place
            action = verdict
        } catch {
            action = rollout.withLock { $0.unverified(key: heard.identity, reason: "\(error)") }
        }
        let described = MulticastStatus.Bundle(path: heard.path, version: bundle.version, compatible: bundle.compatible,
                                               hash: bundle.key == heard.identity ? "" : bundle.key, at: now)
        switch action {
        case .refuse(_, let refusal):
            removeLink(path)
            shown.withLock { $0.bundlesRefused += 1; $0.lastBundle = described }
            show(verdict: "refused", reason: refusal.description, waiting: nil)
            events.record(GatewayEvent(.updateRefused, "update bundle \(heard.path)\(bundle.version.isEmpty ? "" : " (\(bundle.version))") "
                                       + "refused: \(refusal)", fields: fields(described, [("VERDICT", refusal.kind), ("REASON", refusal.description)])))
        case .none where rollout.withLock({ $0.pending?.key == bundle.key }):
            shown.withLock { $0.lastBundle = described }
            show(verdict: "accepted", reason: nil, waiting: nil)
            events.record(GatewayEvent(.updateHeard, "update bundle \(bundle.version) heard on \(status.channel) and verified; "
                                       + "installing when the rollout allows", fields: fields(described, [])))
        case .wait:
            // Another bundle is being installed: this one is heard again on a later round.
            inspected.withLock { _ = $0.remove(heard.identity) }
            removeLink(path)
        default:
            removeLink(path)   // decided before (the carousel repeating it)
        }
    }

    private func fields(_ bundle: MulticastStatus.Bundle, _ more: [(name: String, value: String)]) -> [(name: String, value: String)] {
        [("CHANNEL", status.channel), ("PATH", bundle.path), ("VERSION", bundle.version), ("COMPATIBLE", bundle.compatible),
         ("HASH", bundle.hash)] + more
    }

    private func show(verdict: String, reason: String?, waiting: String?) {
        shown.withLock { status in
            status.verdict = verdict
            status.reason = reason
            status.waiting = waiting
            if verdict != "installed" && verdict != "rebooting" { status.rebootAt = nil }
        }
    }

    private func systemCompatible() throws -> String {
        if let known = compatible.withLock({ $0 }) { return known }
        let value = try inputs.inspector.systemCompatible()
        compatible.withLock { $0 = value }
        return value
    }

    // MARK: the incoming folder (hard links: the same inode, no copy)

    /// A hard link to `path` in the incoming folder, or `path` itself when one cannot be made
    /// (another filesystem).
    private func keep(_ path: String) -> String {
        let number = linkNumber.withLock { $0 += 1; return $0 }
        let target = "\(inputs.incomingDirectory)/bundle-\(number).raucb"
        mkdir(inputs.incomingDirectory, 0o750)
        return link(path, target) == 0 ? target : path
    }

    private func removeLink(_ path: String) {
        if path.hasPrefix(inputs.incomingDirectory + "/") { unlink(path) }
    }

    /// Links left by an earlier run (a bundle that was installed, or a restart mid-way).
    private static func clear(_ directory: String) {
        guard let folder = opendir(directory) else { return }
        defer { closedir(folder) }
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix("bundle-") && name.hasSuffix(".raucb") { unlink("\(directory)/\(name)") }
        }
    }
}
