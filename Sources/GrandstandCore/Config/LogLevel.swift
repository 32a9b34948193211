/// A syslog severity threshold (RFC 5424 numbers, journald `PRIORITY=`): events whose priority
/// number is above the level's are not logged. Config `logLevel`, `PUT /api/v1/log-level`.
public enum LogLevel: Int, Sendable, CaseIterable, Comparable {
    case emergency = 0, alert, critical, error, warning, notice, info, debug

    /// The names journalctl uses (`journalctl -p warning`), plus "warn" and "err" as aliases.
    public var name: String {
        switch self {
        case .emergency: "emerg"
        case .alert: "alert"
        case .critical: "crit"
        case .error: "err"
        case .warning: "warning"
        case .notice: "notice"
        case .info: "info"
        case .debug: "debug"
        }
    }

    /// Parses a name (case-insensitive, aliases accepted) or a number 0...7.
    public init?(name: String) {
        let lower = name.lowercased()
        if let number = Int(lower), let level = LogLevel(rawValue: number) {
            self = level
            return
        }
        let aliases: [String: LogLevel] = ["emergency": .emergency, "critical": .critical, "error": .error, "warn": .warning]
        guard let level = LogLevel.allCases.first(where: { $0.name == lower }) ?? aliases[lower] else { return nil }
        self = level
    }

    /// Whether an entry of syslog `priority` passes this threshold.
    public func admits(priority: Int) -> Bool { priority <= rawValue }

    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }
}
