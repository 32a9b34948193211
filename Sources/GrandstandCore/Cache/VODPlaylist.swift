/// A VOD HLS playlist (RFC 8216 §4), the one type for every VOD playlist of the box: as the
/// prefetcher and the `/items/ID/…m3u8` route see it — its URI lines (variants of a master,
/// segments with durations of a media playlist, EXT-X-MAP init sections), which it can rewrite
/// one by one — and, for timelines and recordings, its strict `segments` and `render` (below).
public struct VODPlaylist: Sendable, Equatable {
    public enum Kind: Sendable, Equatable { case master, media }

    /// What a URI in the playlist is (RFC 8216 §4.3.2.4–5, §4.3.4.1–5).
    public enum Role: Sendable, Equatable {
        /// A media playlist's segment (EXTINF).
        case segment
        /// A master's variant stream (EXT-X-STREAM-INF, its attributes kept).
        case variant
        /// A master's alternative rendition: audio, subtitles, closed captions with a URI (EXT-X-MEDIA).
        case rendition
        /// A master's I-frame playlist (EXT-X-I-FRAME-STREAM-INF).
        case iFrames
        /// An init section (EXT-X-MAP).
        case map
        /// A decryption key (EXT-X-KEY, EXT-X-SESSION-KEY; METHOD=NONE has none).
        case key
    }

    public struct Reference: Sendable, Equatable {
        public var uri: String
        /// Segment duration (EXTINF); nil for everything else.
        public var duration: Double?
        /// Seconds from the start of the playlist to this segment's start.
        public var start: Double
        public var role: Role = .segment
        /// The tag's attributes (variants, renditions: BANDWIDTH, RESOLUTION, AUDIO, GROUP-ID …).
        public var attributes: [String: String] = [:]

        /// Variants: the height of RESOLUTION (nil when not given).
        public var height: Int? { attributes["RESOLUTION"].flatMap { $0.split(separator: "x").last.flatMap { Int($0) } } }
        public var bandwidth: Int? { attributes["BANDWIDTH"].flatMap { Int($0) } }
        /// Whether this is a playlist (a variant, a rendition, an I-frame playlist) rather than a file.
        public var isPlaylist: Bool { role == .variant || role == .rendition || role == .iFrames }
    }

    public let kind: Kind
    public let references: [Reference]
    /// A media playlist's segments (byte ranges, discontinuities); nil for a master or when a
    /// segment is malformed (`VODPlaylist.segments(_:)`).
    public let segments: [VODSegment]?
    private let lines: [Substring]

    /// Nil when the text does not start with #EXTM3U.
    public init?(_ text: String) {
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        guard lines.first?.hasPrefix("#EXTM3U") == true else { return nil }
        var references: [Reference] = []
        var pendingDuration: Double?
        var pendingVariant: [String: String]?
        var elapsed = 0.0
        var master = false
        for line in lines {
            if line.hasPrefix("#EXT-X-STREAM-INF:") {
                master = true
                pendingVariant = Self.attributes(line)
            } else if line.hasPrefix("#EXTINF:") {
                pendingDuration = Double(line.dropFirst(8).prefix { $0 != "," }.trimmingCharacters(in: " ")) ?? 0
            } else if let role = Self.uriTags.first(where: { line.hasPrefix($0.1) })?.0, let uri = Self.attribute("URI", in: line) {
                let attributes = Self.attributes(line)
                if role == .key, attributes["METHOD"] == "NONE" { continue }
                if role == .rendition || role == .iFrames { master = true }
                references.append(Reference(uri: uri, duration: nil, start: elapsed, role: role, attributes: role == .map ? [:] : attributes))
            } else if !line.isEmpty, !line.hasPrefix("#") {
                if let variant = pendingVariant {
                    references.append(Reference(uri: String(line), duration: nil, start: elapsed, role: .variant, attributes: variant))
                } else {
                    references.append(Reference(uri: String(line), duration: pendingDuration, start: elapsed))
                    elapsed += pendingDuration ?? 0
                }
                pendingDuration = nil
                pendingVariant = nil
            }
        }
        kind = master ? .master : .media
        self.references = references
        self.lines = lines
        segments = master ? nil : Self.segments(text)
    }

    /// Tags whose URI attribute names a resource, and what it is.
    static let uriTags: [(Role, String)] = [
        (.map, "#EXT-X-MAP:"), (.rendition, "#EXT-X-MEDIA:"), (.key, "#EXT-X-KEY:"), (.key, "#EXT-X-SESSION-KEY:"),
        (.iFrames, "#EXT-X-I-FRAME-STREAM-INF:"),
    ]

    /// A master's variant streams, in playlist order.
    public var variants: [Reference] { references.filter { $0.role == .variant } }

    /// References needed to play the first `seconds` (init sections always; segments that start before it).
    public func prefix(seconds: Double) -> [Reference] {
        references.filter { $0.duration == nil || $0.start < seconds }
    }

    /// The text with each URI (segment, variant, rendition, I-frame playlist, init section, key)
    /// replaced by `map(uri)`.
    public func rewritten(_ map: (String) -> String) -> String {
        lines.map { line -> String in
            if Self.uriTags.contains(where: { line.hasPrefix($0.1) }), let uri = Self.attribute("URI", in: line) {
                return line.replacingFirst("URI=\"\(uri)\"", with: "URI=\"\(map(uri))\"")
            }
            if !line.isEmpty, !line.hasPrefix("#") { return map(String(line)) }
            return String(line)
        }.joined(separator: "\n")
    }

    /// A master keeping only the variants `keep` says yes to (with the tag before each), and the
    /// renditions of the groups they use; other lines as they are. Nil for a media playlist.
    public func master(keeping keep: (Reference) -> Bool) -> String? {
        guard kind == .master else { return nil }
        let kept = variants.filter(keep)
        let groups = Set(kept.flatMap { variant in ["AUDIO", "VIDEO", "SUBTITLES"].compactMap { variant.attributes[$0] } })
        var out: [Substring] = [], pendingTag: Substring?
        for line in lines {
            if line.hasPrefix("#EXT-X-STREAM-INF:") { pendingTag = line; continue }
            if let tag = pendingTag, !line.isEmpty, !line.hasPrefix("#") {
                pendingTag = nil
                if kept.contains(where: { $0.uri == String(line) }) { out += [tag, line] }
                continue
            }
            if line.hasPrefix("#EXT-X-MEDIA:"), Self.attribute("URI", in: line) != nil,
               let group = Self.attributes(line)["GROUP-ID"], !groups.contains(group) { continue }
            out.append(line)
        }
        return out.joined(separator: "\n")
    }

    /// A tag line's attributes (`NAME=value` or `NAME="value"`, quotes removed; §4.2).
    static func attributes(_ line: Substring) -> [String: String] {
        guard let colon = line.firstIndex(of: ":") else { return [:] }
        var out: [String: String] = [:]
        var rest = line[line.index(after: colon)...]
        while let equals = rest.firstIndex(of: "=") {
            let name = String(rest[..<equals].filter { $0 != " " })
            var value = rest[rest.index(after: equals)...]
            if value.first == "\"" {
                value = value.dropFirst()
                let end = value.firstIndex(of: "\"") ?? value.endIndex
                out[name] = String(value[..<end])
                rest = value[end...].dropFirst()
            } else {
                let end = value.firstIndex(of: ",") ?? value.endIndex
                out[name] = String(value[..<end])
                rest = value[end...]
            }
            rest = rest.drop { $0 == "," || $0 == " " }
        }
        return out
    }

    static func attribute(_ name: String, in line: Substring) -> String? {
        guard let range = line.firstRange(of: name + "=\"") else { return nil }
        let rest = line[range.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }
}

/// Rendering and strict segment reading: the media playlists timelines and recordings write
/// and read (one playlist type with the prefetcher's view above).
extension VODPlaylist {
    /// A complete VOD playlist (`EXT-X-PLAYLIST-TYPE:VOD`, `EXT-X-ENDLIST`); version 4 when a
    /// segment is a byte range. `EXT-X-TARGETDURATION` is the longest segment rounded (§4.3.3.1).
    /// `startOffset`: `EXT-X-START:TIME-OFFSET=…,PRECISE=YES` (§4.3.5.2), where play begins.
    public static func render(_ segments: [VODSegment], startOffset: Double? = nil) -> String {
        let target = segments.map { Int($0.durationSeconds.rounded()) }.max() ?? 1
        var out = "#EXTM3U\n#EXT-X-VERSION:\(segments.contains { $0.byteRange != nil } ? 4 : 3)\n"
        out += "#EXT-X-TARGETDURATION:\(max(1, target))\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-MEDIA-SEQUENCE:0\n"
        if let startOffset { out += "#EXT-X-START:TIME-OFFSET=\(PlaylistFormat.seconds(MediaClock.ticks(seconds: startOffset), decimals: 3)),PRECISE=YES\n" }
        for (index, segment) in segments.enumerated() {
            if segment.discontinuity && index > 0 { out += "#EXT-X-DISCONTINUITY\n" }
            out += "#EXTINF:\(PlaylistFormat.seconds(MediaClock.ticks(seconds: segment.durationSeconds))),\n"
            if let range = segment.byteRange { out += "#EXT-X-BYTERANGE:\(range.count)@\(range.lowerBound)\n" }
            out += segment.uri + "\n"
        }
        return out + "#EXT-X-ENDLIST\n"
    }

    /// The segments of a media playlist's text (EXTINF, BYTERANGE, DISCONTINUITY); nil when it is
    /// not a media playlist or a segment is malformed. Relative URIs are kept as written.
    public static func segments(_ text: String) -> [VODSegment]? {
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

/// URL arithmetic for origin media: resolving references and naming them inside an item.
public enum OriginURL {
    /// `reference` resolved against `base` (RFC 3986 §5.2 for the forms playlists use:
    /// absolute, absolute-path, relative with `./` and `../`). The base's query is dropped.
    /// Whether `uri` names another scheme than http(s) (`skd:`, `data:`): kept as written, never fetched.
    public static func isForeign(_ uri: String) -> Bool {
        guard let colon = uri.firstIndex(of: ":") else { return false }
        let scheme = uri[..<colon]
        guard let first = scheme.first, first.isLetter, scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) else { return false }
        return !["http", "https"].contains(scheme.lowercased())
    }

    public static func resolve(_ reference: String, against base: String) -> String {
        if reference.contains("://") { return reference }
        guard let schemeEnd = base.firstRange(of: "://") else { return reference }
        let afterScheme = base[schemeEnd.upperBound...]
        let authorityEnd = afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex
        let origin = String(base[..<authorityEnd])
        if reference.hasPrefix("/") { return origin + reference }
        var basePath = String(afterScheme[authorityEnd...].prefix { $0 != "?" && $0 != "#" })
        if let slash = basePath.lastIndex(of: "/") { basePath = String(basePath[...slash]) } else { basePath = "/" }
        let (path, query) = split(reference)
        var segments: [Substring] = basePath.split(separator: "/", omittingEmptySubsequences: true)
        for part in path.split(separator: "/", omittingEmptySubsequences: false) {
            if part == ".." { if !segments.isEmpty { segments.removeLast() } } else if part != "." && !part.isEmpty { segments.append(part) }
        }
        return origin + "/" + segments.joined(separator: "/") + query
    }

    /// The path an origin URL is stored under in an item whose root is the directory of `root`:
    /// the relative path below it, else `ext/HASH/NAME` (never `..`, never absolute).
    public static func localPath(_ url: String, root: String) -> String {
        let rootDirectory = String(root[...(root.lastIndex(of: "/") ?? root.startIndex)])
        let (path, _) = split(url)
        if path.hasPrefix(rootDirectory), path.count > rootDirectory.count {
            let relative = String(path.dropFirst(rootDirectory.count))
            if !relative.split(separator: "/").contains("..") { return relative }
        }
        let name = path.split(separator: "/").last.map(String.init) ?? "file"
        return "ext/" + SHA256.hex(Array(url.utf8)).prefix(16) + "/" + name
    }

    /// `url` with `query` (`k=v&…`) appended; unchanged when `query` is nil or empty.
    public static func appending(query: String?, to url: String) -> String {
        guard let query, !query.isEmpty else { return url }
        return url + (url.contains("?") ? "&" : "?") + query
    }

    static func split(_ reference: String) -> (String, String) {
        guard let mark = reference.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return (reference, "") }
        let query = reference[mark] == "?" ? String(reference[mark...].prefix { $0 != "#" }) : ""
        return (String(reference[..<mark]), query)
    }
}

private extension Substring {
    func trimmingCharacters(in set: Character) -> String {
        String(drop { $0 == set }.reversed().drop { $0 == set }.reversed())
    }

    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = firstRange(of: target) else { return String(self) }
        return String(self[..<range.lowerBound]) + replacement + String(self[range.upperBound...])
    }
}
