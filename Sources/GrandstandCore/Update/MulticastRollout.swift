/// What a box does with bundles heard on the update channel (docs/updates.md "Multicast
/// delivery"): refuses one that RAUC could not verify, that is for another board or that is
/// not newer than what runs; installs an accepted one when `RolloutPolicy` allows; reboots into
/// it at the box's turn. Every bundle is decided once (keyed by RAUC's manifest hash), so a
/// carousel repeating it is ignored. Pure: the caller inspects, installs and reboots, and
/// passes the time and the viewers in.
public struct MulticastRollout: Sendable {
    /// A bundle as RAUC's `InspectBundle` describes it, and where it is on the box.
    public struct Bundle: Sendable, Equatable {
        /// RAUC's `manifest-hash` (the signed manifest's SHA-256): the same bundle, however heard.
        public var key: String
        public var path: String
        public var compatible: String
        public var version: String

        public init(key: String, path: String, compatible: String, version: String) {
            self.key = key
            self.path = path
            self.compatible = compatible
            self.version = version
        }
    }

    /// The running system: RAUC's `Compatible` and the booted slot's version.
    public struct System: Sendable, Equatable {
        public var compatible: String
        public var version: String

        public init(compatible: String, version: String) {
            self.compatible = compatible
            self.version = version
        }
    }

    public enum Refusal: Sendable, Equatable, CustomStringConvertible {
        /// RAUC refused to inspect it: signature, format, a damaged file (RAUC's message).
        case unverified(String)
        case foreign(compatible: String, system: String)
        case notNewer(version: String, booted: String)
        /// RAUC accepted the bundle but writing the slot failed (RAUC's last error).
        case installFailed(String)

        public var description: String {
            switch self {
            case .unverified(let why): "not verified: \(why)"
            case .foreign(let compatible, let system): "compatible \"\(compatible)\" is not this box's \"\(system)\""
            case .notNewer(let version, let booted):
                version == booted ? "version \(version) is already running" : "version \(version) is not newer than the booted \(booted)"
            case .installFailed(let why): "install failed: \(why)"
            }
        }

        /// A short word for metrics and reports.
        public var kind: String {
            switch self {
            case .unverified: "unverified"
            case .foreign: "foreign"
            case .notNewer: "not-newer"
            case .installFailed: "install-failed"
            }
        }
    }

    public enum Wait: Sendable, Equatable, CustomStringConvertible {
        case policy(RolloutPolicy.Reason)
        /// RAUC is writing a slot, or the booted slot is still on trial: one update at a time.
        case busy(String)
        case installing

        public var description: String {
            switch self {
            case .policy(let reason): "\(reason)"
            case .busy(let why): why
            case .installing: "installing"
            }
        }
    }

    public enum Action: Sendable, Equatable {
        case none
        case install(Bundle)
        /// Reboot into the slot `Bundle` was written to.
        case reboot(Bundle)
        case wait(Wait)
        case refuse(Bundle?, Refusal)
    }

    public enum Phase: String, Sendable {
        case idle, pending, installing, installed, rebooting
    }

    public let policy: RolloutPolicy
    /// This box's place in the stagger (a hash of its identity).
    public let boxKey: UInt64
    /// Accepted, waiting for the policy to allow the install.
    public private(set) var pending: Bundle?
    public private(set) var installing: Bundle?
    /// Written, waiting for the box's turn to reboot.
    public private(set) var installed: Bundle?
    public private(set) var rebooting = false
    /// Bundles decided (refused or installed): heard again, they are ignored.
    public private(set) var decided: Set<String> = []

    public init(policy: RolloutPolicy, boxKey: UInt64) {
        self.policy = policy
        self.boxKey = boxKey
    }

    public var phase: Phase {
        if rebooting { return .rebooting }
        if installed != nil { return .installed }
        if installing != nil { return .installing }
        return pending == nil ? .idle : .pending
    }

    /// Whether `key` was decided already (the caller need not inspect it again).
    public func knows(_ key: String) -> Bool { decided.contains(key) || pending?.key == key || installing?.key == key || installed?.key == key }

    /// RAUC could not verify the bundle with this `key` (e.g. its signature): refused once.
    public mutating func unverified(key: String, reason: String) -> Action {
        guard !knows(key) else { return .none }
        decided.insert(key)
        return .refuse(nil, .unverified(reason))
    }

    /// RAUC verified `bundle`; accepted when it is for this system and newer than what runs
    /// (and newer than a bundle already waiting, which it replaces). A bundle heard while another
    /// is being installed or waits for its reboot is left for a later round of the carousel.
    public mutating func verified(_ bundle: Bundle, system: System) -> Action {
        guard !knows(bundle.key) else { return .none }
        if bundle.compatible != system.compatible {
            decided.insert(bundle.key)
            return .refuse(bundle, .foreign(compatible: bundle.compatible, system: system.compatible))
        }
        if !(BundleVersion(bundle.version) > BundleVersion(system.version)) {
            decided.insert(bundle.key)
            return .refuse(bundle, .notNewer(version: bundle.version, booted: system.version))
        }
        if installing != nil || installed != nil { return .wait(.installing) }
        if let waiting = pending, !(BundleVersion(bundle.version) > BundleVersion(waiting.version)) {
            decided.insert(bundle.key)
            return .refuse(bundle, .notNewer(version: bundle.version, booted: waiting.version))
        }
        if let waiting = pending { decided.insert(waiting.key) }
        pending = bundle
        return .none
    }

    /// One round at `now` (Unix seconds) with `viewers` watching; `busy` says why the box cannot
    /// start an install now (RAUC writing a slot, the booted slot on trial), nil when it can.
    public mutating func tick(nowUnixSeconds now: Int64, viewers: Int, busy: String?) -> Action {
        if rebooting { return .none }
        if installing != nil { return .wait(.installing) }
        if let bundle = installed {
            switch policy.step(nowUnixSeconds: now, viewers: viewers, installed: true, boxKey: boxKey) {
            case .reboot, .install:
                rebooting = true
                return .reboot(bundle)
            case .wait(let reason):
                return .wait(.policy(reason))
            }
        }
        guard let bundle = pending else { return .none }
        if let busy { return .wait(.busy(busy)) }
        switch policy.step(nowUnixSeconds: now, viewers: viewers, installed: false, boxKey: boxKey) {
        case .install, .reboot:
            pending = nil
            installing = bundle
            return .install(bundle)
        case .wait(let reason):
            return .wait(.policy(reason))
        }
    }

    /// The install started by `.install` ended: written (`error` nil) or failed with RAUC's error.
    public mutating func installFinished(error: String?) -> Action {
        guard let bundle = installing else { return .none }
        installing = nil
        decided.insert(bundle.key)
        if let error { return .refuse(bundle, .installFailed(error)) }
        installed = bundle
        return .none
    }
}
