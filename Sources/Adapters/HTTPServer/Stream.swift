import GrandstandRuntime
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
public final class HTTPStream: @unchecked Sendable {
    // @unchecked: every mutable field is only touched under `lock`.
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
    private let lock = Lock()
    private var queue: [[UInt8]] = []
    private var head = 0          // bytes of queue[0] already pulled by the listener
    private var queuedBytes = 0
    private var finished = false
    private var closed = false
    private var suspended = false
    /// The listener's wake-up, called when something arrives after a pull found nothing.
    private var waker: (@Sendable () -> Void)?
    private var lastSendNanoseconds = monotonicNanoseconds()
    private var dropped = 0
    private var onClose: [@Sendable () -> Void] = []

    public init(limits: Limits = Limits()) { self.limits = limits }

    /// Queues one whole chunk; false when the stream is closed (client gone) or finished.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        lock.withLock {
            guard !closed, !finished else { return false }
            guard !bytes.isEmpty else { return true }
            queue.append(bytes)
            queuedBytes += bytes.count
            // Drop whole chunks, oldest first, never the one half sent.
            while queue.count > (head > 0 ? 2 : 1), queuedBytes > limits.maxQueuedBytes || queue.count > limits.maxQueuedChunks {
                let victim = head > 0 ? 1 : 0
                queuedBytes -= queue[victim].count - (victim == 0 ? head : 0)
                queue.remove(at: victim)
                if victim == 0 { head = 0 }
                dropped += 1
            }
            lastSendNanoseconds = monotonicNanoseconds()
            wakeLocked()
            return true
        }
    }

    /// Ends the body once the queued chunks are sent.
    public func finish() {
        lock.withLock {
            finished = true
            wakeLocked()
        }
    }

    /// True until the client leaves or the ended body was sent.
    public var isOpen: Bool { lock.withLock { !closed } }

    /// Chunks dropped because the client read too slowly.
    public var droppedChunks: Int { lock.withLock { dropped } }

    /// Runs `body` once when the stream closes (client gone, or finished and sent); at once if
    /// it already has. Runs on the listener's thread: keep it short, do not block.
    public func onClose(_ body: @escaping @Sendable () -> Void) {
        let now: Bool = lock.withLock {
            if closed { return true }
            onClose.append(body)
            return false
        }
        if now { body() }
    }

    // MARK: Listener side

    /// `wake` runs (under the stream's lock: keep it short) when a pull found
    /// nothing and something arrived since.
    func attach(wake: @escaping @Sendable () -> Void) { lock.withLock { waker = wake } }

    /// Up to `max` queued bytes; empty with `ended` false means wait for the wake.
    func pull(max: Int) -> (bytes: [UInt8], ended: Bool) {
        lock.withLock {
            var out: [UInt8] = []
            while out.count < max, !queue.isEmpty {
                let chunk = queue[0]
                let n = Swift.min(max - out.count, chunk.count - head)
                if head == 0 && n == chunk.count && out.isEmpty {
                    out = chunk
                } else {
                    out.append(contentsOf: chunk[head..<(head + n)])
                }
                head += n
                queuedBytes -= n
                if head == chunk.count { queue.removeFirst(); head = 0 }
            }
            if out.isEmpty && !finished { suspended = true }
            return (out, out.isEmpty && finished)
        }
    }

    /// The listener is done with the stream: the client left or the body ended.
    func close() {
        let callbacks: [@Sendable () -> Void] = lock.withLock {
            closed = true
            waker = nil
            queue = []
            queuedBytes = 0
            defer { onClose = [] }
            return onClose
        }
        for callback in callbacks { callback() }
    }

    /// Heartbeat when idle; called by the listener's tick (every 250 ms).
    func tick(now: Int64) {
        guard let heartbeat = limits.heartbeat else { return }
        let due = lock.withLock { !closed && !finished && now - lastSendNanoseconds >= Int64(limits.heartbeatSeconds) * 1_000_000_000 }
        if due { send(heartbeat) }
    }

    private func wakeLocked() {
        if suspended, let waker {
            suspended = false
            waker()
        }
    }
}

func monotonicNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

/// The open streams of one listener: heartbeats, shutdown, statistics.
final class StreamRegistry: @unchecked Sendable {
    // @unchecked: under `lock`.
    private let lock = Lock()
    private var open: [ObjectIdentifier: HTTPStream] = [:]
    private var droppedClosed = 0

    func add(_ stream: HTTPStream) {
        lock.withLock { open[ObjectIdentifier(stream)] = stream }
        stream.onClose { [weak self, weak stream] in
            guard let self, let stream else { return }
            let dropped = stream.droppedChunks
            self.lock.withLock {
                if self.open.removeValue(forKey: ObjectIdentifier(stream)) != nil { self.droppedClosed += dropped }
            }
        }
    }

    func all() -> [HTTPStream] { lock.withLock { Array(open.values) } }
    var count: Int { lock.withLock { open.count } }
    var dropped: Int { droppedClosed(plus: all().reduce(0) { $0 + $1.droppedChunks }) }
    private func droppedClosed(plus live: Int) -> Int { lock.withLock { droppedClosed } + live }
}
