/// Turns an FDT Content-Location (a URI or a path, RFC 6726 §3.4.2) into the relative path a file
/// is stored and served under: scheme and authority dropped, `.` and empty segments removed;
/// nil when a segment is `..`, starts with `.` (hidden and temporary names are the store's), or
/// holds a control character or backslash — so no name can escape the channel's folder.
public enum ContentLocation {
    public static func relativePath(_ location: String) -> String? {
        var text = Substring(location)
        if let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://"),
           text[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }) {
            text = text[text.index(colon, offsetBy: 3)...]
            guard let slash = text.firstIndex(of: "/") else { return nil }
            text = text[text.index(after: slash)...]
        }
        if let query = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = text[..<query] }
        var segments: [Substring] = []
        for segment in text.split(separator: "/", omittingEmptySubsequences: true) {
            if segment == "." { continue }
            guard !segment.hasPrefix("."), segment.utf8.count <= 255,
                  !segment.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || $0 == "\\" }) else { return nil }
            segments.append(segment)
        }
        guard !segments.isEmpty, segments.count <= 16 else { return nil }
        return segments.joined(separator: "/")
    }
}
