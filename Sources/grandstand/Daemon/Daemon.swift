import GrandstandCore
import HTTPServer
import MediaCodec
import Systemd
#if canImport(Glibc)
import Glibc
#endif

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
    private(set) var health: HealthLoop?

    init(config: GatewayConfig, board: BoardDescription?, events: EventLog = EventLog(),
         ingest: LiveIngest.Settings? = nil, gateway: Gateway.Settings? = nil) {
        self.config = config
        self.board = board
        self.events = events
        self.ingestSettings = ingest
        self.gateway = Gateway(settings: gateway ?? Gateway.Settings(hls: config.hls))
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
        let fanConfiguration = FanRoutes.serverConfiguration(fanAddress, config.listeners.fanLimits)
        var managementConfiguration = HTTPServer.Configuration(host: managementAddress.host, port: managementAddress.port)
        managementConfiguration.connectionLimit = 64

        MediaCodecLibrary.quietLogging()
        let gateway = self.gateway
        var live: LiveIngest?
        if let ingestSettings {
            live = try LiveIngest(settings: ingestSettings, events: events) { gateway.handle($0) }
        }
        var snapshot: (@Sendable () -> IngestSnapshot)?
        if let live { snapshot = { live.snapshot } }
        // The LEDs and the service state first: the lamp test runs while the rest starts.
        let (held, unavailable) = openLEDs()
        let inputs = HealthInputs(config: config, ingest: snapshot, gateway: gateway)
        let health = HealthLoop(config: config, board: board, leds: leds, events: events,
                                observe: { inputs.observation($0, now: $1) }, traffic: { inputs.packetCount() })
        health.start()
        self.health = health
        // The listeners answer with the bound ports, so start them on a placeholder report first.
        let box = StatusBox()
        let fan: HTTPServer, management: HTTPServer
        do {
            fan = try HTTPServer(fanConfiguration, deferring: { box.fan($0, $1) })
            do {
                management = try HTTPServer(managementConfiguration) { box.management($0) }
            } catch {
                fan.stop()
                throw error
            }
        } catch {
            stopHealth()
            throw error
        }
        var report = StatusReport(
            version: BuildInfo.current.version, board: board?.name, startedAt: StatusReport.monotonicSeconds(),
            fan: ListenAddress(host: fanAddress.host, port: fan.port),
            management: ListenAddress(host: managementAddress.host, port: management.port),
            leds: held)
        report.health = health
        let healthRoutes = HealthRoutes(health: health, board: board, held: held, unavailable: unavailable,
                                        injectFault: Self.faultInjection(live: live, events: events))
        var managementRoutes = ManagementRoutes(token: config.managementToken, status: report, gateway: gateway, ingest: snapshot)
        managementRoutes.extra = { healthRoutes.handle($0) }
        box.install(fan: FanRoutes(status: report, gateway: gateway), management: managementRoutes)
        fanServer = fan
        managementServer = management
        status = report
        gateway.start()
        live?.start()
        ingest = live
        health.setLifecycle(.running)
    }

    /// Whether the capture loop and the health thread are going round (the capture counts as
    /// alive without ingest): the watchdog's proof.
    func isAlive(within nanoseconds: Int64 = 5_000_000_000) -> Bool {
        (ingest?.isAlive(within: nanoseconds) ?? true) && (health?.isAlive(within: nanoseconds) ?? true)
    }

    /// `hang-pipeline` when the environment has GRANDSTAND_DEBUG_FAULTS=1 (tests prove the
    /// watchdog with it); nil — the route answers 403 — otherwise.
    private static func faultInjection(live: LiveIngest?, events: EventLog) -> (@Sendable (String) -> Bool)? {
        guard let flag = getenv("GRANDSTAND_DEBUG_FAULTS"), String(cString: flag) == "1" else { return nil }
        return { name in
            guard name == "hang-pipeline", let live else { return false }
            events.record(GatewayEvent(.faultInjected, "fault injected: capture loop hung on purpose (watchdog test)",
                                       fields: [("FAULT", name)]))
            live.hang()
            return true
        }
    }

    private func stopHealth() {
        health?.stop()
        health = nil
        leds?.release()
        leds = nil
    }

    /// Requests the board's LED lines; reports chips it cannot use. Returns the names held and
    /// the failures (each names its chip).
    private func openLEDs() -> (held: [String], unavailable: [String]) {
        guard let board, !board.leds.isEmpty else { return ([], []) }
        let panel = StatusLEDs(board: board)
        for failure in panel.unavailable {
            events.record(GatewayEvent(.ledsUnavailable, "status LEDs on \(failure.chip) unavailable: \(failure.error)",
                                       fields: [("CHIP", failure.chip)]))
        }
        leds = panel
        return (panel.names, panel.unavailable.map(\.error))
    }

    /// Stops the capture, answers held requests, then closes the listeners.
    func stop() {
        health?.setLifecycle(.stopping)
        ingest?.stop()
        ingest = nil
        gateway.stop()
        stopHealth()
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
