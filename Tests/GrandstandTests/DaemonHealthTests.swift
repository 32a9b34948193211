import Foundation
import GrandstandCore
import GrandstandRuntime
import HTTPClient
import TestSupport
import Testing
@testable import GrandstandDaemon
@testable import GrandstandIngest
@testable import GrandstandOperations

/// The daemon's service state, LED routes, `grandstand leds` client and the watchdog's fault
/// switch, on the host (no GPIO chip here: the LEDs are reported unavailable and the state
/// machine still runs; the VM checks read real PL061 lines).
@Suite(.serialized) struct DaemonHealthTests {
    static let board = """
    {"name":"t","leds":{"service":{"chip":"gpiochip97","line":0},"fault":{"chip":"gpiochip97","line":1}}}
    """

    static func start(interface: String? = nil, clock: any GrandstandRuntime.Clock = SystemClock()) throws -> Daemon {
        let config = try DaemonTests.config()
        let ingest = interface.map { LiveIngest.Settings(interface: $0, configuration: IngestConfiguration.product(config)) }
        let daemon = Daemon(config: config, board: try BoardDescription.decode(Array(board.utf8)), ingest: ingest, clock: clock)
        try daemon.start()
        return daemon
    }

    static func call(_ daemon: Daemon, _ method: String, _ path: String, token: String = "secret") throws -> (status: Int, body: String) {
        let address = try #require(daemon.status?.management)
        let host = address.host == "0.0.0.0" ? "127.0.0.1" : address.host
        let response = try HTTPClient(HTTPEndpoint(host: host, port: address.port))
            .request(method, path, headers: [("Authorization", "Bearer \(token)")], body: [])
        return (response.status, response.text)
    }

    /// The status document once the first evaluation as `running` happened (bitmap ≠ not-running).
    static func runningStatus(_ daemon: Daemon) throws -> JSONValue {
        var document = JSONValue.null
        try waitFor("the first evaluation as running", timeout: 20) {
            document = try JSONParser.parse(Array(try call(daemon, "GET", "/api/v1/status").body.utf8))
            return IngestStats.int(document["service"]?["reasonsBitmap"]).map { $0 & 8 == 0 } ?? false
        }
        return document
    }

    @Test func statusAndLEDRoutesShowTheServiceState() throws {
        let daemon = try Self.start()
        defer { daemon.stop() }
        // No ingest → no channels; the host has no Wi-Fi (wlan0 missing) → wifi-down too.
        let document = try Self.runningStatus(daemon)
        #expect(document["service"]?["state"] == .string("down"))
        #expect(document["service"]?["reasons"] == .array([.string("wifi-down"), .string("no-channels")]))
        #expect(document["service"]?["reasonsBitmap"] == .number(6))
        #expect(document["service"]?["pattern"] == .string("blink-code-2"))

        let leds = try JSONParser.parse(Array(try Self.call(daemon, "GET", "/api/v1/leds").body.utf8))
        guard case .array(let entries)? = leds["leds"] else {
            Issue.record("no leds array: \(leds)")
            return
        }
        #expect(entries.map { $0["name"] } == [.string("fault"), .string("service")])
        #expect(entries.map { $0["held"] } == [.bool(false), .bool(false)])
        guard case .array(let unavailable)? = leds["unavailable"], case .string(let first)? = unavailable.first else {
            Issue.record("no unavailable chip listed: \(leds)")
            return
        }
        #expect(first.hasPrefix("gpiochip97: no such chip (ENOENT)"))

        #expect(try Self.call(daemon, "POST", "/api/v1/leds/locate?seconds=abc").status == 400)
        #expect(try Self.call(daemon, "POST", "/api/v1/leds/locate?seconds=99999").status == 400)
        #expect(try Self.call(daemon, "GET", "/api/v1/leds/locate").status == 405)
        let locateGet = try RawHTTPClient(port: try #require(daemon.status?.management.port))
            .get("/api/v1/leds/locate", headers: ["Authorization: Bearer secret"])
        #expect(locateGet.headers["allow"] == "POST, OPTIONS")
        #expect(try Self.call(daemon, "POST", "/api/v1/leds/locate?seconds=5").status == 200)
        var locating = JSONValue.null
        try waitFor("the health loop's next tick to take the request", timeout: 20) {
            locating = try JSONParser.parse(Array(try Self.call(daemon, "GET", "/api/v1/leds").body.utf8))
            return locating["pattern"] == .string("locate")
        }
        let remaining = IngestStats.int(locating["locateRemainingSeconds"]) ?? 0
        #expect((3...5).contains(remaining))
        #expect(try Self.call(daemon, "POST", "/api/v1/leds/test").status == 200)
        // Without GRANDSTAND_DEBUG_FAULTS=1 the fault switch is refused.
        let refused = try Self.call(daemon, "POST", "/api/v1/debug/fault?name=hang-pipeline")
        #expect(refused.status == 403)
        #expect(try Self.call(daemon, "GET", "/api/v1/leds", token: "wrong").status == 401)
    }

    @Test func ledsClientTalksToTheDaemonAndReportsErrors() throws {
        let daemon = try Self.start()
        let address = try #require(daemon.status?.management)
        _ = try Self.runningStatus(daemon)
        let url = "http://\(address.host == "0.0.0.0" ? "127.0.0.1" : address.host):\(address.port)"
        let endpoint = try #require(HTTPEndpoint(url: url))
        let document = try ManagementClient(endpoint: endpoint, token: "secret").document("/api/v1/leds")
        let text = ManagementText.leds(document)
        #expect(text.contains("service down (wifi-down, no-channels), pattern blink-code-2"))
        #expect(text.contains("service   gpiochip97 line 0: not held"))
        let management = ManagementClient(endpoint: endpoint, token: "wrong")
        let unauthorized = thrownError(ManagementClientError.self) { _ = try management.call("/api/v1/leds/test", method: "POST") }
        #expect(unauthorized?.exitCode == 77 && unauthorized?.description.contains("HTTP 401") == true)
        daemon.stop()
        let refused = thrownError(ManagementClientError.self) { _ = try management.call("/api/v1/leds") }
        #expect(refused?.exitCode == 69 && refused?.description.contains("the daemon is not running at") == true)
    }

    @Test func hangPipelineFaultStopsTheLivenessProof() throws {
        setenv("GRANDSTAND_DEBUG_FAULTS", "1", 1)
        defer { unsetenv("GRANDSTAND_DEBUG_FAULTS") }
        // A missing interface: the capture loop keeps going round (retrying), so it is alive. The
        // daemon's threads wait on a manual clock: health, serving and the recorder park on it,
        // and the hung capture loop joins them.
        let clock = ManualClock()
        let daemon = try Self.start(interface: "gs-missing0", clock: clock)
        defer { daemon.stop() }
        #expect(clock.waitForSleepers(3))
        try waitFor("the capture loop's first round", timeout: 20) { daemon.isAlive(within: 1_000_000_000) }
        #expect(try Self.call(daemon, "POST", "/api/v1/debug/fault?name=nope").status == 400)
        #expect(try Self.call(daemon, "POST", "/api/v1/debug/fault?name=hang-pipeline").status == 200)
        #expect(clock.waitForSleepers(4), "the hung capture loop parks on the clock")
        clock.advance(by: 1_500_000_000)
        #expect(clock.waitForSleepers(4))
        #expect(!daemon.isAlive(within: 1_000_000_000))
        // The health thread itself still goes round: only the pipeline is hung.
        #expect(daemon.health?.isAlive(within: 1_000_000_000) == true)
    }
}
