/// The names of CMAF resources beyond the window's own `seg<N>[.<P>].m4s`: headers
/// `init<N>.mp4`, and one track of a header or segment for DASH, `init<N>.t<T>.mp4` and
/// `seg<N>.t<T>.m4s` (docs/cmaf.md, "URLs").
public enum CMAFName {
    public static func header(_ id: Int, track: UInt32? = nil) -> String {
        "init\(id)" + (track.map { ".t\($0)" } ?? "") + ".mp4"
    }

    public static func trackSegment(_ sequence: Int, track: UInt32) -> String { "seg\(sequence).t\(track).m4s" }

    /// (header id, track?) of `init<N>[.t<T>].mp4`.
    public static func header(_ name: String) -> (Int, UInt32?)? {
        guard name.hasPrefix("init"), name.hasSuffix(".mp4") else { return nil }
        let fields = name.dropFirst(4).dropLast(4).split(separator: ".", omittingEmptySubsequences: false)
        guard let id = number(fields.first) else { return nil }
        if fields.count == 1 { return (id, nil) }
        guard fields.count == 2, fields[1].hasPrefix("t"), let track = number(fields[1].dropFirst()) else { return nil }
        return (id, UInt32(track))
    }

    /// N of a whole CMAF segment, `seg<N>.m4s` (not a part).
    public static func segment(_ name: String) -> Int? {
        guard name.hasPrefix("seg"), name.hasSuffix(".m4s") else { return nil }
        return number(name.dropFirst(3).dropLast(4))
    }

    /// (sequence, track) of `seg<N>.t<T>.m4s`.
    public static func trackSegment(_ name: String) -> (Int, UInt32)? {
        guard name.hasPrefix("seg"), name.hasSuffix(".m4s") else { return nil }
        let fields = name.dropFirst(3).dropLast(4).split(separator: ".", omittingEmptySubsequences: false)
        guard fields.count == 2, fields[1].hasPrefix("t"), let sequence = number(fields[0]),
              let track = number(fields[1].dropFirst()) else { return nil }
        return (sequence, UInt32(track))
    }

    /// 1–9 ASCII digits.
    static func number(_ text: Substring?) -> Int? {
        guard let text, (1...9).contains(text.count), text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }
}
