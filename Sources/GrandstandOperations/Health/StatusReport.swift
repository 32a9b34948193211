import GrandstandCore
import GrandstandRuntime
#if canImport(Glibc)
import Glibc
#endif

/// The running daemon's one-line and JSON self-description (health endpoint, sd_notify STATUS).
public struct StatusReport: Sendable {
    public let version: String
    public let board: String?
    public let startedAt: Int64
    public let fan: ListenAddress
    public let management: ListenAddress
    public let leds: [String]
    /// The service state and LED thread, nil when the daemon runs without it.
    public var health: HealthLoop? = nil

    public func json(now: Int64 = Self.monotonicSeconds()) -> JSONValue {
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
    public static func serviceJSON(_ snapshot: HealthLoop.Published) -> JSONValue {
        var members = snapshot.state.json
        let elapsed = snapshot.since.map { Double((SystemClock().monotonicNanoseconds() - $0) / 1_000_000) / 1000 }
        members.append(("sinceSeconds", elapsed.map(JSONValue.number) ?? .null))
        members.append(("pattern", .string(HealthRoutes.patternName(snapshot))))
        members.append(("quality", .object(snapshot.quality.keys.sorted().map { ($0, snapshot.quality[$0]?.json ?? .null) })))
        return .object(members)
    }

    public var summary: String { "serving fans on \(fan), management on \(management)" }

    public static func monotonicSeconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec)
    }

    public init(version: String, board: String? = nil, startedAt: Int64, fan: ListenAddress, management: ListenAddress, leds: [String], health: HealthLoop? = nil) {
        self.version = version
        self.board = board
        self.startedAt = startedAt
        self.fan = fan
        self.management = management
        self.leds = leds
        self.health = health
    }
}
