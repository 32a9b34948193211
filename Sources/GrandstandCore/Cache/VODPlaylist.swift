/// A VOD HLS playlist as the prefetcher and the `/items/ID/…m3u8` route see it: its URI lines
/// (variants of a master, segments with durations of a media playlist, EXT-X-MAP init
/// sections), which it can rewrite one by one (RFC 8216 §4).
public struct VODPlaylist: Sendable, Equatable {
    public enum Kind: Sendable, Equatable { case master, media }

    public struct Reference: Sendable, Equatable {
        public var uri: String
        /// Segment duration (EXTINF); nil for variants and init sections.
        public var duration: Double?
        /// Seconds from the start of the playlist to this segment's start.
        public var start: Double
    }

    public let kind: Kind
    public let references: [Reference]
    private let lines: [Substring]

    /// Nil when the text does not start with #EXTM3U.
    public init?(_ text: String) {
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        guard lines.first?.hasPrefix("#EXTM3U") == true else { return nil }
        var references: [Reference] = []
        var pendingDuration: Double?
        var elapsed = 0.0
        var master = false
        for line in lines {
            if line.hasPrefix("#EXT-X-STREAM-INF") { master = true }
            if line.hasPrefix("#EXTINF:") {
                pendingDuration = Double(line.dropFirst(8).prefix { $0 != "," }.trimmingCharacters(in: " ")) ?? 0
            } else if line.hasPrefix("#EXT-X-MAP:"), let uri = Self.attribute("URI", in: line) {
                references.append(Reference(uri: uri, duration: nil, start: elapsed))
            } else if !line.isEmpty, !line.hasPrefix("#") {
                references.append(Reference(uri: String(line), duration: pendingDuration, start: elapsed))
                elapsed += pendingDuration ?? 0
                pendingDuration = nil
            }
        }
        kind = master ? .master : .media
        self.references = references
        self.lines = lines
    }

    /// References needed to play the first `seconds` (init sections always; segments that start before it).
    public func prefix(seconds: Double) -> [Reference] {
        references.filter { $0.duration == nil || $0.start < seconds }
    }

    /// The text with each URI (segment, variant, EXT-X-MAP) replaced by `map(uri)`.
    public func rewritten(_ map: (String) -> String) -> String {
        lines.map { line -> String in
            if line.hasPrefix("#EXT-X-MAP:"), let uri = Self.attribute("URI", in: line) {
                return line.replacingFirst("URI=\"\(uri)\"", with: "URI=\"\(map(uri))\"")
            }
            if !line.isEmpty, !line.hasPrefix("#") { return map(String(line)) }
            return String(line)
        }.joined(separator: "\n")
    }

    static func attribute(_ name: String, in line: Substring) -> String? {
        guard let range = line.firstRange(of: name + "=\"") else { return nil }
        let rest = line[range.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }
}

/// URL arithmetic for origin media: resolving references and naming them inside an item.
public enum OriginURL {
    /// `reference` resolved against `base` (RFC 3986 §5.2 for the forms playlists use:
    /// absolute, absolute-path, relative with `./` and `../`). The base's query is dropped.
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
