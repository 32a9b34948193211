/// Whether the booted root slot is committed (marked good), given up (rolled back), or waited on
/// (docs/updates.md, "Mark good and rollback"). Pure: the caller passes the time (monotonic
/// seconds), the service state and what RAUC says about the slots, and performs the action.
public struct SlotCommit: Sendable {
    /// The booted slot as RAUC sees it.
    public struct Trial: Sendable, Equatable {
        /// RAUC's slot name, `rootfs.1`.
        public var slot: String
        /// false while the boot loader counts this boot as a try (GRUB's X_TRY=1: RAUC's
        /// `boot-status` is not `good`).
        public var good: Bool
        /// Another slot is marked good: there is something to fall back to.
        public var fallback: Bool

        public init(slot: String, good: Bool, fallback: Bool) {
            self.slot = slot
            self.good = good
            self.fallback = fallback
        }
    }

    public enum Action: Sendable, Equatable {
        case wait
        /// `rauc status mark-good booted`.
        case markGood(reason: String)
        /// `rauc status mark-bad booted`, then reboot: the boot loader picks the other slot.
        case rollBack(reason: String)
    }

    public let config: GatewayConfig.Update
    private let startedAt: Double
    private var healthySince: Double?
    private var decided = false

    /// `startedAt`: when the trial began (the daemon passes the boot), in the same seconds as
    /// `decide`'s `now`.
    public init(config: GatewayConfig.Update, startedAt: Double) {
        self.config = config
        self.startedAt = startedAt
    }

    /// Whether `state` counts as healthy under `config.health`.
    public func healthy(_ state: ServiceState) -> Bool {
        switch config.health {
        case .running: !state.reasons.contains(.notRunning)
        case .up: state.isUp
        }
    }

    /// The action for this moment; `markGood` and `rollBack` are returned once, then `wait`.
    /// `trial` nil (RAUC not answering, no A/B) waits.
    public mutating func decide(now: Double, state: ServiceState, trial: Trial?) -> Action {
        if healthy(state) {
            if healthySince == nil { healthySince = now }
        } else {
            healthySince = nil
        }
        guard !decided, let trial, !trial.good else { return .wait }
        if let since = healthySince, now - since >= Double(config.markGoodAfterSeconds) {
            decided = true
            return .markGood(reason: "healthy (\(config.health.rawValue)) for \(Int(now - since)) s")
        }
        if now - startedAt >= Double(config.rollbackAfterSeconds) {
            guard trial.fallback else { return .wait }   // nothing good to fall back to: keep trying here
            decided = true
            let since = healthySince.map { "healthy for \(Int(now - $0)) s only" } ?? "not healthy"
            return .rollBack(reason: "\(since) \(Int(now - startedAt)) s into the trial (\(config.health.rawValue) needed for "
                                     + "\(config.markGoodAfterSeconds) s within \(config.rollbackAfterSeconds) s)")
        }
        return .wait
    }
}
