import GrandstandCore

/// The origin's answer for one content id (docs/cache.md "Origin"):
/// `{"id":…, "category":…, "title"?, "type"?, "thumbnail"?, "files":[{"url","path"?,"size"?,"sha256"?,"contentType"?}],
/// "hls":"…/master.m3u8"}`.
/// Relative URLs (files and hls) resolve against `cache.origin.mediaBaseURL`, else the metadata URL.
struct OriginMetadata {
    struct File {
        var url: String
        var path: String
        var size: Int?
        var sha256: String?
        var contentType: String?
    }

    static let fileName = "metadata.json"
    var url: String
    var category: String?
    /// `title` and `type` as the origin gives them (trimmed, at most 200 and 32 characters).
    var title: String?
    var type: String?
    var files: [File] = []
    var hls: String?
    /// `thumbnail`: an image URL, stored as `thumbnail/NAME` (ThumbnailOnly fetches only this).
    var thumbnail: File?

    var totalBytes: Int? {
        guard hls == nil, files.allSatisfy({ $0.size != nil }) else { return nil }
        return files.reduce(0) { $0 + ($1.size ?? 0) }
    }

    /// The item's type: the metadata's `type`, else `hls` for an HLS item, `video` or `audio` when
    /// its files are (by content type or extension), else `file`.
    var itemType: String {
        if let type { return type }
        if hls != nil { return "hls" }
        let kinds = files.map { file -> String in
            let media = file.contentType ?? MediaType.forPath(file.path)
            return media.hasPrefix("video/") ? "video" : media.hasPrefix("audio/") ? "audio" : "file"
        }
        return kinds.contains("video") ? "video" : kinds.contains("audio") ? "audio" : "file"
    }

    struct Invalid: Error, CustomStringConvertible { let description: String }

    static func parse(_ bytes: [UInt8], url: String) throws -> OriginMetadata {
        let document = try JSONParser.parse(bytes)
        var metadata = OriginMetadata(url: url)
        if case .string(let category)? = document["category"] { metadata.category = category }
        if case .string(let hls)? = document["hls"] { metadata.hls = hls }
        if case .string(let title)? = document["title"], !title.isEmpty { metadata.title = String(title.prefix(200)) }
        if case .string(let type)? = document["type"] {
            let trimmed = type.lowercased().filter { $0.isLetter || $0.isNumber || $0 == "-" }
            if !trimmed.isEmpty { metadata.type = String(trimmed.prefix(32)) }
        }
        if case .string(let thumbnail)? = document["thumbnail"] {
            let name = thumbnail.split(separator: "?").first?.split(separator: "/").last.map(String.init) ?? ""
            metadata.thumbnail = File(url: thumbnail, path: "thumbnail/" + (name.isEmpty || name == ".." ? "image" : name))
        }
        if case .array(let files)? = document["files"] {
            for (index, entry) in files.enumerated() {
                guard case .string(let fileURL)? = entry["url"] else { throw Invalid(description: "$.files[\(index)].url: required string is missing") }
                var path = fileURL.split(separator: "/").last.map(String.init) ?? "file\(index)"
                if case .string(let given)? = entry["path"] { path = given }
                guard !path.isEmpty, !path.hasPrefix("/"), !path.split(separator: "/").contains(".."), path != fileName else {
                    throw Invalid(description: "$.files[\(index)].path: \"\(path)\" is not a plain relative path")
                }
                var file = File(url: fileURL, path: path)
                if case .number(let size)? = entry["size"] { file.size = Int(size) }
                if case .string(let sha)? = entry["sha256"] { file.sha256 = sha }
                if case .string(let type)? = entry["contentType"] { file.contentType = type }
                metadata.files.append(file)
            }
        }
        guard metadata.hls != nil || !metadata.files.isEmpty else { throw Invalid(description: "neither files nor hls") }
        return metadata
    }

    /// A content id as one URL path segment.
    static func escape(_ id: String) -> String {
        var out = ""
        for byte in id.utf8 {
            let c = Character(UnicodeScalar(byte))
            if c.isLetter && byte < 128 || c.isNumber && byte < 128 || "-._~".contains(c) { out.append(c) } else {
                out += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return out
    }
}
