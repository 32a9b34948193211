import GrandstandCore
import GrandstandRuntime
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
    /// The service state and LED thread, nil when the daemon runs without it.
    var health: HealthLoop? = nil

    func json(now: Int64 = Self.monotonicSeconds()) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("status", .string("up")),
            ("version", .string(version)),
            ("board", board.map(JSONValue.string) ?? .null),
            ("uptimeSeconds", .number(Double(now - startedAt))),
            ("listeners", .object([("fan", .string(fan.description)), ("management", .string(management.description))])),
            ("leds", .array((health?.snapshot.held ?? leds).map(JSONValue.string))),
        ]
        if let snapshot = health?.snapshot { members.append(("service", Self.serviceJSON(snapshot))) }
        return .object(members)
    }

    /// `{"state","reasons","reasonsBitmap","inVenue","sinceSeconds","pattern","quality":{ID:{…}}}`.
    static func serviceJSON(_ snapshot: HealthLoop.Published) -> JSONValue {
        var members = snapshot.state.json
        let elapsed = snapshot.since.map { Double((SystemClock().monotonicNanoseconds() - $0) / 1_000_000) / 1000 }
        members.append(("sinceSeconds", elapsed.map(JSONValue.number) ?? .null))
        members.append(("pattern", .string(HealthRoutes.patternName(snapshot))))
        members.append(("quality", .object(snapshot.quality.keys.sorted().map { ($0, snapshot.quality[$0]?.json ?? .null) })))
        return .object(members)
    }

    var summary: String { "serving fans on \(fan), management on \(management)" }

    static func monotonicSeconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec)
    }
}
