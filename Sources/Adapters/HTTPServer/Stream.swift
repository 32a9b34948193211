import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A response body written over time from any thread: Server-Sent Events, a log follow. The
/// handler makes one, hands it to a publisher, and answers `HTTPResponse.stream(_:)`. Memory is
/// bounded per client: past `Limits` the oldest whole chunks are dropped (and counted), so a
/// client that reads slowly loses old events instead of growing the queue.
///
/// Contract: `send` one whole unit per call (an SSE event with its blank line); `send` returns
/// false once the client left or `finish` was called, and the publisher should then forget the
/// stream. The connection waits (no thread held, no polling) while the queue is empty.
public final class HTTPStream: Sendable {
    public struct Limits: Sendable {
        /// Queued bytes per client before the oldest chunks are dropped.
        public var maxQueuedBytes = 256 * 1024
        /// Queued chunks per client before the oldest are dropped.
        public var maxQueuedChunks = 256
        /// Sent when nothing else was for `heartbeatSeconds` (e.g. `": keepalive\n\n"` for SSE):
        /// keeps proxies from closing the stream and finds clients that left. nil: none.
        public var heartbeat: [UInt8]?
        public var heartbeatSeconds = 15
        public init() {}
    }

    public let limits: Limits
    private struct State {
        var queue: [[UInt8]] = []
        var head = 0          // bytes of queue[0] already pulled by the listener
        var queuedBytes = 0
        var finished = false
        var closed = false
        var suspended = false
        /// The listener's wake-up, called when something arrives after a pull found nothing.
        var waker: (@Sendable () -> Void)?
        var lastSendNanoseconds = monotonicNanoseconds()
        var dropped = 0
        var onClose: [@Sendable () -> Void] = []

        /// Calls the listener's wake-up if a pull found nothing since the last one.
        mutating func wake() {
            if suspended, let waker {
                suspended = false
                waker()
            }
        }
    }
    private let state = Mutex(State())

    public init(limits: Limits = Limits()) { self.limits = limits }

    /// Queues one whole chunk; false when the stream is closed (client gone) or finished.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        state.withLock { state in
            guard !state.closed, !state.finished else { return false }
            guard !bytes.isEmpty else { return true }
            state.queue.append(bytes)
            state.queuedBytes += bytes.count
            // Drop whole chunks, oldest first, never the one half sent.
            while state.queue.count > (state.head > 0 ? 2 : 1),
                  state.queuedBytes > limits.maxQueuedBytes || state.queue.count > limits.maxQueuedChunks {
                let victim = state.head > 0 ? 1 : 0
                state.queuedBytes -= state.queue[victim].count - (victim == 0 ? state.head : 0)
                state.queue.remove(at: victim)
                if victim == 0 { state.head = 0 }
                state.dropped += 1
            }
            state.lastSendNanoseconds = monotonicNanoseconds()
            state.wake()
            return true
        }
    }

    /// Ends the body once the queued chunks are sent.
    public func finish() {
        state.withLock { state in
            state.finished = true
            state.wake()
        }
    }

    /// True until the client leaves or the ended body was sent.
    public var isOpen: Bool { state.withLock { !$0.closed } }

    /// Chunks dropped because the client read too slowly.
    public var droppedChunks: Int { state.withLock { $0.dropped } }

    /// Bytes waiting to be written to the client (at most `maxQueuedBytes` plus one chunk).
    var queuedBytes: Int { state.withLock { $0.queuedBytes } }

    /// Runs `body` once when the stream closes (client gone, or finished and sent); at once if
    /// it already has. Runs on the listener's thread: keep it short, do not block.
    public func onClose(_ body: @escaping @Sendable () -> Void) {
        let now: Bool = state.withLock { state in
            if state.closed { return true }
            state.onClose.append(body)
            return false
        }
        if now { body() }
    }

    // MARK: Listener side

    /// `wake` runs (under the stream's lock: keep it short) when a pull found
    /// nothing and something arrived since.
    func attach(wake: @escaping @Sendable () -> Void) { state.withLock { $0.waker = wake } }

    /// Up to `max` queued bytes; empty with `ended` false means wait for the wake.
    func pull(max: Int) -> (bytes: [UInt8], ended: Bool) {
        state.withLock { state in
            var out: [UInt8] = []
            while out.count < max, !state.queue.isEmpty {
                let chunk = state.queue[0]
                let n = Swift.min(max - out.count, chunk.count - state.head)
                if state.head == 0 && n == chunk.count && out.isEmpty {
                    out = chunk
                } else {
                    out.append(contentsOf: chunk[state.head..<(state.head + n)])
                }
                state.head += n
                state.queuedBytes -= n
                if state.head == chunk.count { state.queue.removeFirst(); state.head = 0 }
            }
            if out.isEmpty && !state.finished { state.suspended = true }
            return (out, out.isEmpty && state.finished)
        }
    }

    /// The listener is done with the stream: the client left or the body ended.
    func close() {
        let callbacks: [@Sendable () -> Void] = state.withLock { state in
            state.closed = true
            state.waker = nil
            state.queue = []
            state.queuedBytes = 0
            defer { state.onClose = [] }
            return state.onClose
        }
        for callback in callbacks { callback() }
    }

    /// Heartbeat when idle; called by the listener's tick (every 250 ms).
    func tick(now: Int64) {
        guard let heartbeat = limits.heartbeat else { return }
        let due = state.withLock { state in
            !state.closed && !state.finished && now - state.lastSendNanoseconds >= Int64(limits.heartbeatSeconds) * 1_000_000_000
        }
        if due { send(heartbeat) }
    }
}

func monotonicNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

/// The open streams of one listener: heartbeats, shutdown, statistics.
final class StreamRegistry: Sendable {
    private struct State {
        var open: [ObjectIdentifier: HTTPStream] = [:]
        var droppedClosed = 0
    }
    private let state = Mutex(State())

    func add(_ stream: HTTPStream) {
        state.withLock { $0.open[ObjectIdentifier(stream)] = stream }
        stream.onClose { [weak self, weak stream] in
            guard let self, let stream else { return }
            let dropped = stream.droppedChunks
            self.state.withLock { state in
                if state.open.removeValue(forKey: ObjectIdentifier(stream)) != nil { state.droppedClosed += dropped }
            }
        }
    }

    func all() -> [HTTPStream] { state.withLock { Array($0.open.values) } }
    var count: Int { state.withLock { $0.open.count } }
    var dropped: Int { droppedClosed(plus: all().reduce(0) { $0 + $1.droppedChunks }) }
    private func droppedClosed(plus live: Int) -> Int { state.withLock { $0.droppedClosed } + live }
}
