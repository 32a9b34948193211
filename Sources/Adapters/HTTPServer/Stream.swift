import GrandstandRuntime
import CGSMicroHTTPD
import CGSMicroHTTPDSystem
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
/// stream. The connection stays suspended (no thread held) while the queue is empty.
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
    private var head = 0          // bytes of queue[0] already handed to libmicrohttpd
    private var queuedBytes = 0
    private var finished = false
    private var closed = false
    private var suspended = false
    private var connection: OpaquePointer?
    /// The event-loop engine's wake-up (instead of a libmicrohttpd connection to resume).
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
    /// it already has. Runs on libmicrohttpd's thread: keep it short, do not block.
    public func onClose(_ body: @escaping @Sendable () -> Void) {
        let now: Bool = lock.withLock {
            if closed { return true }
            onClose.append(body)
            return false
        }
        if now { body() }
    }

    // MARK: Adapter side (libmicrohttpd's thread)

    func attach(_ connection: OpaquePointer) { lock.withLock { self.connection = connection } }

    /// Event-loop engine: `wake` runs (under the stream's lock: keep it short) when a pull found
    /// nothing and something arrived since.
    func attach(wake: @escaping @Sendable () -> Void) { lock.withLock { waker = wake } }

    /// Event-loop engine: up to `max` queued bytes; empty with `ended` false means wait for the wake.
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

    /// Copies queued bytes into libmicrohttpd's buffer; suspends the connection when empty.
    func read(into buffer: UnsafeMutableRawPointer, max: Int) -> Int {
        lock.withLock {
            var written = 0
            while written < max, !queue.isEmpty {
                let chunk = queue[0]
                let n = Swift.min(max - written, chunk.count - head)
                chunk.withUnsafeBytes { source in
                    if n > 0, let base = source.baseAddress { (buffer + written).copyMemory(from: base + head, byteCount: n) }
                }
                written += n
                head += n
                queuedBytes -= n
                if head == chunk.count { queue.removeFirst(); head = 0 }
            }
            if written > 0 { return written }
            if finished { return Int(MHD_CONTENT_READER_END_OF_STREAM) }
            if let connection, !suspended {
                suspended = true
                MHD_suspend_connection(connection)
            }
            return 0
        }
    }

    /// libmicrohttpd dropped the response: the client left or the body ended.
    func close() {
        let callbacks: [@Sendable () -> Void] = lock.withLock {
            closed = true
            connection = nil
            waker = nil
            queue = []
            queuedBytes = 0
            defer { onClose = [] }
            return onClose
        }
        for callback in callbacks { callback() }
    }

    /// Heartbeat when idle; called by the server's tracker thread.
    func tick(now: Int64) {
        guard let heartbeat = limits.heartbeat else { return }
        let due = lock.withLock { !closed && !finished && now - lastSendNanoseconds >= Int64(limits.heartbeatSeconds) * 1_000_000_000 }
        if due { send(heartbeat) }
    }

    private func wakeLocked() {
        if suspended, let connection {
            suspended = false
            MHD_resume_connection(connection)
        } else if suspended, let waker {
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

/// MHD_ContentReaderCallback for streams: `cls` is a retained HTTPStream.
let streamReader: MHD_ContentReaderCallback = { cls, _, buffer, max in
    guard let cls, let buffer else { return Int(MHD_CONTENT_READER_END_WITH_ERROR) }
    return Unmanaged<HTTPStream>.fromOpaque(cls).takeUnretainedValue().read(into: buffer, max: max)
}

/// MHD_ContentReaderFreeCallback: the response is gone; close the stream and drop our reference.
let streamReleased: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    let stream = Unmanaged<HTTPStream>.fromOpaque(cls)
    stream.takeUnretainedValue().close()
    stream.release()
}
