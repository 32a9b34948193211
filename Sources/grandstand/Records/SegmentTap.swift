import GrandstandCore
import GrandstandRuntime

/// Hands a video channel's completed segments (the TS exactly as published) to recorders. The
/// channel calls `offer` under its own lock; with no subscriber it costs one check. Each
/// subscriber has its own bounded queue, drained by the recorder's thread (no disk I/O here).
final class SegmentTap: @unchecked Sendable {
    // @unchecked: `queues` only under `lock`.
    struct Segment: Sendable {
        let bytes: [UInt8]
        let durationSeconds: Double
        /// Not continuous with the previous segment offered (a gap, a restart of the stream).
        let discontinuity: Bool
    }

    /// Segments kept per subscriber between drains (≈ 2 minutes at 2 s segments).
    static let queueLimit = 64
    private let lock = Lock()
    private var queues: [String: [Segment]] = [:]
    private var afterGap = false

    func subscribe(_ key: String) { lock.withLock { queues[key] = [] } }
    func unsubscribe(_ key: String) { lock.withLock { queues[key] = nil } }
    func take(_ key: String) -> [Segment] { lock.withLock { defer { if queues[key] != nil { queues[key] = [] } }; return queues[key] ?? [] } }

    /// Called by VideoChannel with the segments the packager just completed.
    func offer(_ sequences: [Int], from window: MediaWindow) {
        lock.withLock {
            guard !queues.isEmpty else { return }
            for sequence in sequences {
                guard let stored = window.segments.last(where: { $0.mediaSequence == sequence }) else { continue }
                if stored.isGap { afterGap = true; continue }
                let segment = Segment(bytes: stored.bytes.array, durationSeconds: MediaClock.seconds(ticks: stored.durationTicks),
                                      discontinuity: afterGap || stored.discontinuity != nil)
                afterGap = false
                for key in queues.keys where queues[key, default: []].count < Self.queueLimit { queues[key]?.append(segment) }
            }
        }
    }
}
