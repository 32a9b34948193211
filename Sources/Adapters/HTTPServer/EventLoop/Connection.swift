import GrandstandRuntime
import Synchronization
import GrandstandCore
#if canImport(Glibc)
import Glibc
#endif

/// One accepted connection, touched only on the loop's thread: its reused read buffer, where
/// its current request is, and what is left to send of the current answer.
final class Connection {
    enum Phase {
        /// Waiting for (more of) a request head.
        case head
        /// Reading `remaining` body bytes of `head`'s request.
        case body(HTTP1RequestHead, remaining: Int)
        /// The handler deferred: waiting for the responder's answer.
        case waiting(EventLoopDelivery)
        /// Writing an answer.
        case sending
        /// Writing a stream's chunks as they come.
        case streaming(HTTPStream)
    }

    let id: UInt64
    let fd: Int32
    /// `address:port` for `HTTPRequest.client`; `clientKey` (address alone) for the per-client limit.
    let client: String?
    let clientKey: String
    var phase = Phase.head
    var input: ReadBuffer
    var parser: HTTP1RequestParser
    var body: [UInt8] = []
    /// The kernel may hold more to read (edge-triggered: until a short read or EAGAIN).
    var readable = false
    /// The socket may take more (until a short write or EAGAIN).
    var writable = true
    var peerClosed = false
    /// The current request: keep the connection after its answer; HTTP/1.0 or 1.1; HEAD.
    var keepAlive = true
    var minorVersion = 1
    var isHead = false
    /// The head (and a chunk frame) being sent, and a memory body after it.
    var out: [UInt8] = []
    var outOffset = 0
    var memoryBody: [UInt8] = []
    var memoryOffset = 0
    var file: (any SendFileSource)?
    var fileOffset = 0
    var fileEnd = 0
    /// Monotonic nanoseconds: when the head must have arrived, and the last progress.
    var headDeadline: Int64
    var lastActivity: Int64

    init(id: UInt64, fd: Int32, client: String?, clientKey: String, limits: HTTP1RequestParser.Limits, now: Int64, headerTimeout: Int64) {
        self.id = id
        self.fd = fd
        self.client = client
        self.clientKey = clientKey
        self.parser = HTTP1RequestParser(limits: limits)
        self.input = ReadBuffer(limit: limits.maxHeadBytes + 1024)
        self.headDeadline = now + headerTimeout
        self.lastActivity = now
    }

    deinit { input.free() }

    var hasOutput: Bool { outOffset < out.count || memoryOffset < memoryBody.count || (file != nil && fileOffset < fileEnd) }

    func clearOutput() {
        out.removeAll(keepingCapacity: true)
        outOffset = 0
        memoryBody = []
        memoryOffset = 0
        file = nil
        fileOffset = 0
        fileEnd = 0
    }
}

/// A connection's read buffer: grown on demand (4 KiB first) up to the head limit plus some
/// slack, reused for every request, never cleared byte by byte.
struct ReadBuffer {
    private(set) var storage: UnsafeMutableRawPointer?
    private(set) var capacity = 0
    private(set) var count = 0
    let limit: Int

    init(limit: Int) { self.limit = limit }

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: storage, count: count) }
    var isFull: Bool { count == limit }

    /// Room to read into, growing the storage when full and below the limit.
    mutating func space() -> UnsafeMutableRawBufferPointer {
        if count == capacity, capacity < limit {
            let grown = Swift.min(limit, Swift.max(4096, capacity * 2))
            storage = realloc(storage, grown)
            capacity = storage == nil ? 0 : grown
            if storage == nil { count = 0 }
        }
        guard let storage else { return UnsafeMutableRawBufferPointer(start: nil, count: 0) }
        return UnsafeMutableRawBufferPointer(start: storage + count, count: capacity - count)
    }

    mutating func didRead(_ n: Int) { count += n }

    /// Drops the first `n` bytes (a parsed head, body bytes), moving the rest to the front.
    mutating func consume(_ n: Int) {
        guard let storage, n > 0 else { return }
        if n < count { memmove(storage, storage + n, count - n) }
        count -= Swift.min(n, count)
    }

    mutating func free() {
        Glibc.free(storage)
        storage = nil
        capacity = 0
        count = 0
    }
}

/// The event loop's side of `HTTPResponder`: the first answer (or an immediate one) wins; a
/// deferred one goes through the loop's mailbox, which wakes the loop.
final class EventLoopDelivery: ResponseDelivery {
    let connectionID: UInt64
    private let loop: EventLoop
    private let answered = Mutex(false)

    init(connectionID: UInt64, loop: EventLoop) {
        self.connectionID = connectionID
        self.loop = loop
    }

    func deliver(_ response: HTTPResponse) {
        let first: Bool = answered.withLock { answered in
            defer { answered = true }
            return !answered
        }
        if first { loop.post(.answer(connectionID, self, response)) }
    }

    /// The handler answered at once (or the connection closed): later responds are ignored.
    func claim() { answered.withLock { $0 = true } }
}
