import GrandstandCore
import HTTPServer
#if canImport(Glibc)
import Glibc
#endif

/// A fan answer from a file on disk (a recording, a cached item, a file channel's file): 200 with
/// the file as a `sendfile` body and a validator from its size and time, never read into memory.
/// Byte ranges (206/416), If-None-Match (304) and If-Range are applied by `FanResponse.finish`
/// on the way out, from the same body (docs/serving.md, "Files on disk").
public enum DiskFileAnswer {
    /// `path` as `contentType`; `download` adds `Content-Disposition: attachment` with that name.
    /// A missing file is 404; any other failure to open it 500 with the reason.
    public static func response(path: String, contentType: String, entityTag: String? = nil, download: String? = nil,
                                cacheControl: String = "public, max-age=60") -> HTTPResponse {
        let file: DiskFile
        do {
            file = try DiskFile(path: path)
        } catch {
            return error.errno == ENOENT ? .text(404, "not found") : .text(500, "cannot open the file: \(error)")
        }
        var headers: [(name: String, value: String)] = [("Content-Type", contentType), ("ETag", entityTag ?? file.entityTag),
                                                        ("Cache-Control", cacheControl)]
        if let download { headers.append(("Content-Disposition", "attachment; filename=\"\(download)\"")) }
        var response = HTTPResponse(status: 200, headers: headers)
        response.file = FileBody(file, 0..<file.size)
        return response
    }
}
