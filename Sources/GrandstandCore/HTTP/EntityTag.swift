/// Entity tags (RFC 9110 §8.8.3) and the conditional fields that compare them: If-None-Match
/// (§13.1.2, weak comparison → 304) and If-Range (§13.1.5, strong comparison). Pure and total.
public enum EntityTag {
    /// A strong tag `"opaque"`; characters outside etagc (§8.8.3) are replaced by `_`.
    public static func strong(_ opaque: String) -> String {
        var text = "\""
        for scalar in opaque.unicodeScalars {
            let v = scalar.value
            text.unicodeScalars.append(v == 0x21 || (0x23...0x7E).contains(v) ? scalar : "_")
        }
        return text + "\""
    }

    /// A strong tag from a body's FNV-1a hash and length (playlists, JSON, thumbnails).
    public static func forBody(_ body: [UInt8]) -> String {
        let hash = String(FNV.hash64(body), radix: 16)
        return "\"h" + hash + "-" + String(body.count, radix: 16) + "\""
    }

    /// If-None-Match: true when `field` is `*` or lists a tag weakly equal to `current`
    /// (a `W/` prefix is ignored on both sides). A malformed field matches nothing, so the
    /// request is answered in full (never a wrong 304).
    public static func noneMatchFails(_ field: String, current: String) -> Bool {
        let trimmed = field.trimmingOWS
        if trimmed == "*" { return true }
        guard let tags = list(trimmed) else { return false }
        let opaque = opaquePart(current)
        return tags.contains { opaquePart($0.tag) == opaque }
    }

    /// If-Range with an entity tag: true only when `field` is exactly the strong tag `current`.
    /// A weak tag or an HTTP-date never matches (we send no Last-Modified).
    public static func strongMatch(_ field: String, _ current: String) -> Bool {
        let trimmed = field.trimmingOWS
        guard !current.hasPrefix("W/"), let tags = list(trimmed), tags.count == 1, !tags[0].weak else { return false }
        return tags[0].tag == current
    }

    /// Parses `1#entity-tag` (comma list, OWS, empty elements allowed); nil when malformed.
    static func list(_ field: String) -> [(tag: String, weak: Bool)]? {
        var result: [(String, Bool)] = []
        var rest = Substring(field)
        while true {
            rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "," }
            if rest.isEmpty { break }
            var weak = false
            if rest.hasPrefix("W/") { weak = true; rest = rest.dropFirst(2) }
            guard rest.first == "\"" else { return nil }
            let body = rest.dropFirst()
            guard let close = body.firstIndex(of: "\"") else { return nil }
            for scalar in body[body.startIndex..<close].unicodeScalars {
                let v = scalar.value
                guard v == 0x21 || (0x23...0x7E).contains(v) || v >= 0x80 else { return nil }
            }
            result.append(((weak ? "W/" : "") + "\"" + body[body.startIndex..<close] + "\"", weak))
            rest = body[body.index(after: close)...].drop { $0 == " " || $0 == "\t" }
            guard rest.isEmpty || rest.first == "," else { return nil }
        }
        return result.isEmpty ? nil : result
    }

    private static func opaquePart(_ tag: String) -> Substring { tag.hasPrefix("W/") ? tag.dropFirst(2) : Substring(tag) }
}

extension String {
    /// Without leading and trailing spaces and tabs (HTTP's OWS).
    var trimmingOWS: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }),
              let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        return String(scalars[first...last])
    }
}
