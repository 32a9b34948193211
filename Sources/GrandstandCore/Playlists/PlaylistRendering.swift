/// Media playlist rendering per RFC 8216bis (draft-pantos-hls-rfc8216bis). The live playlist
/// carries the LL-HLS tags (EXT-X-PART, -PART-INF, -PRELOAD-HINT, -SERVER-CONTROL), which
/// classic clients ignore as unknown tags, so one URL serves both.
extension MediaWindow {
    /// Which playlist to render.
    public struct PlaylistOptions: Sendable, Equatable {
        /// LL-HLS tags (parts, preload hint, blocking reload).
        public var lowLatency: Bool
        /// List only from this media sequence number on (rewind playlists).
        public var firstSequence: Int?
        /// EXT-X-START:TIME-OFFSET (seconds from the playlist start, PRECISE=YES).
        public var startOffsetTicks: Int64?
        /// A Playlist Delta Update (`_HLS_skip=YES`): segments older than the Skip Boundary
        /// become one EXT-X-SKIP (RFC 8216bis §4.4.5.2, §6.2.5.1).
        public var delta: Bool

        public init(lowLatency: Bool = true, firstSequence: Int? = nil, startOffsetTicks: Int64? = nil, delta: Bool = false) {
            self.lowLatency = lowLatency
            self.firstSequence = firstSequence
            self.startOffsetTicks = startOffsetTicks
            self.delta = delta
        }
    }

    /// CAN-SKIP-UNTIL, the Skip Boundary: six target durations, the §4.4.3.8 minimum.
    public var skipBoundaryTicks: Int64 { 6 * Int64(segmenter.targetDurationSeconds) * MediaClock.ticksPerSecond }

    /// How many of `listed`'s first segments a delta update leaves out: those that end at least
    /// the Skip Boundary before the playlist's end (complete segments only).
    func skippedCount(_ listed: ArraySlice<StoredSegment>) -> Int {
        let end = listed.filter(\.complete).reduce(Int64(0)) { $0 + $1.durationTicks }
        var start: Int64 = 0, count = 0
        for segment in listed where segment.complete {
            start += segment.durationTicks
            guard end - start >= skipBoundaryTicks else { break }
            count += 1
        }
        return count
    }

    /// EXT-X-VERSION: 6 (floating-point EXTINF needs 3; no feature here needs more — EXT-X-GAP
    /// and the LL-HLS tags carry no version requirement in RFC 8216bis §8).
    public static let playlistVersion = 6

    /// PART-HOLD-BACK: three part targets (RFC 8216bis §4.4.3.8 asks at least 2, recommends 3).
    public var partHoldBackTicks: Int64 { 3 * segmenter.partTargetTicks }
    /// HOLD-BACK: three target durations (the §4.4.3.8 minimum).
    public var holdBackTicks: Int64 { 3 * Int64(segmenter.targetDurationSeconds) * MediaClock.ticksPerSecond }

    /// Parts are listed for segments that end within three target durations of the live edge
    /// (§4.4.4.9 lets older ones go) and for the open segment.
    func listsParts(of index: Int, in listed: ArraySlice<StoredSegment>) -> Bool {
        guard !segments[index].isGap else { return false }
        var after: Int64 = 0
        for later in listed where later.mediaSequence > segments[index].mediaSequence { after += later.durationTicks }
        return after <= 3 * Int64(segmenter.targetDurationSeconds) * MediaClock.ticksPerSecond
    }

    public func playlist(_ options: PlaylistOptions = PlaylistOptions()) -> String {
        let first = options.firstSequence ?? segments.first?.mediaSequence ?? nextMediaSequence
        let listedRange = segments.indices.filter { segments[$0].mediaSequence >= first && (options.lowLatency || segments[$0].complete) }
        let listed = listedRange.first.flatMap { first in listedRange.last.map { segments[first...$0] } } ?? [][...]
        let skipped = options.lowLatency && options.delta ? skippedCount(listed) : 0
        // EXT-X-SKIP needs protocol version 9 (RFC 8216bis §8); only delta updates carry it.
        var out = "#EXTM3U\n#EXT-X-VERSION:\(skipped > 0 ? 9 : Self.playlistVersion)\n"
        out += "#EXT-X-TARGETDURATION:\(segmenter.targetDurationSeconds)\n"
        if options.lowLatency {
            out += "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,"
                + "CAN-SKIP-UNTIL=" + PlaylistFormat.seconds(skipBoundaryTicks, decimals: 1) + ",PART-HOLD-BACK="
                + PlaylistFormat.seconds(partHoldBackTicks, decimals: 3, roundUp: true)
                + ",HOLD-BACK=" + PlaylistFormat.seconds(holdBackTicks, decimals: 3, roundUp: true) + "\n"
            out += "#EXT-X-PART-INF:PART-TARGET=" + PlaylistFormat.seconds(segmenter.partTargetTicks, roundUp: true) + "\n"
        }
        out += "#EXT-X-MEDIA-SEQUENCE:\(listed.first?.mediaSequence ?? first)\n"
        out += "#EXT-X-DISCONTINUITY-SEQUENCE:\(listed.first?.discontinuitySequence ?? discontinuitySequenceNow)\n"
        if let offset = options.startOffsetTicks {
            out += "#EXT-X-START:TIME-OFFSET=" + PlaylistFormat.seconds(offset, decimals: 3) + ",PRECISE=YES\n"
        }
        var map: Int?
        if skipped > 0 { out += "#EXT-X-SKIP:SKIPPED-SEGMENTS=\(skipped)\n" }
        for index in listed.indices.dropFirst(skipped) {
            let segment = segments[index]
            // The first listed segment's own tag is folded into DISCONTINUITY-SEQUENCE.
            if segment.discontinuity != nil && index != listed.startIndex { out += "#EXT-X-DISCONTINUITY\n" }
            // EXT-X-MAP before the first segment and wherever the header changes (§4.4.4.5).
            if let m = segment.map ?? (map == nil ? listed.lazy.compactMap(\.map).first : nil), m != map {
                out += "#EXT-X-MAP:URI=\"" + Self.mapName(m) + "\"\n"
                map = m
            }
            out += "#EXT-X-PROGRAM-DATE-TIME:" + PlaylistFormat.dateTime(nanoseconds: segment.programDateTimeNanoseconds) + "\n"
            if options.lowLatency && listsParts(of: index, in: listed) {
                for part in segment.parts {
                    out += "#EXT-X-PART:DURATION=" + PlaylistFormat.seconds(part.durationTicks)
                        + ",URI=\"" + partName(segment.mediaSequence, part.index) + "\""
                        + (part.independent ? ",INDEPENDENT=YES" : "") + "\n"
                }
            }
            guard segment.complete else { continue }
            out += "#EXTINF:" + PlaylistFormat.seconds(segment.durationTicks) + ",\n"
            if segment.isGap { out += "#EXT-X-GAP\n" }
            out += segmentName(segment.mediaSequence) + "\n"
        }
        if ended {
            out += "#EXT-X-ENDLIST\n"
        } else if options.lowLatency, let next = nextPart {
            out += "#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"" + partName(next.sequence, next.index) + "\"\n"
        }
        return out
    }

    /// The discontinuity sequence number a segment starting now would get (before any discontinuity).
    var discontinuitySequenceNow: Int { segments.last?.discontinuitySequence ?? 0 }

    /// The part the segmenter will publish next: the open segment's next, or the next segment's
    /// first. Once the open segment holds its target duration, the segmenter cuts at the next
    /// keyframe, which then starts the next segment: naming the open segment's next index there
    /// would hint a part that never exists (a 404 and a reload for the client). A stream whose
    /// keyframes come later than the target continues the open segment instead; a request held
    /// for the next segment's first part then waits for it (bounded like any blocked request).
    public var nextPart: (sequence: Int, index: Int)? {
        guard !ended else { return nil }
        if let open = openSegment, open.parts.isEmpty || open.durationTicks < segmenter.targetDurationTicks {
            return (open.mediaSequence, open.parts.count)
        }
        return (nextMediaSequence, 0)
    }

    /// The newest published part, nil before the first.
    public var lastPart: (sequence: Int, index: Int)? {
        for segment in segments.reversed() where !segment.parts.isEmpty {
            return (segment.mediaSequence, segment.parts.count - 1)
        }
        return nil
    }
}
