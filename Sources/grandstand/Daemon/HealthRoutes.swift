import GrandstandCore
import HTTPServer

/// Management routes of the status LEDs (after the token check, hooked from ManagementRoutes):
/// `GET /api/v1/leds`, `POST /api/v1/leds/locate?seconds=N`, `POST /api/v1/leds/test`, and the
/// debug-only `POST /api/v1/debug/fault?name=hang-pipeline` (docs/health.md).
struct HealthRoutes: Sendable {
    let health: HealthLoop?
    let board: BoardDescription?
    /// Logical LEDs whose lines are held, and chips that could not be used, when there is no
    /// health thread (which publishes the current lists, retries included).
    let held: [String]
    let unavailable: [String]
    /// Set only when the daemon runs with GRANDSTAND_DEBUG_FAULTS=1.
    let injectFault: (@Sendable (String) -> Bool)?

    static let maximumLocateSeconds = 3600

    /// The response for a health route, nil for any other path.
    func handle(_ request: HTTPRequest) -> HTTPResponse? {
        switch (request.method, request.path) {
        case ("GET", "/api/v1/leds"): return .json(ledsJSON().encoded + "\n")
        case ("POST", "/api/v1/leds/locate"):
            let text = request.query["seconds"] ?? "30"
            guard let seconds = Int(text), (0...Self.maximumLocateSeconds).contains(seconds) else {
                return .text(400, "seconds must be an integer 0...\(Self.maximumLocateSeconds), got \"\(text)\"")
            }
            guard let health else { return .text(503, "status LEDs not running") }
            health.locate(seconds: seconds)
            return .json(JSONValue.object([("locateSeconds", .number(Double(seconds)))]).encoded + "\n")
        case ("POST", "/api/v1/leds/test"):
            guard let health else { return .text(503, "status LEDs not running") }
            health.lampTest()
            return .json(JSONValue.object([("lampTestSeconds", .number(1))]).encoded + "\n")
        case ("POST", "/api/v1/debug/fault"):
            guard let injectFault else { return .text(403, "fault injection disabled (run with GRANDSTAND_DEBUG_FAULTS=1)") }
            let name = request.query["name"] ?? ""
            guard injectFault(name) else { return .text(400, "unknown fault \"\(name)\" (known: hang-pipeline)") }
            return .json(JSONValue.object([("fault", .string(name))]).encoded + "\n")
        case (_, "/api/v1/leds"), (_, "/api/v1/leds/locate"), (_, "/api/v1/leds/test"), (_, "/api/v1/debug/fault"):
            return .text(405, "method not allowed")
        default:
            return nil
        }
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
}
