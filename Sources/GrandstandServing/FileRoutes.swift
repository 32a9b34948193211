import GrandstandCore
import HTTPServer
import GrandstandOperations

/// HTTP for file channels (docs/files.md): the fan listener's `/files/ID/PATH` (the stored file;
/// ranges, ETag and 304 through `FanResponse.finish`) and the management distribution tables
/// `/api/v1/files` and `/api/v1/files/ID`. Paths are looked up in the sink, never mapped onto
/// the file system: a name that is not a safe relative path is a 404.
public enum FileRoutes {
    static func fan(_ request: HTTPRequest, gateway: Gateway) -> HTTPResponse {
        let rest = request.path.dropFirst("/files/".count)
        guard let slash = rest.firstIndex(of: "/") else { return .text(404, "not found") }
        let id = String(rest[..<slash]), requested = String(rest[rest.index(after: slash)...])
        guard !id.isEmpty, let path = ContentLocation.relativePath(requested), path == requested,
              let sink = gateway.files.sink, let file = sink.lookup(channelID: id, path: path) else {
            return .text(404, "no such file")
        }
        let answer = DiskFileAnswer.response(path: file.localPath, contentType: file.contentType ?? MediaType.forPath(path),
                                             entityTag: file.etag, cacheControl: "no-cache")
        return answer.status == 404 ? .text(404, "no such file") : answer
    }

    public static func management(_ gateway: Gateway) -> [HTTPRoute] {
        [
            HTTPRoute("GET", "/api/v1/files") { _ in .json(gateway.files.tables.encoded + "\n") },
            HTTPRoute("GET", "/api/v1/files/{id}") { request in
                guard let id = request.parameters["id"], let table = gateway.files.table(id) else {
                    return .text(404, "no such file channel")
                }
                return .json(table.encoded + "\n")
            },
        ]
    }
}
