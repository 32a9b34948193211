import GrandstandRuntime
import Synchronization

/// File channels' datagrams handed from the capture thread to a thread of their own (`files`,
/// Gateway): assembling a large object (a 230 MiB update bundle: Reed-Solomon decoding of each
/// block read back from its spool file, then its MD5 and the move into place) takes seconds of
/// CPU and disk, which on the capture thread would stall every live channel and overflow the
/// kernel's capture ring (docs/files.md "Large files"). Bounded by bytes; a full queue drops the
/// datagram, counted per channel (`dropped_queue_full` in the channel's stats), as a full ring
/// would drop it, and the carousel's next round brings it again.
public final class FileDeliveryQueue: Sendable {
    public struct Datagram: Sendable {
        public var channelID: String
        public var payload: [UInt8]
        public var timestampNanoseconds: Int64

        public init(channelID: String, payload: [UInt8], timestampNanoseconds: Int64) {
            self.channelID = channelID
            self.payload = payload
            self.timestampNanoseconds = timestampNanoseconds
        }
    }

    /// What `put` did with a datagram.
    public enum Placement: Equatable, Sendable {
        case queued
        /// The queue is full: dropped (and counted).
        case dropped
        /// No thread is draining the queue: the caller delivers it itself.
        case notRunning
    }

    /// 32 MiB queued (twice that at most while a batch is delivered): about 13 s of a 20 Mbit/s
    /// carousel, longer than a bundle's completion takes on the slowest box we test (TCG).
    public static let defaultLimitBytes = 32 << 20

    private struct State {
        var items: [Datagram] = []
        var bytes = 0
        var dropped: [String: Int] = [:]
        /// The draining thread's stop signal (woken when work arrives); nil while none runs.
        var signal: StopSignal?
    }

    private let state = Mutex(State())
    private let limitBytes: Int

    public init(limitBytes: Int = FileDeliveryQueue.defaultLimitBytes) {
        self.limitBytes = limitBytes
    }

    /// Queues a datagram for the draining thread (any thread).
    public func put(_ datagram: Datagram) -> Placement { put([datagram]) }

    /// Queues one capture read's datagrams under one lock, waking the draining thread at most
    /// once: a wake per datagram cost the receiving box a futex round trip per packet
    /// (docs/performance.md, "FLUTE: receive cost per packet"). `.dropped`: some did not fit.
    public func put(_ datagrams: [Datagram]) -> Placement {
        let (placement, wake) = state.withLock { state -> (Placement, StopSignal?) in
            guard let signal = state.signal else { return (.notRunning, nil) }
            let wasEmpty = state.items.isEmpty
            var placement = Placement.queued
            for datagram in datagrams {
                guard state.bytes + datagram.payload.count <= limitBytes else {
                    state.dropped[datagram.channelID, default: 0] += 1
                    placement = .dropped
                    continue
                }
                state.items.append(datagram)
                state.bytes += datagram.payload.count
            }
            return (placement, wasEmpty && !state.items.isEmpty ? signal : nil)
        }
        wake?.wake()
        return placement
    }

    /// Datagrams of channel `id` dropped because the queue was full.
    public func dropped(_ id: String) -> Int { state.withLock { $0.dropped[id] ?? 0 } }

    /// Bytes waiting now.
    public var queuedBytes: Int { state.withLock { $0.bytes } }

    /// Accepts datagrams from now on for the thread that will drain with `stop` (call before
    /// starting it, so nothing put meanwhile is delivered on the caller's thread).
    public func attach(_ stop: StopSignal) {
        state.withLock { $0.signal = stop }
    }

    /// The draining thread's body: hands every queued datagram to `deliver`, oldest first, until
    /// `stop` is raised (what is still queued then is dropped: the gateway is stopping).
    public func drain(_ stop: StopSignal, deliver: (Datagram) -> Void) {
        attach(stop)
        defer { state.withLock { $0 = State(dropped: $0.dropped) } }
        while !stop.isRaised {
            let generation = stop.generation
            let batch = state.withLock { state -> [Datagram] in
                defer { state.items = []; state.bytes = 0 }
                return state.items
            }
            if batch.isEmpty {
                if stop.wait(untilMonotonic: nil, changedFrom: generation) { break }
                continue
            }
            for datagram in batch where !stop.isRaised { deliver(datagram) }
        }
    }
}
