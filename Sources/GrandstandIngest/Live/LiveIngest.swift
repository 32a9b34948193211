import Capture
import GrandstandCore
import GrandstandRuntime
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import GrandstandOperations

/// The ingest pipeline on a live interface, on its own thread: libpcap capture with the BPF
/// filter following the channel list, one IGMP/MLD membership per group (`MembershipPlan`),
/// re-joins for groups gone silent and after the interface returns (`SilenceWatch`), and a retry
/// loop while the interface is missing or down. Pipeline actions go to `sink` on this thread;
/// `snapshot` is safe to read from any thread.
public final class LiveIngest: Sendable {
    public struct Settings: Sendable {
        public var interface: String
        public var configuration: IngestConfiguration
        /// Re-open attempts while the interface is missing or down.
        public var retryNanoseconds: Int64 = 1_000_000_000
        /// How often time advances in the pipeline (timeouts, FEC windows) without traffic.
        public var tickNanoseconds: Int64 = 100_000_000
        public var silenceNanoseconds: Int64 = 10_000_000_000
        public var captureOptions = LiveCapture.defaultOptions

        public init(interface: String, configuration: IngestConfiguration, retryNanoseconds: Int64 = 1_000_000_000, tickNanoseconds: Int64 = 100_000_000, silenceNanoseconds: Int64 = 10_000_000_000) {
            self.interface = interface
            self.configuration = configuration
            self.retryNanoseconds = retryNanoseconds
            self.tickNanoseconds = tickNanoseconds
            self.silenceNanoseconds = silenceNanoseconds
        }
    }

    public typealias Sink = @Sendable ([IngestAction]) -> Void

    private let settings: Settings
    private let sink: Sink
    private let events: EventLog
    /// What the capture thread shares with the others (everything else it owns: `LoopState`).
    private struct Shared {
        var published = IngestSnapshot.empty
        /// Fault injection (debug only, docs/health.md): the loop stops going round until stopped.
        var hung = false
        /// CLOCK_MONOTONIC time of the loop's last iteration: the watchdog's liveness proof.
        var heartbeat: Int64 = 0
    }
    private let shared: Mutex<Shared>
    private let wakeup: CaptureWakeup
    private let clock: any Clock
    private let thread = Mutex<ServiceThread?>(nil)
    /// SRT channels' receivers (one thread each) and where they leave TS for this loop.
    private let inbox: StreamInbox
    private let srtInputs: [SRTInput]

    public init(settings: Settings, events: EventLog, clock: any Clock = SystemClock(), sink: @escaping Sink) throws(CaptureError) {
        self.settings = settings
        self.events = events
        self.clock = clock
        self.sink = sink
        wakeup = try CaptureWakeup()
        inbox = StreamInbox(wakeup: wakeup)
        let configuration = settings.configuration
        let listed = ChannelRegistry(policy: configuration.policy, staticChannels: configuration.staticChannels).channels
        srtInputs = listed.compactMap { [inbox] channel in
            channel.srt.map { SRTInput(channelID: channel.id, source: $0, inbox: inbox, events: events, clock: clock) }
        }
        var start = Shared()
        start.published.interface = settings.interface
        shared = Mutex(start)
    }

    /// What the loop last published: channels, stats, capture counters, memberships.
    /// The SRT inputs' connection state and counters are read as they are now.
    public var snapshot: IngestSnapshot {
        var snapshot = shared.withLock { $0.published }
        for input in srtInputs {
            for (name, value) in input.status.fields { snapshot.stats.channels[input.channelID, default: [:]][name] = .number(value) }
        }
        return snapshot
    }

    /// Starts the capture thread (`ingest`) and one thread per SRT channel (`srt-<id>`).
    public func start() throws(RuntimeError) {
        try thread.withLock { (thread: inout ServiceThread?) throws(RuntimeError) in
            thread = try ServiceThread(name: "ingest") { [self] stop in run(stop) }
        }
        do {
            for input in srtInputs { try input.start() }
        } catch {
            stop()
            throw error
        }
    }

    /// Stops the SRT receivers and the loop, leaves every group and closes the capture.
    public func stop() {
        for input in srtInputs { input.stop() }
        guard let running = thread.withLock({ thread in defer { thread = nil }; return thread }) else { return }
        running.stopSignal.raise()
        wakeup.signal()
        running.join()
    }

    /// Hangs the capture loop (its heartbeat goes stale, so the watchdog stops being kicked).
    public func hang() { shared.withLock { $0.hung = true } }

    /// Whether the capture loop went round within `nanoseconds` (it does at least every tick,
    /// with or without traffic, also while the interface is missing). False before it starts.
    public func isAlive(within nanoseconds: Int64) -> Bool {
        let last = shared.withLock { $0.heartbeat }
        return last > 0 && clock.monotonicNanoseconds() - last <= nanoseconds
    }

    // MARK: The loop (capture thread only below this line)

    private func run(_ stop: StopSignal) {
        let state = LoopState(settings: settings)
        while !stop.isRaised {
            let beat = clock.monotonicNanoseconds()
            shared.withLock { $0.heartbeat = beat }
            while shared.withLock({ $0.hung }), !clock.wait(nanoseconds: 100_000_000, or: stop) {}
            if stop.isRaised { break }
            let now = clock.wallNanoseconds()
            if !state.capture.isOpen, now >= state.nextOpenAttempt { open(state, now: now) }
            do {
                let timeout = state.capture.isOpen ? Int32(settings.tickNanoseconds / 1_000_000) : 200
                let woke = try state.capture.wait(timeoutMilliseconds: timeout, wakeup: wakeup)
                takeStreams(state)
                // Woken by a stream input: the capture may be readable too (its read is nonblocking).
                if woke == .readable || (woke == .woken && state.capture.isOpen) { try read(state) }
            } catch {
                interfaceLost(state, error: error, now: clock.wallNanoseconds())
            }
            let after = clock.wallNanoseconds()
            if after >= state.nextTick {
                deliver(state.pipeline.tick(nowNanoseconds: after), state)
                for action in state.silence.tick(now: after) { apply(action, state) }
                state.nextTick = after + settings.tickNanoseconds
                publish(state, now: after)
            }
        }
        for action in state.plan.leaveAll() { apply(action, state) }
        state.capture.close()
        publish(state, now: clock.wallNanoseconds())
    }

    private func open(_ state: LoopState, now: Int64) {
        do {
            let link = try state.capture.open()
            state.link = LinkLayer(linkType: link.rawValue)
            if state.link == nil {
                state.capture.close()
                throw CaptureError("decode link type \(link.name) on \(settings.interface)", code: -1,
                                   message: "unsupported link-layer type")
            }
            let reopened = state.capture.openCount > 1
            state.lastError = nil
            events.record(GatewayEvent(.captureUp, "capturing on \(settings.interface)" + (reopened ? " again" : ""),
                                       fields: [("INTERFACE", settings.interface)]))
            if reopened {
                for action in state.silence.interfaceReturned(now: now) { apply(action, state) }
            }
            refreshEndpoints(state)
        } catch {
            state.nextOpenAttempt = now + settings.retryNanoseconds
            let text = "\(error)"
            if state.lastError != text {
                state.lastError = text
                events.record(GatewayEvent(.captureDown, "capture on \(settings.interface) unavailable: \(text)",
                                           fields: [("INTERFACE", settings.interface)]))
            }
        }
    }

    private func interfaceLost(_ state: LoopState, error: CaptureError, now: Int64) {
        state.capture.close()
        state.nextOpenAttempt = now + settings.retryNanoseconds
        state.lastError = error.description
        events.record(GatewayEvent(.captureDown, "capture on \(settings.interface) lost: \(error)",
                                   fields: [("INTERFACE", settings.interface)]))
    }

    private func read(_ state: LoopState) throws(CaptureError) {
        guard let link = state.link else { return }
        var actions: [IngestAction] = []
        try state.capture.readAvailable { packet in
            let time = packet.timestampNanoseconds
            actions += state.pipeline.ingest(frame: packet.bytes[...], link: link, timestampNanoseconds: time) { datagram in
                state.silence.observe(destination: datagram.destination.address, sender: datagram.source.address, at: time)
            }
        }
        deliver(actions, state)
    }

    /// TS that SRT inputs received since the last look, into the pipeline by channel id.
    private func takeStreams(_ state: LoopState) {
        let chunks = inbox.take()
        guard !chunks.isEmpty else { return }
        var actions: [IngestAction] = []
        for chunk in chunks {
            state.pipeline.ingest(stream: chunk.bytes[...], channelID: chunk.channelID, timestampNanoseconds: chunk.timestampNanoseconds,
                                  into: &actions)
        }
        deliver(actions, state)
    }

    /// Hands actions to the sink; a channel-list change re-plans memberships and the filter.
    private func deliver(_ actions: [IngestAction], _ state: LoopState) {
        guard !actions.isEmpty else { return }
        var changed = false
        for case .channelsChanged(let changes) in actions {
            changed = true
            for change in changes { events.record(ChannelEvents.event(for: change)) }
        }
        for case .path(let id, let event, _) in actions { events.record(PathEvents.event(channel: id, event)) }
        sink(actions)
        if changed {
            refreshEndpoints(state)
            publish(state, now: clock.wallNanoseconds())
        }
    }

    /// Joins and leaves groups for the current endpoint set and installs the matching filter.
    private func refreshEndpoints(_ state: LoopState) {
        let endpoints = state.pipeline.endpoints
        for action in state.plan.update(desired: endpoints) { apply(action, state) }
        state.silence.track(state.plan.held)
        let filter = CaptureFilter(endpoints: endpoints)
        do {
            try state.capture.setFilter(filter.expression)
        } catch {
            events.record(GatewayEvent(.captureDown, "capture filter on \(settings.interface) refused: \(error)",
                                       fields: [("INTERFACE", settings.interface), ("FILTER", filter.expression)]))
        }
    }

    private func apply(_ action: MembershipAction, _ state: LoopState) {
        let membership = action.membership
        do {
            switch action {
            case .join:
                state.sockets[membership] = try MulticastMembership(
                    group: membership.group.description, source: membership.source?.description, interface: settings.interface)
            case .leave:
                state.sockets[membership] = nil
            case .rejoin:
                if let socket = state.sockets[membership] {
                    try socket.rejoin()
                } else {
                    state.sockets[membership] = try MulticastMembership(
                        group: membership.group.description, source: membership.source?.description, interface: settings.interface)
                }
                events.record(GatewayEvent(.groupRejoined, "re-joined \(membership) on \(settings.interface)",
                                           fields: [("GROUP", membership.group.description), ("INTERFACE", settings.interface)]))
            }
        } catch {
            state.plan.joinFailed(membership)
            state.sockets[membership] = nil
            state.failedJoins += 1
            events.record(GatewayEvent(.captureDown, "cannot join \(membership) on \(settings.interface): \(error)",
                                       fields: [("GROUP", membership.group.description), ("INTERFACE", settings.interface)]))
        }
    }

    private func publish(_ state: LoopState, now: Int64) {
        let snapshot = IngestSnapshot(state: state, interface: settings.interface, at: now)
        shared.withLock { $0.published = snapshot }
    }
}

/// Everything the capture thread owns (a class so the read loop's closures can update it).
final class LoopState {
    var pipeline: IngestPipeline
    let capture: LiveCapture
    var link: LinkLayer?
    var plan = MembershipPlan()
    var silence: SilenceWatch
    var sockets: [GroupMembership: MulticastMembership] = [:]
    var failedJoins = 0
    var nextOpenAttempt: Int64 = 0
    var nextTick: Int64 = 0
    var lastError: String?

    init(settings: LiveIngest.Settings) {
        pipeline = IngestPipeline(configuration: settings.configuration)
        capture = LiveCapture(interface: settings.interface, filter: CaptureFilter.nothing, options: settings.captureOptions)
        silence = SilenceWatch(silenceNanoseconds: settings.silenceNanoseconds)
    }
}
