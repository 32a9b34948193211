/// A CMAF channel's LL-HLS playlist with its live breaks (docs/inserts.md "Live channels on
/// CMAF"). A break *replaces* the channel's segments from its anchor (a segment none of whose
/// parts existed when the break was anchored) up to its resume segment: their URIs and parts
/// point at `break/ID/…` (the insert's samples re-timed onto the same spans, `BreakMedia`),
/// `EXT-X-DISCONTINUITY` and `EXT-X-MAP` switch to the insert's header before the anchor and
/// back to the channel's before the resume segment (RFC 8216bis §4.4.4.5, §4.4.2.3), and an
/// `EXT-X-DATERANGE` (§4.4.5.1) dates the break at its first segment so a player knows what it
/// showed (`X-PLAY-ONCE`). Numbering, parts, preload hints and blocking reloads are the
/// channel's own, unchanged.
public enum LiveBreakPlaylist {
    /// One anchored break, as its playlist rewriting needs it.
    public struct Placed: Sendable, Equatable {
        public var id: String
        /// The first segment the break replaces.
        public var anchor: Int
        /// The first segment after it, once known (the segment before it reached the break's end).
        public var resume: Int?
        /// The insert's length (the break's `EXT-X-DATERANGE` DURATION).
        public var seconds: Double
        /// Shown once per fan session: a session that saw it rewinds to the channel's own media.
        public var playOnce: Bool

        public init(id: String, anchor: Int, resume: Int? = nil, seconds: Double = 0, playOnce: Bool = false) {
            self.id = id
            self.anchor = anchor
            self.resume = resume
            self.seconds = seconds
            self.playOnce = playOnce
        }

        public func covers(_ sequence: Int) -> Bool { sequence >= anchor && (resume.map { sequence < $0 } ?? true) }
        public var initURI: String { "break/\(id)/init.mp4" }
        public func uri(_ name: Substring) -> String { "break/\(id)/\(name)" }
    }

    /// What a break part holds: `nil` when unknown (not published yet).
    public typealias Describe = (_ placed: Placed, _ sequence: Int, _ part: Int) -> (empty: Bool, independent: Bool)?

    /// `text` (the channel's CMAF live playlist) with `breaks` in place.
    public static func rewrite(_ text: String, breaks: [Placed], describe: Describe) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        guard lines.first == "#EXTM3U", !breaks.isEmpty else { return text }
        var out: [String] = [], sequence = 0, first = 0, inSegment = false, channelMap: String?
        var segmentLines: [Substring] = []
        /// The break the previous listed segment belonged to (nil: the channel's media).
        var previous: Placed?? = .none
        func flush() {
            defer { segmentLines = []; inSegment = false; sequence += 1 }
            let placed = breaks.first { $0.covers(sequence) }
            var own = false
            var body: [String] = []
            for line in segmentLines {
                if line == "#EXT-X-DISCONTINUITY" { own = true; continue }
                if line.hasPrefix("#EXT-X-MAP:") { channelMap = String(line); continue }
                if let placed, line.hasPrefix("#EXT-X-PART:") { body.append(part(line, placed, sequence, describe)); continue }
                if let placed, !line.hasPrefix("#") { body.append(placed.uri(line)); continue }
                body.append(String(line))
            }
            let listedFirst = previous == nil
            let switching = !listedFirst && previous! != placed
            if (own || switching) && !listedFirst { out.append("#EXT-X-DISCONTINUITY") }
            if let placed {
                if listedFirst || switching { out.append("#EXT-X-MAP:URI=\"\(placed.initURI)\"") }
            } else if let channelMap, listedFirst || switching || segmentLines.contains(where: { $0.hasPrefix("#EXT-X-MAP:") }) {
                out.append(channelMap)
            }
            if let placed, sequence == placed.anchor, let date = segmentLines.first(where: { $0.hasPrefix("#EXT-X-PROGRAM-DATE-TIME:") }) {
                out.append(dateRange(placed, start: date.dropFirst("#EXT-X-PROGRAM-DATE-TIME:".count)))
            }
            out += body
            previous = .some(placed)
        }
        for line in lines {
            if line.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") {
                sequence = Int(line.dropFirst("#EXT-X-MEDIA-SEQUENCE:".count)) ?? 0
                first = sequence
                out.append(String(line))
                continue
            }
            if line.hasPrefix("#EXT-X-SKIP:") {
                sequence += Int(attribute(line, "SKIPPED-SEGMENTS") ?? "") ?? 0
                out.append(String(line))
                continue
            }
            if line.hasPrefix("#EXT-X-PRELOAD-HINT:") {
                if inSegment { flush() }
                out.append(hint(line, breaks))
                continue
            }
            let segmentTag = line == "#EXT-X-DISCONTINUITY" || line.hasPrefix("#EXT-X-MAP:") || line.hasPrefix("#EXT-X-PROGRAM-DATE-TIME:")
                || line.hasPrefix("#EXT-X-PART:") || line.hasPrefix("#EXTINF:") || line.hasPrefix("#EXT-X-GAP") || !line.hasPrefix("#")
            if segmentTag {
                // A segment's tags run to its URI; the open segment (parts only) to the hint or the end.
                inSegment = true
                segmentLines.append(line)
                if !line.hasPrefix("#") { flush() }
                continue
            }
            if inSegment { flush() }
            out.append(String(line))
        }
        if inSegment { flush() }
        // A switch point at or before the first listed segment counts in its discontinuity sequence
        // (the first segment's own tag is folded in, as the channel's playlist does).
        let passed = breaks.reduce(0) { sum, placed in
            sum + (placed.anchor <= first ? 1 : 0) + ((placed.resume.map { $0 <= first }) == true ? 1 : 0)
        }
        if passed > 0, let index = out.firstIndex(where: { $0.hasPrefix("#EXT-X-DISCONTINUITY-SEQUENCE:") }),
           let value = Int(out[index].dropFirst("#EXT-X-DISCONTINUITY-SEQUENCE:".count)) {
            out[index] = "#EXT-X-DISCONTINUITY-SEQUENCE:\(value + passed)"
        }
        return out.joined(separator: "\n") + "\n"
    }

    /// The break's date range (RFC 8216bis §4.4.5.1): from its first segment's program date-time,
    /// as long as the insert; `X-PLAY-ONCE` says whether a session is shown it again on rewind.
    static func dateRange(_ placed: Placed, start: Substring) -> String {
        let seconds = (placed.seconds * 1000).rounded() / 1000
        return "#EXT-X-DATERANGE:ID=\"\(placed.id)\",CLASS=\"\(dateRangeClass)\",START-DATE=\"\(start)\",DURATION=\(seconds),"
            + "X-PLAY-ONCE=\"\(placed.playOnce ? "YES" : "NO")\""
    }

    /// The `CLASS` of a break's date range (a reverse-DNS name, §4.4.5.1).
    public static let dateRangeClass = "net.grandstand.break"

    /// An EXT-X-PART of a replaced segment: its URI under the break, INDEPENDENT as the insert's
    /// samples have it, GAP=YES when the break ended before it (RFC 8216bis §4.4.4.9).
    static func part(_ line: Substring, _ placed: Placed, _ sequence: Int, _ describe: Describe) -> String {
        guard let uri = attribute(line, "URI"), let index = partIndex(uri) else { return String(line) }
        var attributes = [String]()
        if let duration = attribute(line, "DURATION") { attributes.append("DURATION=\(duration)") }
        attributes.append("URI=\"\(placed.uri(uri[...]))\"")
        let described = describe(placed, sequence, index)
        if described?.independent == true { attributes.append("INDEPENDENT=YES") }
        if described?.empty == true { attributes.append("GAP=YES") }
        return "#EXT-X-PART:" + attributes.joined(separator: ",")
    }

    /// The preload hint, under the break when its segment is covered.
    static func hint(_ line: Substring, _ breaks: [Placed]) -> String {
        guard let uri = attribute(line, "URI"), let sequence = segmentNumber(uri),
              let placed = breaks.first(where: { $0.covers(sequence) }) else { return String(line) }
        return "#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"\(placed.uri(uri[...]))\""
    }

    /// `N` of `seg<N>.<P>.m4s` or `seg<N>.m4s`.
    static func segmentNumber(_ uri: String) -> Int? {
        guard uri.hasPrefix("seg") else { return nil }
        return uri.dropFirst(3).split(separator: ".").first.flatMap { Int($0) }
    }

    static func partIndex(_ uri: String) -> Int? {
        let fields = uri.split(separator: ".")
        return fields.count == 3 ? Int(fields[1]) : nil
    }

    /// An attribute's value (quotes removed) from an `#EXT-X-…:A=B,C="D"` line.
    static func attribute(_ line: Substring, _ name: String) -> String? {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        var rest = line[line.index(after: colon)...]
        while !rest.isEmpty {
            guard let equals = rest.firstIndex(of: "=") else { return nil }
            let key = rest[..<equals]
            var value = rest[rest.index(after: equals)...]
            let end: Substring.Index
            if value.first == "\"" {
                value = value.dropFirst()
                end = value.firstIndex(of: "\"") ?? value.endIndex
                let text = String(value[..<end])
                if key == name { return text }
                rest = value[end...].dropFirst().drop { $0 == "," }
            } else {
                end = value.firstIndex(of: ",") ?? value.endIndex
                if key == name { return String(value[..<end]) }
                rest = value[end...].dropFirst()
            }
        }
        return nil
    }
}
