/// Where a rewind playlist starts (StadiumVision semantics, docs/hls.md):
/// `rewindForDuration(s)` → `.offset(-s)`, `seekAbsolute(date)` → `.programDateTime`,
/// `playLive` → the live playlist.
public enum RewindPosition: Sendable, Equatable {
    /// Seconds relative to the live edge (negative = back in time; ≥ 0 = the live edge).
    case offset(seconds: Double)
    /// An absolute wall-clock moment (UTC nanoseconds), matched against EXT-X-PROGRAM-DATE-TIME.
    case programDateTime(nanoseconds: Int64)

    /// From `rewind.m3u8`'s query: `offset=-20` (seconds) or `at=<Unix milliseconds>`.
    public static func parse(query: Substring) -> RewindPosition? {
        for pair in query.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            guard kv.count == 2, kv[1].count <= 20 else { continue }
            if kv[0] == "offset", let seconds = Double(kv[1]), seconds.isFinite { return .offset(seconds: seconds) }
            if kv[0] == "at", let millis = Int64(kv[1]), abs(millis) < Int64.max / 1_000_000 {
                return .programDateTime(nanoseconds: millis * 1_000_000)
            }
        }
        return nil
    }
}

extension MediaWindow {
    /// Where a rewind playlist starts: the first listed segment and the precise start inside it.
    public struct RewindStart: Sendable, Equatable {
        public var firstSequence: Int
        /// EXT-X-START:TIME-OFFSET from the first listed segment's start.
        public var offsetTicks: Int64
        /// How far behind the live edge playback starts (after clamping to the window).
        public var behindLiveTicks: Int64
    }

    /// Resolves `position` against the window, clamped to it: further back than the window
    /// starts at its oldest segment; closer to the live edge than HOLD-BACK starts at HOLD-BACK.
    /// Nil when no segment is complete yet.
    public func rewindStart(_ position: RewindPosition) -> RewindStart? {
        let complete = completeSegments
        guard let newest = complete.last else { return nil }
        let total = complete.reduce(Int64(0)) { $0 + $1.durationTicks }
        var back: Int64
        switch position {
        case .offset(let seconds):
            back = seconds >= 0 ? 0 : MediaClock.ticks(seconds: min(-seconds, 1e7))
        case .programDateTime(let at):
            let liveEnd = newest.programDateTimeNanoseconds + MediaClock.nanoseconds(ticks: newest.durationTicks)
            // `at` comes from the query (any Int64 ms): clamp far-back moments like offsets (1e7 s)
            // before the tick arithmetic, which would overflow (found by the `query` fuzz target).
            let behind = liveEnd.subtractingReportingOverflow(at)
            back = at >= liveEnd ? 0
                : behind.overflow || behind.partialValue > 10_000_000 * 1_000_000_000 ? MediaClock.ticks(seconds: 1e7)
                : behind.partialValue * 9 / 100_000
        }
        // RFC 8216bis §4.4.2.2: a live playlist's start SHOULD NOT be within three target
        // durations (HOLD-BACK) of its end, so "now" and small offsets start there.
        back = min(max(back, holdBackTicks), total)
        // Walk back from the live edge to the segment containing (live edge − back).
        var fromEnd: Int64 = 0
        for segment in complete.reversed() {
            fromEnd += segment.durationTicks
            if fromEnd >= back {
                let offset = max(0, min(fromEnd - back, segment.durationTicks))
                return RewindStart(firstSequence: segment.mediaSequence, offsetTicks: offset,
                                   behindLiveTicks: fromEnd - offset)
            }
        }
        let oldest = complete.first!
        return RewindStart(firstSequence: oldest.mediaSequence, offsetTicks: 0, behindLiveTicks: total)
    }

    /// `rewind.m3u8`: a classic live playlist (no LL-HLS tags) whose first segment holds the
    /// requested moment, with EXT-X-START pointing at it precisely. Each reload keeps the same
    /// distance behind the live edge. Before the first segment completes: the live playlist.
    public func rewindPlaylist(_ position: RewindPosition) -> String {
        guard let start = rewindStart(position) else { return playlist(PlaylistOptions(lowLatency: false)) }
        return playlist(PlaylistOptions(lowLatency: false, firstSequence: start.firstSequence,
                                        startOffsetTicks: start.offsetTicks))
    }
}
