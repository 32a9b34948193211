/// URL-safe channel ids from channel names: lowercase ASCII letters and digits, every other run
/// of characters one `-`, no leading or trailing `-`, at most 48 characters; "channel" when
/// nothing is left. Non-ASCII letters are not transliterated (the core has no Unicode tables).
public enum ChannelSlug {
    public static let maximumLength = 48

    public static func make(_ name: String) -> String {
        var slug = ""
        var pendingDash = false
        for scalar in name.unicodeScalars {
            let value = scalar.value
            let keep: Unicode.Scalar?
            switch value {
            case 0x30...0x39, 0x61...0x7A: keep = scalar
            case 0x41...0x5A: keep = Unicode.Scalar(value + 0x20)
            default: keep = nil
            }
            guard let keep else { pendingDash = true; continue }
            if pendingDash && !slug.isEmpty { slug += "-" }
            pendingDash = false
            guard slug.unicodeScalars.count < maximumLength else { break }
            slug.unicodeScalars.append(keep)
        }
        while slug.hasSuffix("-") { slug.removeLast() }
        return slug.isEmpty ? "channel" : slug
    }

    /// `make(name)`, or with `-2`, `-3`, … appended until it is not in `taken`.
    public static func unique(_ name: String, taken: Set<String>) -> String {
        let base = make(name)
        guard taken.contains(base) else { return base }
        var n = 2
        while taken.contains("\(base)-\(n)") { n += 1 }
        return "\(base)-\(n)"
    }
}
