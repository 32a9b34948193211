import GrandstandCore
import GrandstandRuntime
import CurlHTTP
import Synchronization
import WiFi
#if canImport(Glibc)
import Glibc
#endif

/// Periodic stats reports (docs/reporting.md): every `interval` a report document is built and
/// queued on disk; the queue is POSTed oldest first to the Reporter, retried with exponential
/// backoff while it fails, so reports survive an unreachable server and a restart.
/// One thread owns the queue, the Wi-Fi socket and the retry state.
public final class Reporter: Sendable {
    struct Settings {
        var target: UploadTarget
        var intervalMilliseconds: Int64
        var timeoutMilliseconds: Int
        var backoff: UploadBackoff
        var queueDirectory: String
        var queueLimit: Int
    }

    /// What the report thread reads when a report is due (called on that thread).
    struct Sources {
        /// The running build (`BuildInfo.current` in the daemon).
        var version = BuildInfo.developmentVersion
        var board: String?
        var stats: @Sendable () -> IngestStats = { IngestStats() }
        var wifi: @Sendable () -> (info: WiFiLinkInfo?, error: String?) = { (nil, nil) }
        /// The update state (`UpdateService.Status.json`), nil without A/B updates.
        var update: @Sendable () -> JSONValue? = { nil }
    }

    struct Counters: Equatable {
        var built = 0, delivered = 0, attempts = 0, failures = 0, rejected = 0
        var queued = 0, dropped = 0
        var lastError: String?
        var lastSequence: UInt64 = 0
    }

    let settings: Settings
    let deviceUUID: ReportUUID
    let appSessionUUID = randomUUID()
    private let sources: Sources
    private let clock: any Clock
    private let startedAt: Int64
    private let shared: Mutex<Counters>
    private let thread = Mutex<ServiceThread?>(nil)

    /// What the report thread owns: the on-disk queue (opened by `init`, so a folder that cannot
    /// be used is a start error), the retry state, the video sessions and the report numbering.
    private struct Loop {
        var queue: ReportQueue
        var retry: UploadRetry
        var videoSessions = VideoSessions()
        var sequence: UInt64 = 0
    }
    /// Handed to the thread when it starts (a reporter runs once).
    private let handover: Mutex<Loop?>

    /// Loads (or creates) the device UUID and opens the queue; throws a `StateFileError`.
    init(settings: Settings, stateDirectory: String, sources: Sources, clock: any Clock = SystemClock()) throws {
        self.settings = settings
        self.sources = sources
        self.clock = clock
        startedAt = clock.monotonicNanoseconds()
        deviceUUID = try DeviceIdentity.load(stateDirectory: stateDirectory)
        let queue = try ReportQueue(directory: settings.queueDirectory, limit: settings.queueLimit)
        var counters = Counters()
        counters.queued = queue.count
        shared = Mutex(counters)
        handover = Mutex(Loop(queue: queue, retry: UploadRetry(backoff: settings.backoff)))
    }

    var counters: Counters { shared.withLock { $0 } }

    /// Starts the `reporter` thread.
    public func start() throws(RuntimeError) {
        try thread.withLock { (thread: inout ServiceThread?) throws(RuntimeError) in
            thread = try ServiceThread(name: "reporter") { [self] stop in
                guard var loop = handover.withLock({ loop in let taken = loop; loop = nil; return taken }) else { return }
                run(&loop, stop)
            }
        }
    }

    /// Ends the thread after the attempt in flight (at most the POST timeout); queued reports stay on disk.
    public func stop() {
        thread.withLock { thread in defer { thread = nil }; return thread }?.stop()
    }

    private func run(_ loop: inout Loop, _ stop: StopSignal) {
        var nextReport = now() + settings.intervalMilliseconds
        while !stop.isRaised {
            let current = now()
            if current >= nextReport {
                enqueueReport(&loop)
                // No burst of catch-up reports after a stall: the next one is an interval from now.
                nextReport = max(nextReport + settings.intervalMilliseconds, current + 1)
            }
            if loop.retry.isDue(at: now()), let (number, bytes) = loop.queue.oldest() {
                upload(&loop, number, bytes)
                continue
            }
            var until = nextReport
            if loop.queue.count > 0 { until = min(until, loop.retry.notBefore) }
            _ = clock.wait(untilMonotonic: until * 1_000_000, or: stop)
        }
    }

    private func enqueueReport(_ loop: inout Loop) {
        loop.sequence += 1
        let sequence = loop.sequence
        let stats = sources.stats()
        let sessions = loop.videoSessions.update(channels: stats.channels.keys.sorted(), newUUID: randomUUID)
        let wifi = sources.wifi()
        let input = ReportInput(deviceUUID: deviceUUID, appSessionUUID: appSessionUUID, sequence: sequence,
                                timestampSeconds: clock.wallNanoseconds() / 1_000_000_000,
                                uptimeSeconds: (clock.monotonicNanoseconds() - startedAt) / 1_000_000_000,
                                version: sources.version, board: sources.board, stats: stats, videoSessions: sessions,
                                wifi: wifi.info, wifiError: wifi.error, reportsDropped: loop.queue.dropped, update: sources.update())
        var failure: String?
        do {
            try loop.queue.enqueue(ReportDocument.encode(input))
        } catch {
            failure = "queueing report \(sequence): \(error)"
        }
        update(loop.queue) {
            $0.built += 1
            $0.lastSequence = sequence
            if let failure { $0.lastError = failure }
        }
    }

    private func upload(_ loop: inout Loop, _ number: UInt64, _ bytes: [UInt8]) {
        var status: Int?
        var failure: String?
        do {
            let seconds = Double(max(1, settings.timeoutMilliseconds)) / 1000
            var options = CurlOptions()
            options.connectTimeoutSeconds = seconds
            options.totalTimeoutSeconds = seconds
            options.idleTimeoutSeconds = nil
            options.maxRedirects = 0   // a collector answers itself; a redirect is a misconfiguration (retried as non-2xx)
            options.maxResponseBytes = 1 << 20
            let host = settings.target.host.contains(":") ? "[\(settings.target.host)]" : settings.target.host
            let request = CurlRequest(url: "http://\(host):\(settings.target.port)\(settings.target.target)", method: "POST",
                                      headers: [("Content-Type", "application/json")], body: bytes)
            status = try CurlClient(options).perform(request).status
        } catch {
            failure = "POST \(settings.target): \(error)"
        }
        let outcome = UploadOutcome(status: status)
        switch outcome {
        case .delivered, .rejected:
            loop.queue.remove(number)
            loop.retry.succeeded()
        case .retry:
            loop.retry.failed(at: now(), draw: Double.random(in: 0 ..< 1))
        }
        update(loop.queue) {
            $0.attempts += 1
            switch outcome {
            case .delivered: $0.delivered += 1
            case .rejected: $0.rejected += 1; $0.lastError = "POST \(settings.target): HTTP \(status ?? 0), report dropped"
            case .retry: $0.failures += 1; $0.lastError = failure ?? "POST \(settings.target): HTTP \(status ?? 0)"
            }
        }
    }

    private func update(_ queue: ReportQueue, _ change: (inout Counters) -> Void) {
        let queued = queue.count, dropped = queue.dropped
        shared.withLock { shared in
            change(&shared)
            shared.queued = queued
            shared.dropped = dropped
        }
    }

    /// Monotonic milliseconds: the unit of the report interval and the upload backoff.
    private func now() -> Int64 { clock.monotonicNanoseconds() / 1_000_000 }
}

extension Reporter {
    /// The reporter `grandstand run` starts: nil when `reporting.url` is not set.
    /// `update`: the update state each report carries (a fleet sees every box's update verdict).
    public static func product(config: GatewayConfig, board: String?, version: String, clock: any Clock = SystemClock(),
                        update: @escaping @Sendable () -> JSONValue? = { nil },
                        stats: @escaping @Sendable () -> IngestStats) throws -> Reporter? {
        let reporting = config.reporting
        guard let target = reporting.url else { return nil }
        let settings = Settings(target: target, intervalMilliseconds: Int64(reporting.intervalSeconds) * 1000,
                                timeoutMilliseconds: reporting.timeoutSeconds * 1000, backoff: reporting.backoff,
                                queueDirectory: reporting.queuePath(stateDirectory: config.stateDirectory),
                                queueLimit: reporting.queueLimit)
        var sources = Sources()
        sources.board = board
        sources.version = version
        sources.stats = stats
        sources.update = update
        if let interface = config.network.wifiInterface {
            let wifi = WiFiReader(interface: interface, accessPoints: config.network.wifiApInfo)
            sources.wifi = { wifi.read() }
        }
        return try Reporter(settings: settings, stateDirectory: config.stateDirectory, sources: sources, clock: clock)
    }
}

/// Reads the uplink's Wi-Fi state for reports; keeps one nl80211 socket, reopened after a failure.
/// Called on the report thread; the socket sits behind a lock all the same (uncontended).
final class WiFiReader: Sendable {
    let interface: String
    let accessPoints: [GatewayConfig.WiFiAccessPoint]
    private let socket = Mutex<NL80211Socket?>(nil)

    init(interface: String, accessPoints: [GatewayConfig.WiFiAccessPoint]) {
        self.interface = interface
        self.accessPoints = accessPoints
    }

    func read() -> (info: WiFiLinkInfo?, error: String?) {
        socket.withLock { held in
            do {
                let socket = try held ?? NL80211Socket()
                held = socket
                return (try socket.linkInfo(interface: interface, accessPoints: accessPoints), nil)
            } catch {
                held = nil
                return (nil, "\(error)")
            }
        }
    }
}
