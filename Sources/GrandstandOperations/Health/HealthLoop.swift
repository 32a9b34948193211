import GrandstandCore
import GrandstandRuntime
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The service-state and LED thread: every `tick` it asks `LEDPattern` for the levels and writes
/// only changed lines; every `evaluate` it feeds a `HealthObservation` to the `HealthMonitor` and
/// journals the transitions. Locate and lamp-test requests and the published state cross threads
/// under the lock; the monitor and the pattern are the loop's own.
public final class HealthLoop: Sendable {
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

    /// What other threads read and ask for.
    private struct Shared {
        var published = Published()
        var requests: [@Sendable (LEDPattern, Int64) -> LEDPattern] = []
        var lifecycle = HealthObservation.Lifecycle.starting
        /// Called with the new status line whenever it changes (and once when installed).
        var statusSink: (@Sendable (String) -> Void)?
        var lastStatusLine: String?
    }
    private let shared = Mutex(Shared())

    /// The loop's own state: a local of the thread while it runs, kept here before it starts
    /// and after it ends (`stop()` evaluates once more on it).
    private struct Loop {
        var monitor: HealthMonitor
        var pattern: LEDPattern
        var lastTraffic = 0
        var written: LEDLevels?
    }
    private let parked: Mutex<Loop>

    private let leds: StatusLEDs?
    private let events: EventLog
    private let observe: @Sendable (HealthObservation.Lifecycle, Int64) -> HealthObservation
    private let traffic: @Sendable () -> Int
    private let tickNanoseconds: Int64
    private let evaluateNanoseconds: Int64
    private let clock: any Clock
    private let thread = Mutex<ServiceThread?>(nil)

    /// `observe` gathers inputs on the loop thread (ingest snapshot, Wi-Fi, channel counters);
    /// `traffic` is a packet counter polled every 100 ms for the activity LED.
    public init(config: GatewayConfig, board: BoardDescription?, leds: StatusLEDs?, events: EventLog, tickMilliseconds: Int = 25,
         evaluateMilliseconds: Int = 500, clock: any Clock = SystemClock(),
         observe: @escaping @Sendable (HealthObservation.Lifecycle, Int64) -> HealthObservation,
         traffic: @escaping @Sendable () -> Int) {
        parked = Mutex(Loop(monitor: HealthMonitor(config: config.health, venueAccessPoints: config.network.wifiApInfo),
                            pattern: LEDPattern(hasFaultLED: board.map { $0.leds["fault"] != nil } ?? true)))
        self.leds = leds
        self.events = events
        self.observe = observe
        self.traffic = traffic
        self.clock = clock
        tickNanoseconds = Int64(tickMilliseconds) * 1_000_000
        evaluateNanoseconds = Int64(evaluateMilliseconds) * 1_000_000
    }

    public var snapshot: Published { shared.withLock { $0.published } }

    /// Starts the thread (`health`) with the lamp test (timed from the thread's first tick, so a
    /// slow start does not eat into it).
    public func start() throws(RuntimeError) {
        lampTest()
        let held = leds?.names ?? [], unavailable = leds?.unavailable.map(\.error) ?? []
        let now = clock.monotonicNanoseconds()
        shared.withLock { shared in
            shared.published.heartbeat = now
            shared.published.held = held
            shared.published.unavailable = unavailable
        }
        try thread.withLock { (thread: inout ServiceThread?) throws(RuntimeError) in
            thread = try ServiceThread(name: "health") { [self] stop in run(stop) }
        }
    }

    public func setLifecycle(_ value: HealthObservation.Lifecycle) { shared.withLock { $0.lifecycle = value } }

    /// Installs the receiver of status-line changes (the daemon sends them as STATUS=); it is
    /// called at once with the current line, then from the loop thread on every change.
    public func onStatusLine(_ sink: @escaping @Sendable (String) -> Void) {
        let line = shared.withLock { shared -> String in
            shared.statusSink = sink
            shared.lastStatusLine = shared.published.statusLine
            return shared.published.statusLine
        }
        sink(line)
    }

    /// Blinks every LED fast for `seconds` (0 cancels).
    func locate(seconds: Int) { enqueue { pattern, now in var p = pattern; p.locate(at: now, seconds: seconds); return p } }

    /// All LEDs on for a second.
    func lampTest() { enqueue { pattern, now in var p = pattern; p.lampTest(at: now); return p } }

    /// Whether the loop went round within `nanoseconds`.
    public func isAlive(within nanoseconds: Int64) -> Bool {
        clock.monotonicNanoseconds() - shared.withLock { $0.published.heartbeat } <= nanoseconds
    }

    /// Evaluates once more as `stopping` (journals the not-running transition) and ends the thread.
    public func stop() {
        shared.withLock { $0.lifecycle = .stopping }
        thread.withLock { thread in defer { thread = nil }; return thread }?.stop()
        var loop = parked.withLock { $0 }
        evaluate(&loop, now: clock.monotonicNanoseconds())
        parked.withLock { $0 = loop }
    }

    private func enqueue(_ request: @escaping @Sendable (LEDPattern, Int64) -> LEDPattern) {
        shared.withLock { $0.requests.append(request) }
    }

    // MARK: Loop thread

    private func run(_ stop: StopSignal) {
        var loop = parked.withLock { $0 }
        defer { parked.withLock { $0 = loop } }
        var nextEvaluation: Int64 = 0, nextTrafficPoll: Int64 = 0, nextRetry: Int64 = 0
        while !stop.isRaised {
            let now = clock.monotonicNanoseconds()
            let pending = shared.withLock { shared -> [@Sendable (LEDPattern, Int64) -> LEDPattern] in
                shared.published.heartbeat = now
                defer { shared.requests = [] }
                return shared.requests
            }
            for request in pending { loop.pattern = request(loop.pattern, now) }
            if now >= nextEvaluation {
                evaluate(&loop, now: now)
                nextEvaluation = now + evaluateNanoseconds
            }
            if now >= nextTrafficPoll {
                let count = traffic()
                if count != loop.lastTraffic { loop.pattern.traffic(at: now) }
                loop.lastTraffic = count
                nextTrafficPoll = now + 100_000_000
            }
            if let leds, !leds.unavailable.isEmpty, now >= nextRetry {
                retry(leds, &loop)
                nextRetry = now + retryNanoseconds
            }
            drive(&loop, now: now)
            if clock.wait(untilMonotonic: now + tickNanoseconds, or: stop) { break }
        }
    }

    private func evaluate(_ loop: inout Loop, now: Int64) {
        let observation = observe(shared.withLock { $0.lifecycle }, now)
        for transition in loop.monitor.update(observation, now: now) { events.record(transition.event) }
        let state = loop.monitor.state, since = loop.monitor.since, quality = loop.monitor.quality
        let changed = shared.withLock { shared -> (String, @Sendable (String) -> Void)? in
            shared.published.state = state
            shared.published.since = since
            shared.published.quality = quality
            shared.published.channels = observation.validChannels
            let line = shared.published.statusLine
            guard let statusSink = shared.statusSink, line != shared.lastStatusLine else { return nil }
            shared.lastStatusLine = line
            return (line, statusSink)
        }
        if let (line, sink) = changed { sink(line) }
    }

    /// Chips unavailable at start (udev not done, another holder) are tried again every 5 s.
    private let retryNanoseconds: Int64 = 5_000_000_000

    private func retry(_ leds: StatusLEDs, _ loop: inout Loop) {
        let opened = leds.retry()
        guard !opened.isEmpty else { return }
        loop.written = nil
        let held = leds.names, unavailable = leds.unavailable.map(\.error)
        shared.withLock { shared in
            shared.published.held = held
            shared.published.unavailable = unavailable
        }
        events.record(GatewayEvent(.ledsAvailable, "status LEDs \(opened.joined(separator: ", ")) held after a retry"
                                   + (unavailable.isEmpty ? "" : "; still unavailable: \(unavailable.joined(separator: "; "))"),
                                   fields: [("LEDS", opened.joined(separator: ","))]))
    }

    private func drive(_ loop: inout Loop, now: Int64) {
        let state = loop.monitor.state
        let levels = loop.pattern.levels(at: now, state: state)
        let remaining = loop.pattern.locateRemaining(at: now)
        shared.withLock { shared in
            shared.published.levels = levels
            shared.published.locateRemaining = remaining
        }
        guard let leds, levels != loop.written else { return }
        for name in leds.names { if let lit = levels[name] { leds.set(name, on: lit) } }
        loop.written = levels
    }
}
