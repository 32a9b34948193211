import CGSSystemd

/// The service manager's notification protocol (sd_notify(3)): readiness, status, watchdog.
/// Without `NOTIFY_SOCKET` (not started by systemd) every call is a quiet no-op.
public struct Notifier: Sendable {
    /// One assignment in a notification message, e.g. `READY=1`.
    public enum State: Sendable, Equatable {
        case ready, reloading, stopping, watchdog
        case status(String)
        case mainPID(Int32)

        var line: String {
            switch self {
            case .ready: "READY=1"
            case .reloading: "RELOADING=1"
            case .stopping: "STOPPING=1"
            case .watchdog: "WATCHDOG=1"
            case .status(let text): "STATUS=" + text.replacingNewlines()
            case .mainPID(let pid): "MAINPID=\(pid)"
            }
        }
    }

    public init() {}

    /// Sends the states as one datagram. Returns false when no service manager listens.
    @discardableResult
    public func notify(_ states: State...) throws(SystemdError) -> Bool {
        try notify(states)
    }

    @discardableResult
    public func notify(_ states: [State]) throws(SystemdError) -> Bool {
        let message = states.map(\.line).joined(separator: "\n")
        return try SystemdError.check(sd_notify(0, message), "sd_notify") > 0
    }

    /// The watchdog interval the service manager expects (`WatchdogSec=`), in microseconds, or
    /// nil when the watchdog is off for this process (sd_watchdog_enabled(3)).
    public func watchdogInterval() throws(SystemdError) -> UInt64? {
        var usec: UInt64 = 0
        let enabled = try SystemdError.check(sd_watchdog_enabled(0, &usec), "sd_watchdog_enabled")
        return enabled > 0 ? usec : nil
    }
}

extension String {
    /// Notification and journal MESSAGE lines are newline-separated; keep a status on one line.
    func replacingNewlines() -> String {
        String(map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }
}
