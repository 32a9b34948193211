import GrandstandCore
import HTTPServer
import MediaCodec
import Systemd

/// The running gateway: live ingest on the venue interface feeding the `Gateway` (HLS per video
/// channel, data-channel rings), the fan and management listeners, and the status outputs,
/// started and stopped as a unit. `grandstand run` and `grandstand demo` drive it; tests too.
final class Daemon {
    let config: GatewayConfig
    let board: BoardDescription?
    let events: EventLog
    /// Capture settings; nil serves without ingest (listener tests).
    let ingestSettings: LiveIngest.Settings?
    let gateway: Gateway
    private(set) var ingest: LiveIngest?
    private(set) var fanServer: HTTPServer?
    private(set) var managementServer: HTTPServer?
    private(set) var status: StatusReport?
    private(set) var leds: StatusLEDs?
    private(set) var reporter: Reporter?

    init(config: GatewayConfig, board: BoardDescription?, events: EventLog = EventLog(),
         ingest: LiveIngest.Settings? = nil, gateway: Gateway.Settings = Gateway.Settings()) {
        self.config = config
        self.board = board
        self.events = events
        self.ingestSettings = ingest
        self.gateway = Gateway(settings: gateway)
    }

    /// The settings `grandstand run` uses: the config's interface and policy, FEC on ISA-L.
    static func productIngest(_ config: GatewayConfig) -> LiveIngest.Settings {
        LiveIngest.Settings(interface: config.network.interface, configuration: IngestConfiguration.product(config))
    }

    /// Brings the listeners up, then the capture; throws if a listener cannot bind or the
    /// capture's wake-up pipe cannot be made (the caller exits non-zero). A missing interface
    /// is not an error: the capture retries and reports it.
    func start() throws {
        let fanAddress = config.listeners.fan, managementAddress = config.listeners.management
        var fanConfiguration = HTTPServer.Configuration(host: fanAddress.host, port: fanAddress.port)
        fanConfiguration.connectionLimit = 2048
        fanConfiguration.maxBodyBytes = 0
        var managementConfiguration = HTTPServer.Configuration(host: managementAddress.host, port: managementAddress.port)
        managementConfiguration.connectionLimit = 64

        MediaCodecLibrary.quietLogging()
        let gateway = self.gateway
        var live: LiveIngest?
        if let ingestSettings {
            live = try LiveIngest(settings: ingestSettings, events: events) { gateway.handle($0) }
        }
        // The listeners answer with the bound ports, so start them on a placeholder report first.
        let box = StatusBox()
        let fan = try HTTPServer(fanConfiguration, deferring: { box.fan($0, $1) })
        let management: HTTPServer
        do {
            management = try HTTPServer(managementConfiguration) { box.management($0) }
        } catch {
            fan.stop()
            throw error
        }
        let report = StatusReport(
            version: BuildInfo.current.version, board: board?.name, startedAt: StatusReport.monotonicSeconds(),
            fan: ListenAddress(host: fanAddress.host, port: fan.port),
            management: ListenAddress(host: managementAddress.host, port: management.port),
            leds: openLEDs())
        var snapshot: (@Sendable () -> IngestSnapshot)?
        if let live { snapshot = { live.snapshot } }
        box.install(fan: FanRoutes(status: report, gateway: gateway),
                    management: ManagementRoutes(token: config.managementToken, status: report, gateway: gateway, ingest: snapshot))
        fanServer = fan
        managementServer = management
        status = report
        gateway.start()
        live?.start()
        ingest = live
        reporter = startReporter()
        leds?.set("service", on: true)
    }

    /// Whether the capture loop is going round (always true without ingest): the watchdog's proof.
    func isAlive(within nanoseconds: Int64 = 5_000_000_000) -> Bool {
        ingest?.isAlive(within: nanoseconds) ?? true
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

    /// Stops the capture, answers held requests, then closes the listeners.
    func stop() {
        reporter?.stop()
        reporter = nil
        ingest?.stop()
        ingest = nil
        gateway.stop()
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

    func fan(_ request: HTTPRequest, _ responder: HTTPResponder) -> HTTPResponse? {
        guard let routes = lock.withLock({ fanRoutes }) else { return .text(503, "starting") }
        return routes.handle(request, responder)
    }

    func management(_ request: HTTPRequest) -> HTTPResponse {
        lock.withLock { managementRoutes }?.handle(request) ?? .text(503, "starting")
    }
}
