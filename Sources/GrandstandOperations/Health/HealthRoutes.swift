import GrandstandCore
import HTTPServer

/// Management routes of the status LEDs (added to ManagementRoutes' table, behind the token):
/// `GET /api/v1/leds`, `POST /api/v1/leds/locate?seconds=N`, `POST /api/v1/leds/test`, and the
/// debug-only `POST /api/v1/debug/fault?name=hang-pipeline` (docs/health.md).
public struct HealthRoutes: Sendable {
    public let health: HealthLoop?
    public let board: BoardDescription?
    /// Logical LEDs whose lines are held, and chips that could not be used, when there is no
    /// health thread (which publishes the current lists, retries included).
    public let held: [String]
    public let unavailable: [String]
    /// Set only when the daemon runs with GRANDSTAND_DEBUG_FAULTS=1.
    public let injectFault: (@Sendable (String) -> Bool)?

    static let maximumLocateSeconds = 3600

    public var routes: [HTTPRoute] {
        [
            HTTPRoute("GET", "/api/v1/leds") { _ in .json(ledsJSON().encoded + "\n") },
            HTTPRoute("POST", "/api/v1/leds/locate") { locate($0) },
            HTTPRoute("POST", "/api/v1/leds/test") { _ in
                guard let health else { return .text(503, "status LEDs not running") }
                health.lampTest()
                return .json(JSONValue.object([("lampTestSeconds", .number(1))]).encoded + "\n")
            },
            HTTPRoute("POST", "/api/v1/debug/fault") { fault($0) },
        ]
    }

    /// `POST /api/v1/leds/locate?seconds=N` (default 30, at most an hour).
    private func locate(_ request: HTTPRequest) -> HTTPResponse {
        let text = request.query["seconds"] ?? "30"
        guard let seconds = Int(text), (0...Self.maximumLocateSeconds).contains(seconds) else {
            return .text(400, "seconds must be an integer 0...\(Self.maximumLocateSeconds), got \"\(text)\"")
        }
        guard let health else { return .text(503, "status LEDs not running") }
        health.locate(seconds: seconds)
        return .json(JSONValue.object([("locateSeconds", .number(Double(seconds)))]).encoded + "\n")
    }

    /// `POST /api/v1/debug/fault?name=hang-pipeline`: 403 unless the daemon runs with faults enabled.
    private func fault(_ request: HTTPRequest) -> HTTPResponse {
        guard let injectFault else { return .text(403, "fault injection disabled (run with GRANDSTAND_DEBUG_FAULTS=1)") }
        let name = request.query["name"] ?? ""
        guard injectFault(name) else { return .text(400, "unknown fault \"\(name)\" (known: hang-pipeline)") }
        return .json(JSONValue.object([("fault", .string(name))]).encoded + "\n")
    }

    /// The board's LEDs with their lines and current levels, the pattern and the service state.
    func ledsJSON() -> JSONValue {
        let snapshot = health?.snapshot
        let held = snapshot?.held ?? self.held, unavailable = snapshot?.unavailable ?? self.unavailable
        let leds = (board?.leds ?? [:]).sorted { $0.key < $1.key }.map { name, line -> JSONValue in
            .object([("name", .string(name)), ("chip", .string(line.chip)), ("line", .number(Double(line.line))),
                     ("activeLow", .bool(line.activeLow)), ("held", .bool(held.contains(name))),
                     ("lit", held.contains(name) ? (snapshot?.levels[name]).map(JSONValue.bool) ?? .null : .null)])
        }
        var members: [(String, JSONValue)] = [("leds", .array(leds)), ("unavailable", .array(unavailable.map(JSONValue.string)))]
        if let snapshot {
            members.append(("pattern", .string(Self.patternName(snapshot))))
            members.append(("locateRemainingSeconds", .number(snapshot.locateRemaining)))
            members.append(("service", .object(snapshot.state.json)))
        }
        return .object(members)
    }

    /// `locate`, `blink-code-N`, or `steady` (lamp test shows as all lit in `leds`).
    static func patternName(_ snapshot: HealthLoop.Published) -> String {
        if snapshot.locateRemaining > 0 { return "locate" }
        return snapshot.state.reasons.blinkCode.map { "blink-code-\($0)" } ?? "steady"
    }

    public init(health: HealthLoop? = nil, board: BoardDescription? = nil, held: [String], unavailable: [String], injectFault: (@Sendable (String) -> Bool)? = nil) {
        self.health = health
        self.board = board
        self.held = held
        self.unavailable = unavailable
        self.injectFault = injectFault
    }
}
