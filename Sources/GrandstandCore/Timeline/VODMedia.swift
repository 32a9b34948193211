/// A finished piece of media as a list of segments: a recording (byte ranges of one `.ts` file)
/// or a VOD item's playlist (one URI per segment). Timelines cut and stitch these (Timeline.swift).
public struct VODSegment: Sendable, Equatable {
    public var uri: String
    public var durationSeconds: Double
    /// `EXT-X-BYTERANGE` within `uri`, nil for a whole file.
    public var byteRange: Range<Int>?
    /// The segment does not continue the previous one (`EXT-X-DISCONTINUITY` before it).
    public var discontinuity: Bool

    public init(uri: String, durationSeconds: Double, byteRange: Range<Int>? = nil, discontinuity: Bool = false) {
        self.uri = uri
        self.durationSeconds = durationSeconds
        self.byteRange = byteRange
        self.discontinuity = discontinuity
    }
}

/// Renders and reads RFC 8216 VOD media playlists.
public enum VODPlaylist {
    /// A complete VOD playlist (`EXT-X-PLAYLIST-TYPE:VOD`, `EXT-X-ENDLIST`); version 4 when a
    /// segment is a byte range. `EXT-X-TARGETDURATION` is the longest segment rounded (§4.3.3.1).
    public static func render(_ segments: [VODSegment]) -> String {
        let target = segments.map { Int($0.durationSeconds.rounded()) }.max() ?? 1
        var out = "#EXTM3U\n#EXT-X-VERSION:\(segments.contains { $0.byteRange != nil } ? 4 : 3)\n"
        out += "#EXT-X-TARGETDURATION:\(max(1, target))\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-MEDIA-SEQUENCE:0\n"
        for (index, segment) in segments.enumerated() {
            if segment.discontinuity && index > 0 { out += "#EXT-X-DISCONTINUITY\n" }
            out += "#EXTINF:\(PlaylistFormat.seconds(MediaClock.ticks(seconds: segment.durationSeconds))),\n"
            if let range = segment.byteRange { out += "#EXT-X-BYTERANGE:\(range.count)@\(range.lowerBound)\n" }
            out += segment.uri + "\n"
        }
        return out + "#EXT-X-ENDLIST\n"
    }

    /// The segments of a media playlist's text (EXTINF, BYTERANGE, DISCONTINUITY); nil when it is
    /// not a media playlist. Relative URIs are kept as written.
    public static func parse(_ text: String) -> [VODSegment]? {
        let lines = text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).map { $0.trimmingSpaces }
        guard lines.first == "#EXTM3U" else { return nil }
        var segments: [VODSegment] = []
        var duration: Double?, range: Range<Int>?, discontinuity = false, nextOffset: [String: Int] = [:]
        var byteRangeText: Substring?
        for line in lines.dropFirst() where !line.isEmpty {
            if line.hasPrefix("#EXTINF:") {
                duration = Double(line.dropFirst("#EXTINF:".count).prefix { $0 != "," })
                guard duration != nil else { return nil }
            } else if line.hasPrefix("#EXT-X-BYTERANGE:") {
                byteRangeText = line.dropFirst("#EXT-X-BYTERANGE:".count)
            } else if line == "#EXT-X-DISCONTINUITY" {
                discontinuity = true
            } else if !line.hasPrefix("#") {
                guard let seconds = duration else { return nil }
                let uri = String(line)
                range = nil
                if let spec = byteRangeText {
                    let parts = spec.split(separator: "@")
                    guard let length = Int(parts[0]), length >= 0 else { return nil }
                    let offset = parts.count > 1 ? Int(parts[1]) : nextOffset[uri]
                    guard let start = offset, start >= 0 else { return nil }
                    range = start..<start + length
                    nextOffset[uri] = start + length
                }
                segments.append(VODSegment(uri: uri, durationSeconds: seconds, byteRange: range, discontinuity: discontinuity))
                duration = nil; byteRangeText = nil; discontinuity = false
            }
        }
        return segments
    }
}
