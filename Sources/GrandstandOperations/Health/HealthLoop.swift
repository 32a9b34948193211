import GrandstandCore
import GrandstandRuntime
#if canImport(Glibc)
import Glibc
#endif

/// The service-state and LED thread: every `tick` it asks `LEDPattern` for the levels and writes
/// only changed lines; every `evaluate` it feeds a `HealthObservation` to the `HealthMonitor` and
/// journals the transitions. Locate and lamp-test requests and the published state cross threads
/// under the lock.
public final class HealthLoop: @unchecked Sendable {
    // @unchecked: monitor, pattern and LEDs are touched only on the loop thread (or before it
    // starts / after it joined); everything shared goes through `lock`.
    public struct Published: Sendable {
        public var state = ServiceState(reasons: .notRunning)
        var since: Int64?
        var quality: [String: ChannelQuality] = [:]
        var levels = LEDLevels()
        var locateRemaining = 0.0
        var heartbeat: Int64 = 0
        /// Logical LEDs whose lines are held, and the chips that could not be used (with why).
        var held: [String] = []
        var unavailable: [String] = []
        /// Valid channels at the last evaluation.
        var channels = 0
        /// `ServiceState.statusLine` of the last evaluation (sd_notify STATUS=).
        public var statusLine: String { state.statusLine(channels: channels) }
    }

    private let lock = Lock()
    private var published = Published()
    private var requests: [(LEDPattern, Int64) -> LEDPattern] = []
    private var lifecycle = HealthObservation.Lifecycle.starting

    private var monitor: HealthMonitor
    private var pattern: LEDPattern
    private let leds: StatusLEDs?
    private let events: EventLog
    private let observe: (HealthObservation.Lifecycle, Int64) -> HealthObservation
    private let traffic: () -> Int
    private var lastTraffic = 0
    private let tickNanoseconds: Int64
    private let evaluateNanoseconds: Int64
    private let clock: any Clock
    private var thread: ServiceThread?
    private var written: LEDLevels?
    /// Called with the new status line whenever it changes (and once when installed).
    private var statusSink: (@Sendable (String) -> Void)?
    private var lastStatusLine: String?

    /// `observe` gathers inputs on the loop thread (ingest snapshot, Wi-Fi, channel counters);
    /// `traffic` is a packet counter polled every 100 ms for the activity LED.
    public init(config: GatewayConfig, board: BoardDescription?, leds: StatusLEDs?, events: EventLog, tickMilliseconds: Int = 25,
         evaluateMilliseconds: Int = 500, clock: any Clock = SystemClock(),
         observe: @escaping (HealthObservation.Lifecycle, Int64) -> HealthObservation, traffic: @escaping () -> Int) {
        monitor = HealthMonitor(config: config.health, venueAccessPoints: config.network.wifiApInfo)
        pattern = LEDPattern(hasFaultLED: board.map { $0.leds["fault"] != nil } ?? true)
        self.leds = leds
        self.events = events
        self.observe = observe
        self.traffic = traffic
        self.clock = clock
        tickNanoseconds = Int64(tickMilliseconds) * 1_000_000
        evaluateNanoseconds = Int64(evaluateMilliseconds) * 1_000_000
    }

    public var snapshot: Published { lock.withLock { published } }

    /// Starts the thread (`health`) with the lamp test (timed from the thread's first tick, so a
    /// slow start does not eat into it).
    public func start() throws(RuntimeError) {
        lampTest()
        let held = leds?.names ?? [], unavailable = leds?.unavailable.map(\.error) ?? []
        lock.withLock {
            published.heartbeat = clock.monotonicNanoseconds()
            published.held = held
            published.unavailable = unavailable
        }
        thread = try ServiceThread(name: "health") { [self] stop in run(stop) }
    }

    public func setLifecycle(_ value: HealthObservation.Lifecycle) { lock.withLock { lifecycle = value } }

    /// Installs the receiver of status-line changes (the daemon sends them as STATUS=); it is
    /// called at once with the current line, then from the loop thread on every change.
    public func onStatusLine(_ sink: @escaping @Sendable (String) -> Void) {
        let line = lock.withLock { () -> String in
            statusSink = sink
            lastStatusLine = published.statusLine
            return published.statusLine
        }
        sink(line)
    }

    /// Blinks every LED fast for `seconds` (0 cancels).
    func locate(seconds: Int) { enqueue { pattern, now in var p = pattern; p.locate(at: now, seconds: seconds); return p } }

    /// All LEDs on for a second.
    func lampTest() { enqueue { pattern, now in var p = pattern; p.lampTest(at: now); return p } }

    /// Whether the loop went round within `nanoseconds`.
    public func isAlive(within nanoseconds: Int64) -> Bool {
        clock.monotonicNanoseconds() - lock.withLock { published.heartbeat } <= nanoseconds
    }

    /// Evaluates once more as `stopping` (journals the not-running transition) and ends the thread.
    public func stop() {
        lock.withLock { lifecycle = .stopping }
        thread?.stop()
        thread = nil
        evaluate(now: clock.monotonicNanoseconds())
    }

    private func enqueue(_ request: @escaping (LEDPattern, Int64) -> LEDPattern) {
        lock.withLock { requests.append(request) }
    }

    // MARK: Loop thread

    private func run(_ stop: StopSignal) {
        var nextEvaluation: Int64 = 0, nextTrafficPoll: Int64 = 0, nextRetry: Int64 = 0
        while !stop.isRaised {
            let now = clock.monotonicNanoseconds()
            let pending = lock.withLock { () -> [(LEDPattern, Int64) -> LEDPattern] in
                published.heartbeat = now
                defer { requests = [] }
                return requests
            }
            for request in pending { pattern = request(pattern, now) }
            if now >= nextEvaluation {
                evaluate(now: now)
                nextEvaluation = now + evaluateNanoseconds
            }
            if now >= nextTrafficPoll {
                let count = traffic()
                if count != lastTraffic { pattern.traffic(at: now) }
                lastTraffic = count
                nextTrafficPoll = now + 100_000_000
            }
            if let leds, !leds.unavailable.isEmpty, now >= nextRetry {
                retry(leds)
                nextRetry = now + retryNanoseconds
            }
            drive(now: now)
            if clock.wait(untilMonotonic: now + tickNanoseconds, or: stop) { break }
        }
    }

    private func evaluate(now: Int64) {
        let observation = observe(lock.withLock { lifecycle }, now)
        for transition in monitor.update(observation, now: now) { events.record(transition.event) }
        let state = monitor.state, since = monitor.since, quality = monitor.quality
        let changed = lock.withLock { () -> (String, @Sendable (String) -> Void)? in
            published.state = state
            published.since = since
            published.quality = quality
            published.channels = observation.validChannels
            let line = published.statusLine
            guard let statusSink, line != lastStatusLine else { return nil }
            lastStatusLine = line
            return (line, statusSink)
        }
        if let (line, sink) = changed { sink(line) }
    }

    /// Chips unavailable at start (udev not done, another holder) are tried again every 5 s.
    private let retryNanoseconds: Int64 = 5_000_000_000

    private func retry(_ leds: StatusLEDs) {
        let opened = leds.retry()
        guard !opened.isEmpty else { return }
        written = nil
        let held = leds.names, unavailable = leds.unavailable.map(\.error)
        lock.withLock {
            published.held = held
            published.unavailable = unavailable
        }
        events.record(GatewayEvent(.ledsAvailable, "status LEDs \(opened.joined(separator: ", ")) held after a retry"
                                   + (unavailable.isEmpty ? "" : "; still unavailable: \(unavailable.joined(separator: "; "))"),
                                   fields: [("LEDS", opened.joined(separator: ","))]))
    }

    private func drive(now: Int64) {
        let state = monitor.state
        let levels = pattern.levels(at: now, state: state)
        let remaining = pattern.locateRemaining(at: now)
        lock.withLock {
            published.levels = levels
            published.locateRemaining = remaining
        }
        guard let leds, levels != written else { return }
        for name in leds.names { if let lit = levels[name] { leds.set(name, on: lit) } }
        written = levels
    }
}
