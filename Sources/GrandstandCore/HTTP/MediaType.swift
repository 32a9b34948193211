/// The `Content-Type` of a served file named `path` when its source gave none (a FLUTE FDT
/// without `Content-Type`, a cached origin file): by extension (RFC 8216 §4 for playlists,
/// ISO/IEC 23000-19 segments as `video/mp4`), `application/octet-stream` otherwise.
public enum MediaType {
    public static func forPath(_ path: String) -> String {
        let ext = path.split(separator: "/").last?.split(separator: ".", omittingEmptySubsequences: false).dropFirst().last
            .map { $0.lowercased() } ?? ""
        switch ext {
        case "xml": return "application/xml"
        case "json": return "application/json"
        case "txt": return "text/plain; charset=utf-8"
        case "html", "htm": return "text/html; charset=utf-8"
        case "mp4", "m4v", "m4s": return "video/mp4"
        case "ts": return "video/mp2t"
        case "m3u8": return "application/vnd.apple.mpegurl"
        case "jpg", "jpeg": return "image/jpeg"
        case "png": return "image/png"
        default: return "application/octet-stream"
        }
    }
}
