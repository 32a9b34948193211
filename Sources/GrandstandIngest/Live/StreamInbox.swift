import Capture
import GrandstandCore
import Synchronization

/// Where stream inputs (SRT receivers, each on its own thread) leave TS chunks for the ingest
/// thread, which owns the pipeline: a bounded queue plus the capture loop's wakeup, signalled
/// when the queue stops being empty. A full queue (the ingest thread stalled) refuses chunks;
/// the input counts them.
final class StreamInbox: Sendable {
    struct Chunk: Sendable {
        var channelID: String
        /// The channel's primary (an SRT channel), or its second path over SRT.
        var path: SeamlessMerger.Path = .primary
        var bytes: [UInt8]
        var timestampNanoseconds: Int64
    }

    /// 8 MiB: about 6 s of a 10 Mbit/s channel.
    static let limitBytes = 8 << 20

    private let queue = Mutex<(chunks: [Chunk], bytes: Int)>(([], 0))
    private let wakeup: CaptureWakeup

    init(wakeup: CaptureWakeup) { self.wakeup = wakeup }

    /// Queues a chunk; false when the queue is full (the chunk is dropped).
    func put(_ chunk: Chunk) -> Bool {
        let (accepted, wasEmpty) = queue.withLock { queue -> (Bool, Bool) in
            guard queue.bytes + chunk.bytes.count <= Self.limitBytes else { return (false, false) }
            let wasEmpty = queue.chunks.isEmpty
            queue.chunks.append(chunk)
            queue.bytes += chunk.bytes.count
            return (true, wasEmpty)
        }
        if wasEmpty { wakeup.signal() }
        return accepted
    }

    /// Everything queued, oldest first.
    func take() -> [Chunk] {
        queue.withLock { queue in
            let chunks = queue.chunks
            queue = ([], 0)
            return chunks
        }
    }
}
