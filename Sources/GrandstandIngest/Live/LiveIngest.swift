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
        var settings = settings
        // A second path "on another interface" that names the main one is on the main one.
        settings.configuration.staticChannels = settings.configuration.staticChannels.map { channel in
            var channel = channel
            if channel.secondPath?.interface == settings.interface { channel.secondPath?.interface = nil }
            return channel
        }
        self.settings = settings
        self.events = events
        self.clock = clock
        self.sink = sink
        wakeup = try CaptureWakeup()
        inbox = StreamInbox(wakeup: wakeup)
        let configuration = settings.configuration
        let listed = ChannelRegistry(policy: configuration.policy, staticChannels: configuration.staticChannels).channels
        srtInputs = listed.flatMap { [inbox] channel in
            // A channel over SRT, and a channel whose second path is over SRT (docs/ingest.md, "Two paths").
            [channel.srt.map { SRTInput(channelID: channel.id, source: $0, inbox: inbox, events: events, clock: clock) },
             channel.secondPath?.srt.map { SRTInput(channelID: channel.id, path: .secondary, source: $0, inbox: inbox, events: events,
                                                    clock: clock) }].compactMap { $0 }
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
            for side in state.sides where !side.capture.isOpen && now >= side.nextOpenAttempt { open(side, state, now: now) }
            if state.sides.isEmpty {
                do {
                    let timeout = state.capture.isOpen ? Int32(settings.tickNanoseconds / 1_000_000) : 200
                    let woke = try state.capture.wait(timeoutMilliseconds: timeout, wakeup: wakeup)
                    takeStreams(state)
                    // Woken by a stream input: the capture may be readable too (its read is nonblocking).
                    if woke == .readable || (woke == .woken && state.capture.isOpen) { try read(state) }
                } catch {
                    interfaceLost(state, error: error, now: clock.wallNanoseconds())
                }
            } else {
                waitAndReadAll(state)
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
        for side in state.sides {
            _ = side.plan.leaveAll()
            side.sockets = [:]
            side.capture.close()
        }
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

    /// One poll over the main capture, the other interfaces' and the wake-up; reads whichever
    /// has packets. A failing interface is closed and retried alone (the others keep going).
    private func waitAndReadAll(_ state: LoopState) {
        let captures = [state.capture] + state.sides.map(\.capture)
        let outcome: LiveCapture.MultiWait
        do {
            outcome = try LiveCapture.wait(captures, timeoutMilliseconds: Int32(settings.tickNanoseconds / 1_000_000), wakeup: wakeup)
        } catch {
            interfaceLost(state, error: error, now: clock.wallNanoseconds())
            return
        }
        takeStreams(state)
        switch outcome.results[0] {
        case .failure(let error):
            interfaceLost(state, error: error, now: clock.wallNanoseconds())
        case .success(let readable):
            do {
                if readable || (outcome.woken && state.capture.isOpen) { try read(state) }
            } catch {
                interfaceLost(state, error: error, now: clock.wallNanoseconds())
            }
        }
        for (side, result) in zip(state.sides, outcome.results.dropFirst()) {
            switch result {
            case .failure(let error):
                lost(side, error: error, now: clock.wallNanoseconds())
            case .success(let readable):
                guard readable || (outcome.woken && side.capture.isOpen) else { continue }
                do {
                    try read(side, state)
                } catch {
                    lost(side, error: error, now: clock.wallNanoseconds())
                }
            }
        }
    }

    // MARK: Other interfaces (second paths on another NIC or VLAN)

    private func open(_ side: SideCapture, _ state: LoopState, now: Int64) {
        do {
            let link = try side.capture.open()
            side.link = LinkLayer(linkType: link.rawValue)
            if side.link == nil {
                side.capture.close()
                throw CaptureError("decode link type \(link.name) on \(side.interface)", code: -1, message: "unsupported link-layer type")
            }
            let reopened = side.capture.openCount > 1
            side.lastError = nil
            events.record(GatewayEvent(.captureUp, "capturing on \(side.interface) (second paths)" + (reopened ? " again" : ""),
                                       fields: [("INTERFACE", side.interface)]))
            if reopened {
                // The kernel dropped the memberships with the link: join everything again.
                _ = side.plan.leaveAll()
                side.sockets = [:]
            }
            refreshEndpoints(side, state)
        } catch {
            side.nextOpenAttempt = now + settings.retryNanoseconds
            let text = "\(error)"
            if side.lastError != text {
                side.lastError = text
                events.record(GatewayEvent(.captureDown, "capture on \(side.interface) (second paths) unavailable: \(text)",
                                           fields: [("INTERFACE", side.interface)]))
            }
        }
    }

    private func lost(_ side: SideCapture, error: CaptureError, now: Int64) {
        side.capture.close()
        side.nextOpenAttempt = now + settings.retryNanoseconds
        side.lastError = error.description
        events.record(GatewayEvent(.captureDown, "capture on \(side.interface) (second paths) lost: \(error)",
                                   fields: [("INTERFACE", side.interface)]))
    }

    private func read(_ side: SideCapture, _ state: LoopState) throws(CaptureError) {
        guard let link = side.link else { return }
        var actions: [IngestAction] = []
        let name = side.interface
        try side.capture.readAvailable { packet in
            state.pipeline.ingest(frame: packet.bytes[...], link: link, timestampNanoseconds: packet.timestampNanoseconds, interface: name,
                                  into: &actions)
        }
        deliver(actions, state)
    }

    /// Joins and leaves the second paths' groups on `side` and installs its filter.
    private func refreshEndpoints(_ side: SideCapture, _ state: LoopState) {
        let endpoints = state.pipeline.endpoints(onInterface: side.interface)
        for action in side.plan.update(desired: endpoints) {
            let membership = action.membership
            switch action {
            case .leave:
                side.sockets[membership] = nil
            case .join, .rejoin:
                do {
                    side.sockets[membership] = try MulticastMembership(group: membership.group.description,
                                                                       source: membership.source?.description, interface: side.interface)
                } catch {
                    side.plan.joinFailed(membership)
                    side.sockets[membership] = nil
                    state.failedJoins += 1
                    events.record(GatewayEvent(.captureDown, "cannot join \(membership) on \(side.interface): \(error)",
                                               fields: [("GROUP", membership.group.description), ("INTERFACE", side.interface)]))
                }
            }
        }
        let filter = CaptureFilter(endpoints: endpoints)
        do {
            try side.capture.setFilter(filter.expression)
        } catch {
            events.record(GatewayEvent(.captureDown, "capture filter on \(side.interface) refused: \(error)",
                                       fields: [("INTERFACE", side.interface), ("FILTER", filter.expression)]))
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
            state.pipeline.ingest(stream: chunk.bytes[...], channelID: chunk.channelID, path: chunk.path,
                                  timestampNanoseconds: chunk.timestampNanoseconds, into: &actions)
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
        for side in state.sides where side.capture.isOpen { refreshEndpoints(side, state) }
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
    /// The other interfaces second paths arrive on, one capture each (docs/ingest.md, "Two paths").
    let sides: [SideCapture]

    init(settings: LiveIngest.Settings) {
        pipeline = IngestPipeline(configuration: settings.configuration)
        capture = LiveCapture(interface: settings.interface, filter: CaptureFilter.nothing, options: settings.captureOptions)
        silence = SilenceWatch(silenceNanoseconds: settings.silenceNanoseconds)
        sides = pipeline.otherInterfaces.filter { $0 != settings.interface }.map {
            SideCapture(interface: $0, options: settings.captureOptions)
        }
    }
}

/// A capture on another interface for second paths only: its own filter and memberships, opened
/// and retried like the main one, read by the same thread. No SAP, no silence re-joins there.
final class SideCapture {
    let interface: String
    let capture: LiveCapture
    var link: LinkLayer?
    var plan = MembershipPlan()
    var sockets: [GroupMembership: MulticastMembership] = [:]
    var nextOpenAttempt: Int64 = 0
    var lastError: String?

    init(interface: String, options: PacketCapture.LiveOptions) {
        self.interface = interface
        capture = LiveCapture(interface: interface, filter: CaptureFilter.nothing, options: options)
    }
}
