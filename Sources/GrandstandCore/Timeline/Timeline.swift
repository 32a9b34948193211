/// A VOD timeline: main content cut from clips and appended in order, with inserts (pre-roll,
/// mid-roll, post-roll, pods) stitched in at segment boundaries. Rendered per fan session so
/// play-once inserts are shown once and sticky ones every time (docs/inserts.md).
public struct Timeline: Sendable, Equatable {
    /// A piece of media with an optional rough cut. The cut is **segment-accurate**: a segment
    /// is kept when any part of it lies in `begin ..< end` (so `begin` rounds down to the start
    /// of its segment and `end` up to the end of its segment); no segment is split.
    public struct Clip: Sendable, Equatable {
        public var segments: [VODSegment]
        public var begin: Double?
        public var end: Double?

        public init(segments: [VODSegment], begin: Double? = nil, end: Double? = nil) {
            self.segments = segments
            self.begin = begin
            self.end = end
        }

        /// Where the cut lands in the source (seconds): the start of the first kept segment and the
        /// end of the last, which `begin`/`end` round out to; nil when nothing is kept. The API
        /// reports it so an operator sees the cut is at segment boundaries (no re-encoding).
        public var kept: (begin: Double, end: Double)? {
            var start = 0.0, first: Double?, last = 0.0
            for segment in segments {
                let finish = start + segment.durationSeconds
                if finish > (begin ?? -.infinity), start < (end ?? .infinity) {
                    if first == nil { first = start }
                    last = finish
                }
                start = finish
            }
            return first.map { ($0, last) }
        }

        /// The kept segments, the first marked as a discontinuity (a new source starts).
        public var cut: [VODSegment] {
            var kept: [VODSegment] = []
            var start = 0.0
            for segment in segments {
                let finish = start + segment.durationSeconds
                if finish > (begin ?? -.infinity), start < (end ?? .infinity) { kept.append(segment) }
                start = finish
            }
            if !kept.isEmpty { kept[0].discontinuity = true }
            return kept
        }
    }

    /// Where an insert plays.
    public enum Position: Sendable, Equatable {
        case preRoll
        /// At this main-content time (seconds), at the first segment boundary at or after it.
        case midRoll(seconds: Double)
        /// At a wall-clock time (Unix seconds): the main time `at - mainStartUnixSeconds`. For
        /// timelines of live recordings, whose main content started at a known time.
        case wallClock(unixSeconds: Double)
        case postRoll
        /// In the same break as another insert, right after it (a pod).
        case after(insertID: String)
    }

    public struct Insert: Sendable, Equatable {
        public var id: String
        public var clip: Clip
        public var position: Position
        /// Shown once per fan session (then left out of that session's playlists); else sticky.
        public var playOnce: Bool

        public init(id: String, clip: Clip, position: Position, playOnce: Bool = false) {
            self.id = id
            self.clip = clip
            self.position = position
            self.playOnce = playOnce
        }
    }

    public var main: [Clip]
    public var inserts: [Insert] = []
    /// The wall-clock start of the main content (for `.wallClock` inserts), when known.
    public var mainStartUnixSeconds: Double?

    public init(main: [Clip], inserts: [Insert] = [], mainStartUnixSeconds: Double? = nil) {
        self.main = main
        self.inserts = inserts
        self.mainStartUnixSeconds = mainStartUnixSeconds
    }

    /// The main content's segments (inserts excluded) and its duration.
    public var mainSegments: [VODSegment] { main.flatMap(\.cut) }
    public var mainDurationSeconds: Double { mainSegments.reduce(0) { $0 + $1.durationSeconds } }

    /// The stitched segments for a session that has already seen `seen` (play-once insert ids),
    /// and the play-once inserts this rendering shows (to add to the session).
    public func stitched(seen: Set<String> = []) -> (segments: [VODSegment], shown: [String]) {
        let main = mainSegments
        // Each break: the main-segment index it plays before (main.count = at the end).
        var breaks: [Int: [Insert]] = [:]
        var placed: [String: Int] = [:]
        var starts: [Double] = []
        var time = 0.0
        for segment in main { starts.append(time); time += segment.durationSeconds }
        func index(at seconds: Double) -> Int { starts.firstIndex { $0 >= seconds - 1e-6 } ?? main.count }
        var pending = inserts.filter { !($0.playOnce && seen.contains($0.id)) }
        // Anchored inserts first, then pods after their anchor (possibly chained), in order.
        var progress = true
        while progress && !pending.isEmpty {
            progress = false
            var rest: [Insert] = []
            for insert in pending {
                let slot: Int?
                switch insert.position {
                case .preRoll: slot = 0
                case .postRoll: slot = main.count
                case .midRoll(let seconds): slot = index(at: seconds)
                case .wallClock(let at): slot = mainStartUnixSeconds.map { index(at: at - $0) }
                case .after(let anchor): slot = placed[anchor]
                }
                guard let slot else {
                    if case .after = insert.position { rest.append(insert) }   // its anchor may come later
                    continue
                }
                if case .after(let anchor) = insert.position, var list = breaks[slot],
                   let at = list.lastIndex(where: { $0.id == anchor || podAnchor($0, is: anchor, in: list) }) {
                    list.insert(insert, at: at + 1)
                    breaks[slot] = list
                } else {
                    breaks[slot, default: []].append(insert)
                }
                placed[insert.id] = slot
                progress = true
            }
            pending = rest
        }
        var out: [VODSegment] = [], shown: [String] = []
        func appendBreak(_ slot: Int) {
            guard let list = breaks[slot] else { return }
            for insert in list {
                var cut = insert.clip.cut
                guard !cut.isEmpty else { continue }
                cut[0].discontinuity = true
                out += cut
                if insert.playOnce { shown.append(insert.id) }
            }
        }
        for (position, segment) in main.enumerated() {
            let before = out.count
            appendBreak(position)
            var segment = segment
            // Back from an insert: the main content resumes after a discontinuity.
            if out.count != before { segment.discontinuity = true }
            out.append(segment)
        }
        appendBreak(main.count)
        return (out, shown)
    }

    /// True when `insert` is a pod member chained (through other pods) after `anchor`.
    private func podAnchor(_ insert: Insert, is anchor: String, in list: [Insert]) -> Bool {
        var current = insert
        var hops = 0
        while case .after(let previous) = current.position, hops < list.count {
            if previous == anchor { return true }
            guard let next = list.first(where: { $0.id == previous }) else { return false }
            current = next
            hops += 1
        }
        return false
    }

    /// The segments of one break: insert `id` and the pods chained after it, in order, each
    /// insert's first segment marked as a discontinuity (live wall-clock breaks, LiveSplice).
    public func breakSegments(anchoredAt id: String) -> [VODSegment] {
        guard var anchor = inserts.first(where: { $0.id == id }) else { return [] }
        anchor.position = .preRoll
        let pods = inserts.filter { if case .after = $0.position { return true } else { return false } }
        let marker = VODSegment(uri: "\u{0}break-end", durationSeconds: 0)
        let probe = Timeline(main: [Clip(segments: [marker])], inserts: [anchor] + pods)
        return Array(probe.stitched().segments.prefix { $0.uri != marker.uri })
    }

    /// The session's playlist text and the play-once inserts it showed. When it starts with the
    /// main content and the first clip's `begin` fell inside a segment, `EXT-X-START` with
    /// `PRECISE=YES` (RFC 8216 §4.3.5.2) makes players start at `begin` itself, to the frame; a
    /// pre-roll shown first keeps the playlist starting at its beginning (never skipped).
    public func playlist(seen: Set<String> = []) -> (text: String, shown: [String]) {
        let (segments, shown) = stitched(seen: seen)
        var offset: Double? = nil
        if let clip = main.first, let begin = clip.begin, let kept = clip.kept, begin > kept.begin,
           let first = segments.first, first == clip.cut.first {
            offset = begin - kept.begin
        }
        return (VODPlaylist.render(segments, startOffset: offset), shown)
    }
}
