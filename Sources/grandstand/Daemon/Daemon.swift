import GrandstandCore
import HTTPServer
import Systemd

/// The running gateway: owns the listeners and status outputs, started and stopped as a unit.
/// `grandstand run` drives it from the signal loop; tests drive it directly.
final class Daemon {
    let config: GatewayConfig
    let board: BoardDescription?
    let events: EventLog
    private(set) var fanServer: HTTPServer?
    private(set) var managementServer: HTTPServer?
    private(set) var status: StatusReport?
    private(set) var leds: StatusLEDs?

    init(config: GatewayConfig, board: BoardDescription?, events: EventLog = EventLog()) {
        self.config = config
        self.board = board
        self.events = events
    }

    /// Brings the listeners up; throws if either cannot bind (the caller exits non-zero).
    func start() throws(HTTPServerError) {
        let fanAddress = config.listeners.fan, managementAddress = config.listeners.management
        var fanConfiguration = HTTPServer.Configuration(host: fanAddress.host, port: fanAddress.port)
        fanConfiguration.connectionLimit = 2048
        fanConfiguration.maxBodyBytes = 0
        var managementConfiguration = HTTPServer.Configuration(host: managementAddress.host, port: managementAddress.port)
        managementConfiguration.connectionLimit = 64

        // The listeners answer with the bound ports, so start them on a placeholder report first.
        let box = StatusBox()
        let fan = try HTTPServer(fanConfiguration) { box.fan($0) }
        let management = try HTTPServer(managementConfiguration) { box.management($0) }
        let report = StatusReport(
            version: BuildInfo.current.version, board: board?.name, startedAt: StatusReport.monotonicSeconds(),
            fan: ListenAddress(host: fanAddress.host, port: fan.port),
            management: ListenAddress(host: managementAddress.host, port: management.port),
            leds: openLEDs())
        box.install(fan: FanRoutes(status: report), management: ManagementRoutes(token: config.managementToken, status: report))
        fanServer = fan
        managementServer = management
        status = report
        leds?.set("service", on: true)
    }

    /// Requests the board's LED lines; reports chips it cannot use and returns the names held.
    private func openLEDs() -> [String] {
        guard let board, !board.leds.isEmpty else { return [] }
        let panel = StatusLEDs(board: board)
        for failure in panel.unavailable {
            events.record(GatewayEvent(.ledsUnavailable, "status LEDs on \(failure.chip) unavailable: \(failure.error)",
                                       fields: [("CHIP", failure.chip)]))
        }
        leds = panel
        return panel.names
    }

    /// Closes the listeners; in-flight requests finish first.
    func stop() {
        leds?.release()
        leds = nil
        fanServer?.stop()
        managementServer?.stop()
        fanServer = nil
        managementServer = nil
    }
}

/// Routes installed after the listeners know their ports; until then requests get 503.
private final class StatusBox: @unchecked Sendable {
    // @unchecked: the routes are set once under the lock and then only read under it.
    private let lock = Mutex()
    private var fanRoutes: FanRoutes?
    private var managementRoutes: ManagementRoutes?

    func install(fan: FanRoutes, management: ManagementRoutes) {
        lock.withLock {
            fanRoutes = fan
            managementRoutes = management
        }
    }

    func fan(_ request: HTTPRequest) -> HTTPResponse {
        lock.withLock { fanRoutes }?.handle(request) ?? .text(503, "starting")
    }

    func management(_ request: HTTPRequest) -> HTTPResponse {
        lock.withLock { managementRoutes }?.handle(request) ?? .text(503, "starting")
    }
}
