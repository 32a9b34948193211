import GrandstandCore
#if canImport(Glibc)
import Glibc
#endif

/// The running daemon's one-line and JSON self-description (health endpoint, sd_notify STATUS).
struct StatusReport: Sendable {
    let version: String
    let board: String?
    let startedAt: Int64
    let fan: ListenAddress
    let management: ListenAddress
    let leds: [String]

    func json(now: Int64 = Self.monotonicSeconds()) -> JSONValue {
        .object([
            ("status", .string("up")),
            ("version", .string(version)),
            ("board", board.map(JSONValue.string) ?? .null),
            ("uptimeSeconds", .number(Double(now - startedAt))),
            ("listeners", .object([("fan", .string(fan.description)), ("management", .string(management.description))])),
            ("leds", .array(leds.map(JSONValue.string))),
        ])
    }

    var summary: String { "serving fans on \(fan), management on \(management)" }

    static func monotonicSeconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec)
    }
}
