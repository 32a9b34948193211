import GrandstandCore
import GrandstandOperations
import GrandstandRuntime
import SRT
import Synchronization

/// One SRT channel's receiver on its own service thread (`srt-<channel>`): connects as a caller
/// (reconnecting with capped backoff) or listens and accepts one peer at a time
/// (draft-sharabayko-srt, "Caller-Listener Handshake"), and hands every received message to the
/// ingest thread's pipeline through the inbox, keyed by channel id. Connection changes are
/// journald events; libsrt's counters (`srt_bstats`) land in the channel's stats.
final class SRTInput: Sendable {
    /// What the stats show for this input (keys in `fields`).
    struct Status: Sendable {
        var connected = false
        var connections = 0
        var connectFailures = 0
        var refusedHandshakes = 0
        var refusedPeers = 0
        var inboxDropped = 0
        /// Times a connected peer sent nothing for `stallNanoseconds` (its SRT link alive).
        var stalls = 0
        var current = SRTStatistics()
        /// Counters of the connections that ended, added to the current one's.
        var ended = SRTStatistics()

        var fields: [(String, Double)] {
            let counts: [(String, Int)] = [
                ("srt_connected_current", connected ? 1 : 0), ("srt_connections", connections), ("srt_connect_failures", connectFailures),
                ("srt_handshakes_refused", refusedHandshakes), ("srt_peers_refused", refusedPeers), ("srt_inbox_dropped", inboxDropped),
                ("srt_stalls", stalls),
                ("srt_packets_received", Int(ended.packetsReceived + current.packetsReceived)),
                ("srt_packets_lost", ended.packetsLost + current.packetsLost),
                ("srt_packets_dropped", ended.packetsDropped + current.packetsDropped),
                ("srt_packets_retransmitted", ended.packetsRetransmitted + current.packetsRetransmitted),
                ("srt_packets_undecrypted", ended.packetsUndecrypted + current.packetsUndecrypted),
                ("srt_latency_ms", current.latencyMilliseconds),
            ]
            var fields = counts.map { ($0.0, Double($0.1)) }
            fields.append(("srt_rtt_ms", current.rttMilliseconds))
            fields.append(("srt_receive_mbps", current.receiveMbps))
            return fields
        }
    }

    let channelID: String
    /// `.secondary` when this input is the second path of a multicast channel.
    let path: SeamlessMerger.Path
    let source: SRTSource
    private let inbox: StreamInbox
    private let events: EventLog
    private let clock: any Clock
    private let shared = Mutex(Status())
    private let thread = Mutex<ServiceThread?>(nil)
    /// How often a connected input refreshes its counters.
    private static let statisticsNanoseconds: Int64 = 1_000_000_000
    /// A connected peer silent this long has stalled (counted once per silence).
    static let stallNanoseconds: Int64 = 2_000_000_000
    /// The slice every wait is cut into, so a stop is seen within it.
    private static let sliceMilliseconds: Int64 = 100

    init(channelID: String, path: SeamlessMerger.Path = .primary, source: SRTSource, inbox: StreamInbox, events: EventLog,
         clock: any Clock) {
        self.channelID = channelID
        self.path = path
        self.source = source
        self.inbox = inbox
        self.events = events
        self.clock = clock
    }

    var status: Status { shared.withLock { $0 } }

    func start() throws(RuntimeError) {
        try thread.withLock { (thread: inout ServiceThread?) throws(RuntimeError) in
            thread = try ServiceThread(name: "srt-\(channelID)") { [self] stop in run(stop) }
        }
    }

    /// Stops within one wait slice (100 ms), closing the connection.
    func stop() {
        guard let running = thread.withLock({ thread in defer { thread = nil }; return thread }) else { return }
        running.stop()
    }

    private var settings: SRTSettings {
        SRTSettings(latencyMilliseconds: Int32(source.latencyMilliseconds), passphrase: source.passphrase,
                    keyLength: Int32(source.keyLength))
    }

    private func run(_ stop: StopSignal) {
        switch source.mode {
        case .caller: runCaller(stop)
        case .listener: runListener(stop)
        }
    }

    // MARK: Caller

    private func runCaller(_ stop: StopSignal) {
        var backoff = ReconnectBackoff()
        var lastProblem: String?
        while !stop.isRaised {
            do {
                let socket = try SRTSocket(settings: settings)
                try socket.connect(try SRTAddress.resolve(host: source.host, port: source.port))
                while try !socket.waitConnected(timeoutMilliseconds: Self.sliceMilliseconds) {
                    if stop.isRaised { return }
                }
                backoff.connected()
                lastProblem = nil
                receive(on: socket, peer: source.url, stop: stop)
            } catch {
                shared.withLock { $0.connectFailures += 1 }
                let refused = error.rejectReason.map { $0.isWrongPassphrase || $0.isEncryptionMismatch } ?? false
                if refused { shared.withLock { $0.refusedHandshakes += 1 } }
                let text = "\(error)"
                if text != lastProblem {
                    lastProblem = text
                    record(refused ? .srtRefused : .srtDisconnected, "cannot connect to \(source.url): \(text)", peer: source.url,
                           reason: error.rejectReason.map { "\($0)" } ?? error.message)
                }
            }
            if clock.wait(nanoseconds: backoff.failed(), or: stop) { return }
        }
    }

    // MARK: Listener

    private func runListener(_ stop: StopSignal) {
        var backoff = ReconnectBackoff()
        var rejections = SRTLibrary.RejectionLog()
        var lastProblem: String?
        while !stop.isRaised {
            do {
                let listener = try SRTSocket(settings: settings)
                try listener.listen(try SRTAddress.resolve(host: source.host, port: source.port))
                lastProblem = nil
                backoff.connected()
                while !stop.isRaised {
                    noteRefusals(listener, &rejections)
                    guard try listener.wait(timeoutMilliseconds: Self.sliceMilliseconds), let (socket, peer) = try listener.accept() else {
                        continue
                    }
                    listener.busy = true
                    receive(on: socket, peer: peer.description, stop: stop) { self.noteRefusals(listener, &rejections) }
                    listener.busy = false
                }
                return
            } catch {
                let text = "\(error)"
                if text != lastProblem {
                    lastProblem = text
                    record(.srtDisconnected, "cannot listen on \(source.url): \(text)", peer: "", reason: error.message)
                }
            }
            if clock.wait(nanoseconds: backoff.failed(), or: stop) { return }
        }
    }

    /// Callers libsrt refused for this listener (a wrong passphrase is only told in its log) and
    /// callers the gate turned away while the listener had its peer.
    private func noteRefusals(_ listener: SRTSocket, _ log: inout SRTLibrary.RejectionLog) {
        for line in log.next() where line.socket.map(listener.sawCaller) == true && line.text.contains("newConnection") {
            shared.withLock { $0.refusedHandshakes += 1 }
            let reason = line.text.components(separatedBy: "rejected due to: ").last ?? line.text
            record(.srtRefused, "refused a caller on \(source.url): \(reason)", peer: "", reason: reason)
        }
        let refused = listener.refusedPeers
        shared.withLock { $0.refusedPeers = refused }
    }

    // MARK: A connection

    /// Receives until the connection ends or `stop`; every message goes to the inbox.
    private func receive(on socket: SRTSocket, peer: String, stop: StopSignal, each: () -> Void = {}) {
        shared.withLock {
            $0.connected = true
            $0.connections += 1
            $0.current = SRTStatistics()
        }
        record(.srtConnected, "SRT \(source.mode.rawValue) connected with \(peer) for channel \(channelID)", peer: peer, reason: "")
        var buffer = [UInt8](repeating: 0, count: SRTSocket.maximumPayload)
        var nextStatistics = clock.monotonicNanoseconds()
        var lastMessage = clock.monotonicNanoseconds()
        var stalled = false
        var ending = "stopping"
        do {
            while !stop.isRaised {
                if try socket.wait(timeoutMilliseconds: Self.sliceMilliseconds) {
                    while let count = try socket.receive(into: &buffer) {
                        lastMessage = clock.monotonicNanoseconds()
                        stalled = false
                        let chunk = StreamInbox.Chunk(channelID: channelID, path: path, bytes: Array(buffer[..<count]),
                                                      timestampNanoseconds: clock.wallNanoseconds())
                        if !inbox.put(chunk) { shared.withLock { $0.inboxDropped += 1 } }
                    }
                }
                if !stalled, clock.monotonicNanoseconds() - lastMessage >= Self.stallNanoseconds {
                    stalled = true
                    shared.withLock { $0.stalls += 1 }
                }
                if clock.monotonicNanoseconds() >= nextStatistics {
                    nextStatistics = clock.monotonicNanoseconds() + Self.statisticsNanoseconds
                    refreshStatistics(socket)
                    each()
                }
            }
        } catch {
            ending = "\(error)"
        }
        refreshStatistics(socket)
        shared.withLock {
            $0.connected = false
            $0.ended.packetsReceived += $0.current.packetsReceived
            $0.ended.packetsLost += $0.current.packetsLost
            $0.ended.packetsDropped += $0.current.packetsDropped
            $0.ended.packetsRetransmitted += $0.current.packetsRetransmitted
            $0.ended.packetsUndecrypted += $0.current.packetsUndecrypted
            $0.current = SRTStatistics()
        }
        record(.srtDisconnected, "SRT connection with \(peer) for channel \(channelID) ended: \(ending)", peer: peer, reason: ending)
    }

    private func refreshStatistics(_ socket: SRTSocket) {
        guard let statistics = try? socket.statistics() else { return }
        shared.withLock { $0.current = statistics }
    }

    private func record(_ kind: GatewayEvent.Kind, _ message: String, peer: String, reason: String) {
        var fields = [("CHANNEL", channelID), ("SRT_URL", source.url), ("SRT_MODE", source.mode.rawValue)]
        if path == .secondary { fields.append(("PATH", path.description)) }
        if !peer.isEmpty { fields.append(("SRT_PEER", peer)) }
        if !reason.isEmpty { fields.append(("REASON", reason)) }
        events.record(GatewayEvent(kind, message, fields: fields))
    }
}
