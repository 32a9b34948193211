import GrandstandRuntime
import MediaCodec
import Synchronization

/// Runs one channel's `VideoHealthMonitor` on its own thread, off the capture thread. The
/// capture thread only copies TS into a bounded queue; when decoding falls behind and the queue
/// is full, input is left out (the monitor counts the pictures it missed as skipped) instead of
/// memory growing.
final class VideoHealthWorker: Sendable {
    private enum Item {
        case transportStream([UInt8])
        case gap
        case skip
        case finish
    }

    /// Bytes of TS the queue may hold (the worker holds one more chunk of ≤ 64 KiB while decoding).
    let capacityBytes: Int
    /// Queued TS is kept in chunks of this size.
    static let chunkBytes = 64 << 10

    private struct State {
        var queue: [Item] = []
        var queuedBytes = 0
        /// Input was left out since the last queued item: queue a `.skip` before the next.
        var skipping = false
        var stopping = false
        /// `hold()` was called: the worker takes nothing from the queue until `resume()`.
        var held = false
        /// The worker took an item and is decoding it (`waitUntilDrained` waits for it too).
        var busy = false
        var snapshot = VideoHealthCounters()
        var bytesSkipped = 0
        var peakQueuedBytes = 0

        /// Nothing queued or being decoded (or the worker is held or stopping): what
        /// `waitUntilDrained` waits for.
        var settled: Bool { !(busy || !queue.isEmpty) || held || stopping }
    }
    private let state = Mutex(State())
    /// Woken (never raised) after every change a waiter may be waiting for: input queued, held
    /// or resumed, stopping, an item decoded. The worker waits on it for input and
    /// `waitUntilDrained` for the worker; each reads the generation before it looks at the state,
    /// so a change between its look and its wait is not lost.
    private let changed = StopSignal()
    private let thread = Mutex<ServiceThread?>(nil)

    /// Starts the decoding thread (`video-health`); throws when it cannot be created.
    init(capacityBytes: Int = 1 << 20) throws(RuntimeError) {
        self.capacityBytes = capacityBytes
        try thread.withLock { (thread: inout ServiceThread?) throws(RuntimeError) in
            thread = try ServiceThread(name: "video-health") { [self] _ in run() }
        }
    }

    // MARK: Capture thread

    /// Queues a copy of `packets` (appended to the last queued chunk while that is small), or
    /// leaves it out when the queue is full.
    func submit(_ packets: ArraySlice<UInt8>) {
        let queued = state.withLock { state -> Bool in
            guard !state.stopping else { return false }
            guard state.queuedBytes + packets.count <= capacityBytes else {
                state.skipping = true
                state.bytesSkipped += packets.count
                return false
            }
            if state.skipping {
                state.queue.append(.skip)
                state.skipping = false
            }
            // Chunks never grow past their reserved size: an append beyond it would reallocate
            // the chunk at twice its size (a full queue then held twice its capacity).
            if case .transportStream(var chunk) = state.queue.last, chunk.count + packets.count <= Self.chunkBytes {
                state.queue[state.queue.count - 1] = .gap   // release the array so the append does not copy it
                chunk.append(contentsOf: packets)
                state.queue[state.queue.count - 1] = .transportStream(chunk)
            } else {
                var chunk: [UInt8] = []
                chunk.reserveCapacity(max(Self.chunkBytes, packets.count))
                chunk.append(contentsOf: packets)
                state.queue.append(.transportStream(chunk))
            }
            state.queuedBytes += packets.count
            state.peakQueuedBytes = max(state.peakQueuedBytes, state.queuedBytes)
            return true
        }
        if queued { changed.wake() }
    }

    /// Lost input (`.gap` from the ingest pipeline).
    func gap() { enqueue(.gap) }

    /// End of the channel: the monitor finishes (drains the decoder); counters stay readable.
    func finish() { enqueue(.finish) }

    private func enqueue(_ item: Item) {
        let queued = state.withLock { state -> Bool in
            guard !state.stopping else { return false }
            state.queue.append(item)
            return true
        }
        if queued { changed.wake() }
    }

    // MARK: Any thread

    /// Keeps the worker from taking queued input until `resume()`: a decoder that has fallen
    /// behind, on demand (tests fill the queue deterministically with it).
    func hold() {
        state.withLock { $0.held = true }
        changed.wake()
    }

    func resume() {
        state.withLock { $0.held = false }
        changed.wake()
    }

    /// Waits until the worker has decoded everything queued so far (or it is held or stopped):
    /// how a caller knows the counters have settled without polling them.
    func waitUntilDrained() {
        while true {
            let generation = changed.generation
            if state.withLock({ $0.settled }) { return }
            _ = changed.wait(untilMonotonic: nil, changedFrom: generation)
        }
    }

    /// Stops the thread (what is queued is dropped) and waits for it.
    func stop() {
        state.withLock { $0.stopping = true }
        changed.wake()
        thread.withLock { thread in defer { thread = nil }; return thread }?.join()
    }

    /// The counters as of the last decoded batch, plus the queue's own.
    var statistics: [(String, Int64)] {
        state.withLock { state in
            state.snapshot.statistics + [("video_health_bytes_skipped", Int64(state.bytesSkipped)),
                                         ("video_health_queue_peak_bytes", Int64(state.peakQueuedBytes))]
        }
    }

    // MARK: Worker thread

    private func run() {
        let monitor = VideoHealthMonitor()
        while let next = take() {
            switch next {
            case .transportStream(let bytes): monitor.ingest(bytes[...])
            case .gap: monitor.gap()
            case .skip: monitor.skip()
            case .finish: monitor.finish()
            }
            let counters = monitor.counters
            state.withLock { state in
                state.snapshot = counters
                state.busy = false
            }
            changed.wake()
        }
    }

    /// The next item, waiting while the queue is empty or held; nil once stopping. One item
    /// (≤ one chunk of TS) at a time: the worker holds at most one chunk beyond the queue's
    /// capacity, so a decoder falling behind costs capacity + 64 KiB, not twice the capacity
    /// (docs/performance.md, HLS memory).
    private func take() -> Item? {
        while true {
            let generation = changed.generation
            let next: Item?? = state.withLock { state in
                if state.stopping { return .some(nil) }
                guard !state.queue.isEmpty, !state.held else { return nil }
                state.busy = true
                let item = state.queue.removeFirst()
                if case .transportStream(let bytes) = item { state.queuedBytes -= bytes.count }
                return .some(item)
            }
            if let next { return next }
            _ = changed.wait(untilMonotonic: nil, changedFrom: generation)
        }
    }
}
