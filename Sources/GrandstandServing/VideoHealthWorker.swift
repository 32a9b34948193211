#if canImport(Glibc)
import Glibc
#endif
import GrandstandRuntime
import MediaCodec

/// Runs one channel's `VideoHealthMonitor` on its own thread, off the capture thread. The
/// capture thread only copies TS into a bounded queue; when decoding falls behind and the queue
/// is full, input is left out (the monitor counts the pictures it missed as skipped) instead of
/// memory growing.
final class VideoHealthWorker: @unchecked Sendable {
    // @unchecked: `queue`, `queuedBytes`, `skipping`, `stopping`, `snapshot` and the counters
    // below are only touched with `mutex` held; `monitor` only on the worker thread.
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
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let wake = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var queue: [Item] = []
    private var queuedBytes = 0
    /// Input was left out since the last queued item: queue a `.skip` before the next.
    private var skipping = false
    private var stopping = false
    /// `hold()` was called: the worker takes nothing from the queue until `resume()`.
    private var held = false
    /// The worker took an item and is decoding it (`waitUntilDrained` waits for it too).
    private var busy = false
    private var snapshot = VideoHealthCounters()
    private var bytesSkipped = 0
    private var peakQueuedBytes = 0
    private var thread: ServiceThread?

    /// Starts the decoding thread (`video-health`); throws when it cannot be created.
    init(capacityBytes: Int = 1 << 20) throws(RuntimeError) {
        self.capacityBytes = capacityBytes
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(wake, nil)
        thread = try ServiceThread(name: "video-health") { [self] _ in run() }
    }

    deinit {
        pthread_cond_destroy(wake)
        pthread_mutex_destroy(mutex)
        wake.deallocate()
        mutex.deallocate()
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    // MARK: Capture thread

    /// Queues a copy of `packets` (appended to the last queued chunk while that is small), or
    /// leaves it out when the queue is full.
    func submit(_ packets: ArraySlice<UInt8>) {
        locked {
            guard !stopping else { return }
            guard queuedBytes + packets.count <= capacityBytes else {
                skipping = true
                bytesSkipped += packets.count
                return
            }
            if skipping {
                queue.append(.skip)
                skipping = false
            }
            // Chunks never grow past their reserved size: an append beyond it would reallocate
            // the chunk at twice its size (a full queue then held twice its capacity).
            if case .transportStream(var chunk) = queue.last, chunk.count + packets.count <= Self.chunkBytes {
                queue[queue.count - 1] = .gap   // release the array so the append does not copy it
                chunk.append(contentsOf: packets)
                queue[queue.count - 1] = .transportStream(chunk)
            } else {
                var chunk: [UInt8] = []
                chunk.reserveCapacity(max(Self.chunkBytes, packets.count))
                chunk.append(contentsOf: packets)
                queue.append(.transportStream(chunk))
            }
            queuedBytes += packets.count
            peakQueuedBytes = max(peakQueuedBytes, queuedBytes)
            pthread_cond_broadcast(wake)
        }
    }

    /// Lost input (`.gap` from the ingest pipeline).
    func gap() { enqueue(.gap) }

    /// End of the channel: the monitor finishes (drains the decoder); counters stay readable.
    func finish() { enqueue(.finish) }

    private func enqueue(_ item: Item) {
        locked {
            guard !stopping else { return }
            queue.append(item)
            pthread_cond_broadcast(wake)
        }
    }

    // MARK: Any thread

    /// Keeps the worker from taking queued input until `resume()`: a decoder that has fallen
    /// behind, on demand (tests fill the queue deterministically with it).
    func hold() { locked { held = true } }

    func resume() {
        locked {
            held = false
            pthread_cond_broadcast(wake)
        }
    }

    /// Waits until the worker has decoded everything queued so far (or it is held or stopped):
    /// how a caller knows the counters have settled without polling them. `wake` is broadcast,
    /// since this waiter and the worker share it.
    func waitUntilDrained() {
        locked {
            while (busy || !queue.isEmpty) && !held && !stopping { pthread_cond_wait(wake, mutex) }
        }
    }

    /// Stops the thread (what is queued is dropped) and waits for it.
    func stop() {
        locked {
            stopping = true
            pthread_cond_broadcast(wake)
        }
        thread?.join()
        thread = nil
    }

    /// The counters as of the last decoded batch, plus the queue's own.
    var statistics: [(String, Int64)] {
        locked {
            snapshot.statistics + [("video_health_bytes_skipped", Int64(bytesSkipped)),
                                   ("video_health_queue_peak_bytes", Int64(peakQueuedBytes))]
        }
    }

    // MARK: Worker thread

    private func run() {
        let monitor = VideoHealthMonitor()
        while true {
            // One item (≤ one chunk of TS) at a time: the worker holds at most one chunk beyond the
            // queue's capacity, so a decoder falling behind costs capacity + 64 KiB, not twice
            // the capacity (docs/performance.md, HLS memory).
            let next: Item? = locked {
                while (queue.isEmpty || held) && !stopping { pthread_cond_wait(wake, mutex) }
                if stopping { return nil }
                busy = true
                let item = queue.removeFirst()
                if case .transportStream(let bytes) = item { queuedBytes -= bytes.count }
                return item
            }
            guard let next else { return }
            switch next {
            case .transportStream(let bytes): monitor.ingest(bytes[...])
            case .gap: monitor.gap()
            case .skip: monitor.skip()
            case .finish: monitor.finish()
            }
            let counters = monitor.counters
            locked {
                snapshot = counters
                busy = false
                pthread_cond_broadcast(wake)
            }
        }
    }
}
