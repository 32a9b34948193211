import GrandstandCore
import GrandstandRuntime
import Synchronization

/// Hands a video channel's completed segments (the TS exactly as published) to recorders. The
/// channel calls `offer` under its own lock; with no subscriber it costs one check. Each
/// subscriber has its own bounded queue, drained by the recorder's thread (no disk I/O here).
public final class SegmentTap: Sendable {
    public struct Segment: Sendable {
        public let bytes: [UInt8]
        public let durationSeconds: Double
        /// Not continuous with the previous segment offered (a gap, a restart of the stream).
        public let discontinuity: Bool
    }

    /// Segments kept per subscriber between drains (≈ 2 minutes at 2 s segments).
    static let queueLimit = 64
    private struct State {
        var queues: [String: [Segment]] = [:]
        var afterGap = false
    }
    private let state = Mutex(State())

    public func subscribe(_ key: String) { state.withLock { $0.queues[key] = [] } }
    public func unsubscribe(_ key: String) { state.withLock { $0.queues[key] = nil } }
    public func take(_ key: String) -> [Segment] {
        state.withLock { state in defer { if state.queues[key] != nil { state.queues[key] = [] } }; return state.queues[key] ?? [] }
    }

    /// Called by VideoChannel with the segments the packager just completed.
    func offer(_ sequences: [Int], from window: MediaWindow) {
        state.withLock { state in
            guard !state.queues.isEmpty else { return }
            for sequence in sequences {
                guard let stored = window.segments.last(where: { $0.mediaSequence == sequence }) else { continue }
                if stored.isGap { state.afterGap = true; continue }
                let segment = Segment(bytes: stored.bytes.array, durationSeconds: MediaClock.seconds(ticks: stored.durationTicks),
                                      discontinuity: state.afterGap || stored.discontinuity != nil)
                state.afterGap = false
                for key in state.queues.keys where state.queues[key, default: []].count < Self.queueLimit { state.queues[key]?.append(segment) }
            }
        }
    }
}
