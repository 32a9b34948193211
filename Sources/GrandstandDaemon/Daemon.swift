import GrandstandCore
import GrandstandRuntime
import Synchronization
import HTTPServer
import MediaCodec
import Systemd
import RAUC
#if canImport(Glibc)
import Glibc
#endif
import GrandstandIngest
import GrandstandOperations
import GrandstandServices
import GrandstandServing

/// The running gateway: live ingest on the venue interface feeding the `Gateway` (HLS per video
/// channel, data-channel rings), the fan and management listeners, and the status outputs,
/// started and stopped as a unit. `grandstand run` and `grandstand demo` drive it; tests too.
public final class Daemon {
    let config: GatewayConfig
    let board: BoardDescription?
    let events: EventLog
    /// Capture settings; nil serves without ingest (listener tests).
    let ingestSettings: LiveIngest.Settings?
    public let gateway: Gateway
    /// The config file `GET/PUT /api/v1/config` and SIGHUP use; nil serves without one.
    let configPath: String?
    public private(set) var runtime: RuntimeConfig?
    /// The running capture; replaced when ingest settings change at run time.
    private let ingestSlot = IngestSlot()
    var ingest: LiveIngest? { ingestSlot.live }
    /// Reads whichever capture is running at call time (for threads that outlive a replacement).
    var ingestSnapshots: @Sendable () -> IngestSnapshot? { let slot = ingestSlot; return { slot.live?.snapshot } }
    private(set) var fanServer: (any HTTPListener)?
    private(set) var managementServer: (any HTTPListener)?
    public private(set) var status: StatusReport?
    private(set) var leds: StatusLEDs?
    private(set) var health: HealthLoop?
    private(set) var reporter: Reporter?
    /// A/B updates through RAUC; nil without /etc/rauc/system.conf (docs/updates.md).
    private(set) var updates: UpdateService?
    let followers = LogFollowers()
    /// Enables the debug fault route (GRANDSTAND_DEBUG_FAULTS=1 in the environment; tests set it).
    var debugFaults = getenv("GRANDSTAND_DEBUG_FAULTS").map { String(cString: $0) == "1" } ?? false
    /// Catalog search, recordings, timelines (Catalog/OperatorServices.swift).
    let services: OperatorServices
    /// The content cache and prefetcher (`cache` in the config; Cache/ContentCache.swift).
    private(set) var cache: ContentCache?
    /// The one clock every service reads and waits on (a `ManualClock` in tests).
    let clock: any Clock
    /// The management listener's routes once started (ManagementSecurityTests walks them).
    private(set) var managementTable: [HTTPRoute] = []

    public init(config: GatewayConfig, board: BoardDescription?, events: EventLog = EventLog(),
         ingest: LiveIngest.Settings? = nil, gateway: Gateway.Settings? = nil, configPath: String? = nil,
         clock: any Clock = SystemClock()) {
        self.config = config
        self.clock = clock
        self.configPath = configPath
        self.board = board
        self.events = events
        self.ingestSettings = ingest
        self.gateway = Gateway(settings: gateway ?? Gateway.Settings(hls: config.hls), clock: clock)
        // Large objects and the update channel's bundles are assembled on disk (docs/files.md "Large files").
        self.gateway.files.limits = FileChannels.Limits(receiver: config.fluteReceiver,
                                                        diskChannels: Set([config.update.multicast?.channel].compactMap { $0 }),
                                                        diskFloorBytes: config.files.diskFloorBytes)
        self.gateway.files.sink = DirectoryFileSink(root: config.stateDirectory + "/files")
        services = OperatorServices(config: config, gateway: self.gateway, events: events, clock: clock)
    }

    /// The settings `grandstand run` uses: the config's interface and policy, FEC on ISA-L.
    public static func productIngest(_ config: GatewayConfig) -> LiveIngest.Settings {
        LiveIngest.Settings(interface: config.network.interface, configuration: IngestConfiguration.product(config))
    }

    /// Brings the listeners up, then the capture; throws if a listener cannot bind or the
    /// capture's wake-up pipe cannot be made (the caller exits non-zero). A missing interface
    /// is not an error: the capture retries and reports it.
    public func start() throws {
        let fanAddress = config.listeners.fan, managementAddress = config.listeners.management
        let fanConfiguration = FanRoutes.serverConfiguration(fanAddress, config.listeners.fanLimits)
        var managementConfiguration = HTTPListenerConfiguration(host: managementAddress.host, port: managementAddress.port)
        managementConfiguration.threadName = "http-mgmt"
        managementConfiguration.connectionLimit = 64

        // The token first: a state directory that cannot hold it is a start error, before any thread.
        let (token, source) = try TokenStore.resolve(config)
        if source == .generated {
            printError("grandstand: generated the management token in \(TokenStore.path(stateDirectory: config.stateDirectory))")
        }
        let runtime = RuntimeConfig(config: config, token: token, path: configPath, events: events)
        let cache = openCache()   // recovery first; without a usable cache the box serves live only
        MediaCodecLibrary.quietLogging()
        let gateway = self.gateway
        var live: LiveIngest?
        if let ingestSettings {
            live = try LiveIngest(settings: ingestSettings, events: events, clock: clock) { gateway.handle($0) }
        }
        // Through the slot: a live config change replaces the capture (RuntimeConfig.ingestApplier).
        var snapshot: (@Sendable () -> IngestSnapshot)?
        let slot = ingestSlot
        let ingestEnabled = live != nil
        if live != nil { snapshot = { slot.live?.snapshot ?? IngestSnapshot.empty } }
        // The LEDs and the service state first: the lamp test runs while the rest starts.
        let (held, unavailable) = openLEDs()
        let inputs = HealthInputs(config: config, ingest: snapshot, gateway: gateway)
        let health = HealthLoop(config: config, board: board, leds: leds, events: events, clock: clock,
                                observe: { inputs.observation($0, now: $1) }, traffic: { inputs.packetCount() })
        try health.start()
        self.health = health
        // The listeners answer with the bound ports, so start them on a placeholder report first.
        let box = StatusBox()
        let fan: any HTTPListener, management: any HTTPListener
        do {
            fan = try EventLoopServer(fanConfiguration, deferring: { box.fan($0, $1) })
            do {
                management = try EventLoopServer(managementConfiguration, deferring: { box.management($0, $1) })
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
                                        injectFault: debugFaults ? Self.faultInjection(slot: ingestEnabled ? slot : nil, events: events) : nil)
        var managementRoutes = ManagementRoutes(runtime: runtime, status: report, gateway: gateway, ingest: snapshot)
        managementRoutes.followers = followers
        let eventRoutes = ManagementEventRoutes(hub: events.hub) { StatusReport.serviceJSON(health.snapshot) }
        let updates = makeUpdates(health: health, viewers: { fan.statistics.connections })
        if let updates, let channel = config.update.multicast?.channel {
            // Bundles stored on the update channel go to the update thread (inspected there).
            gateway.files.observeStored { id, file in
                guard id == channel, file.path.hasSuffix(".raucb") else { return }
                updates.heard(path: file.localPath, identity: "\(file.localPath) \(file.size) \(file.etag)")
            }
        }
        managementRoutes.more = healthRoutes.routes + eventRoutes.routes + (cache.map { CacheRoutes(cache: $0).routes } ?? [])
            + UpdateRoutes(service: updates).routes
        managementRoutes.statsExtra = WiFiStatus(config: config) { health.snapshot.state.inVenue }.members
        managementRoutes.services = services
        managementRoutes.updates = updates
        box.install(fan: FanRoutes(status: report, gateway: gateway, more: services.fanRoutes(cache: cache.map { CacheFanRoutes(cache: $0, fans: config.cache?.fans) }), inserts: services).handler(),
                    management: managementRoutes.handler())
        self.managementTable = managementRoutes.table
        self.cache = cache
        if let cache { gateway.files.sink = cache }   // one store for received files and prefetched items
        services.attach(cache: cache)
        let listeners = report.summary
        runtime.statusLine { "\(health.snapshot.statusLine); \(listeners)" }
        health.onStatusLine { line in _ = try? Notifier().notify(.status("\(line); \(listeners)")) }
        if let ingestSettings {
            let events = self.events
            let clock = self.clock
            runtime.ingestApplier = { config in
                Self.replaceIngest(slot, settings: ingestSettings, config: config, events: events, gateway: gateway, clock: clock)
            }
        }
        self.runtime = runtime
        fanServer = fan
        managementServer = management
        status = report
        do {
            try cache?.start()
            try gateway.start()
            try services.start()
            try live?.start()
        } catch {
            stop()   // a service thread that cannot start: what did start stops again
            throw error
        }
        ingestSlot.live = live
        health.setLifecycle(.running)
        reporter = startReporter(updates: updates)
        do {
            try updates?.start()
            self.updates = updates
        } catch {
            printError("grandstand: updates disabled: \(error)")
        }
    }

    /// The sd_notify STATUS= line: service state, reasons, channels, venue, listeners.
    public var statusText: String {
        [health?.snapshot.statusLine, status?.summary].compactMap { $0 }.joined(separator: "; ")
    }

    /// Whether the capture loop and the health thread are going round (the capture counts as
    /// alive without ingest): the watchdog's proof.
    public func isAlive(within nanoseconds: Int64 = 5_000_000_000) -> Bool {
        (ingest?.isAlive(within: nanoseconds) ?? true) && (health?.isAlive(within: nanoseconds) ?? true)
    }

    /// Re-applies ingest settings live: a new capture with the new policy replaces the old one,
    /// and only channels the new settings refuse are retired from serving. Nil, or why not.
    private static func replaceIngest(_ slot: IngestSlot, settings: LiveIngest.Settings, config: GatewayConfig, events: EventLog,
                                      gateway: Gateway, clock: any Clock) -> String? {
        var settings = settings
        settings.configuration = IngestConfiguration.product(config)
        let replacement: LiveIngest
        do {
            replacement = try LiveIngest(settings: settings, events: events, clock: clock) { gateway.handle($0) }
        } catch {
            return "\(error)"
        }
        let old = slot.take()
        old?.stop()
        let retired = IngestReconfiguration.retired(old?.snapshot.channels ?? [], under: config)
        if !retired.isEmpty { gateway.handle([.channelsChanged(retired.map { .removed($0, reason: .refused) })]) }
        slot.live = replacement
        do {
            try replacement.start()
        } catch {
            slot.live = nil
            return "\(error)"
        }
        return nil
    }

    /// `hang-pipeline` (with `debugFaults`; without, the route answers 403): the watchdog's proof.
    /// Hangs whichever capture runs at call time (a live config change replaces it).
    private static func faultInjection(slot: IngestSlot?, events: EventLog) -> @Sendable (String) -> Bool {
        { name in
            guard name == "hang-pipeline", let live = slot?.live else { return false }
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
        for event in LEDStartupEvents.events(held: panel.names, unavailable: panel.unavailable) { events.record(event) }
        leds = panel
        return (panel.names, panel.unavailable.map(\.error))
    }

    /// The content cache after its recovery, or nil with a `cache-unavailable` event when it cannot
    /// open (disk full, read-only, bad directory): live channels do not depend on it.
    private func openCache() -> ContentCache? {
        guard let settings = config.cache else { return nil }
        do {
            return try ContentCache(settings, clock: clock, events: ItemEventRelay(log: events))
        } catch {
            events.record(GatewayEvent(.cacheUnavailable, "content cache in \(settings.directory) unavailable, serving live only: \(error)",
                                       fields: [("DIRECTORY", settings.directory)]))
            return nil
        }
    }

    /// Stops the capture, answers held requests, then closes the listeners.
    public func stop() {
        updates?.stop()
        updates = nil
        cache?.stop()
        reporter?.stop()
        reporter = nil
        health?.setLifecycle(.stopping)
        ingestSlot.take()?.stop()
        gateway.stop()
        services.stop()
        stopHealth()
        followers.stopAll()   // streams end before the listener that carries them
        events.hub.finishAll()
        fanServer?.stop()
        managementServer?.stop()
        fanServer = nil
        managementServer = nil
    }
}

/// The current capture, shared with the management routes' snapshot and the config applier.
private final class IngestSlot: Sendable {
    private let current = Mutex<LiveIngest?>(nil)

    var live: LiveIngest? {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    func take() -> LiveIngest? { current.withLock { slot in defer { slot = nil }; return slot } }
}

/// Handlers installed after the listeners know their ports; until then requests get 503.
///
/// The handlers live in a class read out of the mutex whole. Kept as closures in a tuple inside
/// `Mutex`'s generic value, each `withLock { $0?.fan }` wrote back a re-abstracted closure, one
/// more pair of thunks per request: after ~20,000 requests the fan thread's 8 MiB stack
/// overflowed (43,639 frames; found by tools/bench/ll; `StatusBoxTests`).
final class StatusBox: Sendable {
    final class Handlers: Sendable {
        let fan: HTTPDeferringHandler
        let management: HTTPDeferringHandler
        init(fan: @escaping HTTPDeferringHandler, management: @escaping HTTPDeferringHandler) {
            self.fan = fan
            self.management = management
        }
    }

    private let handlers = Mutex<Handlers?>(nil)

    func install(fan: @escaping HTTPDeferringHandler, management: @escaping HTTPDeferringHandler) {
        let installed = Handlers(fan: fan, management: management)
        handlers.withLock { $0 = installed }
    }

    func fan(_ request: HTTPRequest, _ responder: HTTPResponder) -> HTTPResponse? {
        guard let installed = handlers.withLock({ $0 }) else { return .text(503, "starting") }
        return installed.fan(request, responder)
    }

    func management(_ request: HTTPRequest, _ responder: HTTPResponder) -> HTTPResponse? {
        guard let installed = handlers.withLock({ $0 }) else { return .text(503, "starting") }
        return installed.management(request, responder)
    }
}

extension Daemon {
    /// RAUC's configuration: its presence makes this an A/B box.
    static let raucSystemConf = "/etc/rauc/system.conf"
    /// Written for grandstand-update-reboot.path (a root unit: the daemon itself may not reboot).
    static let rebootRequest = "/run/grandstand/update-reboot"

    /// `viewers`: fans watching (the multicast rollout waits while more than `maxViewers` do).
    func makeUpdates(health: HealthLoop, viewers: @escaping @Sendable () -> Int) -> UpdateService? {
        guard access(Self.raucSystemConf, R_OK) == 0 else { return nil }
        let multicast = config.update.multicast.map { _ in
            MulticastInputs(inspector: RAUCInstaller(), viewers: viewers, boxKey: MulticastInputs.boxKey(stateDirectory: config.stateDirectory),
                            runningVersion: BuildInfo.current.version, incomingDirectory: config.stateDirectory + "/update-incoming")
        }
        return UpdateService(config: config, updater: RAUCInstaller(), events: events, clock: clock,
                             recordPath: config.stateDirectory + "/update.json", multicast: multicast,
                             trialStartedAt: 0,   // the boot: the system clock's monotonic seconds count from it
                             health: { health.snapshot.state },
                             requestReboot: {
                                 let fd = open(Self.rebootRequest, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
                                 if fd >= 0 { close(fd) } else { printError("grandstand: cannot request a reboot: \(Self.rebootRequest)") }
                             })
    }

    /// Starts the Reporter when `reporting.url` is configured. A queue or state folder that
    /// cannot be used is reported and the daemon runs on without reports.
    func startReporter(updates: UpdateService?) -> Reporter? {
        let gateway = self.gateway
        let snapshots = ingestSnapshots   // through the slot: a live config change replaces the capture
        do {
            let reporter = try Reporter.product(config: config, board: board?.name, version: BuildInfo.current.version, clock: clock,
                                                update: { updates?.status.json }) {
                gateway.stats(merging: snapshots()?.stats)
            }
            try reporter?.start()
            return reporter
        } catch {
            printError("grandstand: reporting disabled: \(error)")
            return nil
        }
    }
}
