/// Wall-clock inserts in a live channel's playlist (docs/inserts.md "Live channels"): a break is
/// spliced before the first complete segment whose EXT-X-PROGRAM-DATE-TIME is at or after its
/// time, with EXT-X-DISCONTINUITY before each insert and before the main segment that resumes.
/// Once found, that anchor is remembered so the numbering stays coherent while the window slides:
/// media sequence numbers after a break shift by its segment count, and the discontinuity
/// sequence by its discontinuities, also after the break has left the window.
/// The spliced playlist is a classic one (LL-HLS tags dropped): blocking reloads and parts
/// address the channel's own numbering, which the splice changes.
public enum LiveSplice {
    /// One break: inserts at one wall-clock time (a wallClock insert and its pods), in order.
    public struct Break: Sendable, Equatable {
        public var id: String
        public var unixSeconds: Double
        /// The inserts' cut segments, the first of each insert marked as a discontinuity.
        public var segments: [VODSegment]
        /// The insert's `playOnce` (a CMAF break is shown a fan session once, rewinds included).
        public var playOnce: Bool

        public init(id: String, unixSeconds: Double, segments: [VODSegment], playOnce: Bool = false) {
            self.id = id
            self.unixSeconds = unixSeconds
            self.segments = segments
            self.playOnce = playOnce
        }
    }

    /// Where a break was spliced, fixed when first found.
    public struct Anchor: Sendable, Equatable {
        /// The channel's media sequence number of the main segment the break plays before.
        public var mediaSequence: Int
        /// That segment had its own EXT-X-DISCONTINUITY (the break's closing one is the same).
        public var resumedHadDiscontinuity: Bool

        public init(mediaSequence: Int, resumedHadDiscontinuity: Bool) {
            self.mediaSequence = mediaSequence
            self.resumedHadDiscontinuity = resumedHadDiscontinuity
        }
    }

    /// Discontinuities a break adds: one per insert, plus one before the resumed segment unless
    /// that segment already had its own.
    static func discontinuities(_ item: Break, _ anchor: Anchor) -> Int {
        item.segments.enumerated().filter { $0.offset == 0 || $0.element.discontinuity }.count + (anchor.resumedHadDiscontinuity ? 0 : 1)
    }

    struct Block {
        var mediaSequence: Int
        var programDateTime: Double?
        var discontinuity: Bool
        /// The block's lines without DISCONTINUITY and LL-HLS tags.
        var lines: [Substring]
    }

    /// `text` (the channel's live playlist) with `breaks` spliced in; `anchors` (by break id)
    /// is read and extended. Unchanged text when no break is anchored.
    public static func splice(_ text: String, breaks: [Break], anchors: inout [String: Anchor]) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        guard lines.first == "#EXTM3U" else { return text }
        var header: [Substring] = [], blocks: [Block] = [], pending: [Substring] = [], ended = false
        var sequence: Int?, discontinuitySequence = 0, discontinuity = false, programDateTime: Double?
        for line in lines.dropFirst() {
            if line.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") { sequence = Int(line.dropFirst("#EXT-X-MEDIA-SEQUENCE:".count)); continue }
            if line.hasPrefix("#EXT-X-DISCONTINUITY-SEQUENCE:") {
                discontinuitySequence = Int(line.dropFirst("#EXT-X-DISCONTINUITY-SEQUENCE:".count)) ?? 0
                continue
            }
            if line.hasPrefix("#EXT-X-PART") || line.hasPrefix("#EXT-X-PRELOAD-HINT") || line.hasPrefix("#EXT-X-SERVER-CONTROL")
                || line.hasPrefix("#EXT-X-SKIP") { continue }
            if line == "#EXT-X-ENDLIST" { ended = true; continue }
            if line == "#EXT-X-DISCONTINUITY" { discontinuity = true; continue }
            if line.hasPrefix("#EXT-X-PROGRAM-DATE-TIME:") {
                programDateTime = CatalogDate.parse(String(line.dropFirst("#EXT-X-PROGRAM-DATE-TIME:".count)))?.seconds
                pending.append(line)
                continue
            }
            if line.hasPrefix("#EXTINF") || line.hasPrefix("#EXT-X-GAP") || line.hasPrefix("#EXT-X-BYTERANGE") || !line.hasPrefix("#") {
                pending.append(line)
                if !line.hasPrefix("#") {
                    blocks.append(Block(mediaSequence: (sequence ?? 0) + blocks.count, programDateTime: programDateTime,
                                        discontinuity: discontinuity && !blocks.isEmpty, lines: pending))
                    pending = []; discontinuity = false; programDateTime = nil
                }
                continue
            }
            if blocks.isEmpty && pending.isEmpty { header.append(line) } else { pending.append(line) }
        }
        guard let first = blocks.first else { return text }
        // Anchor the breaks not yet placed: at the first complete segment at or after their time,
        // when that time is not before the window (a break missed entirely stays unshown).
        for item in breaks where anchors[item.id] == nil && !item.segments.isEmpty {
            guard let windowStart = first.programDateTime, item.unixSeconds >= windowStart - 0.0005,
                  let block = blocks.first(where: { ($0.programDateTime ?? -.infinity) >= item.unixSeconds - 0.0005 }) else { continue }
            anchors[item.id] = Anchor(mediaSequence: block.mediaSequence, resumedHadDiscontinuity: block.discontinuity)
        }
        let placed = breaks.compactMap { item in anchors[item.id].map { (item, $0) } }
        guard !placed.isEmpty else { return text }
        func shift(before sequence: Int, including: Bool) -> (segments: Int, discontinuities: Int) {
            placed.reduce((0, 0)) { sum, entry in
                let counts = including ? entry.1.mediaSequence <= sequence : entry.1.mediaSequence < sequence
                return counts ? (sum.0 + entry.0.segments.count, sum.1 + discontinuities(entry.0, entry.1)) : sum
            }
        }
        var body: [String] = []
        var firstSequence: Int?, firstDiscontinuity = discontinuitySequence
        for block in blocks {
            let spliced = placed.filter { $0.1.mediaSequence == block.mediaSequence }.flatMap { $0.0.segments }
            if !spliced.isEmpty {
                if firstSequence == nil {
                    let before = shift(before: block.mediaSequence, including: false)
                    firstSequence = block.mediaSequence + before.segments
                    // The first insert segment's own discontinuity is folded into the sequence.
                    // The resumed segment's own discontinuity (recorded when anchored) is in the
                    // channel's sequence already.
                    let own = placed.contains { $0.1.mediaSequence == block.mediaSequence && $0.1.resumedHadDiscontinuity }
                    firstDiscontinuity = discontinuitySequence - (own ? 1 : 0) + 1 + before.discontinuities
                }
                for (index, segment) in spliced.enumerated() {
                    if segment.discontinuity || index == 0, !body.isEmpty { body.append("#EXT-X-DISCONTINUITY") }
                    body.append("#EXTINF:" + PlaylistFormat.seconds(MediaClock.ticks(seconds: segment.durationSeconds)) + ",")
                    if let range = segment.byteRange { body.append("#EXT-X-BYTERANGE:\(range.count)@\(range.lowerBound)") }
                    body.append(segment.uri)
                }
                body.append("#EXT-X-DISCONTINUITY")
            } else if firstSequence == nil {
                let before = shift(before: block.mediaSequence, including: true)
                firstSequence = block.mediaSequence + before.segments
                firstDiscontinuity = discontinuitySequence + before.discontinuities
            } else if block.discontinuity {
                body.append("#EXT-X-DISCONTINUITY")
            }
            body += block.lines.map(String.init)
        }
        let longest = placed.flatMap { $0.0.segments }.map { Int($0.durationSeconds.rounded()) }.max() ?? 0
        var out = "#EXTM3U\n"
        for line in header {
            if line.hasPrefix("#EXT-X-TARGETDURATION:"), let target = Int(line.dropFirst("#EXT-X-TARGETDURATION:".count)), longest > target {
                out += "#EXT-X-TARGETDURATION:\(longest)\n"
            } else {
                out += line + "\n"
            }
        }
        out += "#EXT-X-MEDIA-SEQUENCE:\(firstSequence ?? first.mediaSequence)\n"
        out += "#EXT-X-DISCONTINUITY-SEQUENCE:\(firstDiscontinuity)\n"
        out += body.joined(separator: "\n") + "\n"
        if ended { out += "#EXT-X-ENDLIST\n" }
        return out
    }
}
