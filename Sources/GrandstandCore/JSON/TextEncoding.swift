/// Base64 (RFC 4648 §4, with padding) and RFC 3339 UTC times, for JSON lines (replay output, data-channel messages). Pure and
/// small, so the output does not depend on a Foundation version.
public enum TextEncoding {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    public static func base64(_ bytes: ArraySlice<UInt8>) -> String {
        var out: [UInt8] = []
        appendBase64(bytes, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the base64 text of `bytes` to `out` as ASCII bytes.
    public static func appendBase64(_ bytes: ArraySlice<UInt8>, to out: inout [UInt8]) {
        out.reserveCapacity(out.count + (bytes.count + 2) / 3 * 4)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let remaining = bytes.endIndex - index
            let b0 = UInt32(bytes[index])
            let b1 = remaining > 1 ? UInt32(bytes[index + 1]) : 0
            let b2 = remaining > 2 ? UInt32(bytes[index + 2]) : 0
            let group = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[Int(group >> 18 & 63)])
            out.append(alphabet[Int(group >> 12 & 63)])
            out.append(remaining > 1 ? alphabet[Int(group >> 6 & 63)] : UInt8(ascii: "="))
            out.append(remaining > 2 ? alphabet[Int(group & 63)] : UInt8(ascii: "="))
            index += min(3, remaining)
        }
    }

    /// `2023-11-14T22:13:20.000123457Z` for nanoseconds since the Unix epoch.
    public static func rfc3339(nanoseconds: Int64) -> String { RFC3339.format(nanoseconds: nanoseconds) }
}
