import GrandstandCore
import HTTPServer
import GrandstandServing
#if canImport(Glibc)
import Glibc
#endif
import GrandstandOperations

/// Recording requests. Management: `GET/POST/DELETE /api/v1/records` (start: `{"name","channel"}`,
/// delete: `?name=`), `POST /api/v1/records/stop` (`{"name"}`). Fan: `/records/NAME.ts`
/// (download, byte ranges) and `/records/NAME.m3u8` (VOD) once the recording has ended, and
/// `/records.json` listing those (the fan app's "Recordings").
struct RecordRoutes: Sendable {
    let recorder: Recorder

    var managementRoutes: [HTTPRoute] {
        [
            HTTPRoute("GET", "/api/v1/records") { _ in
                .json(recorder.listJSON.encoded + "\n")
            },
            HTTPRoute("POST", "/api/v1/records") { request in
                guard let body = try? JSONParser.parse(request.body), case .string(let name)? = body["name"],
                      case .string(let channel)? = body["channel"] else {
                    return .text(400, "expected {\"name\":\"NAME\",\"channel\":\"CHANNEL_ID\"}")
                }
                return answer(201) { () throws(RecordError) in try recorder.startRecording(name: name, channel: channel) }
            },
            HTTPRoute("POST", "/api/v1/records/stop") { request in
                guard let body = try? JSONParser.parse(request.body), case .string(let name)? = body["name"] else {
                    return .text(400, "expected {\"name\":\"NAME\"}")
                }
                return answer(200) { () throws(RecordError) in try recorder.stopRecording(name) }
            },
            HTTPRoute("DELETE", "/api/v1/records") { request in
                guard let name = request.query["name"] else { return .text(400, "DELETE /api/v1/records?name=NAME") }
                do throws(RecordError) {
                    try recorder.delete(name)
                    return HTTPResponse(status: 204, headers: [], body: [])
                } catch {
                    return Self.errorResponse(error)
                }
            },
        ]
    }

    private func answer(_ status: Int, _ body: () throws(RecordError) -> Recorder.Record) -> HTTPResponse {
        do throws(RecordError) {
            let record = try body()
            return .json(Recorder.json(record).encoded + "\n", status: status)
        } catch {
            return Self.errorResponse(error)
        }
    }

    static func errorResponse(_ error: RecordError) -> HTTPResponse {
        let status: Int
        switch error.errno {
        case EINVAL: status = 400
        case ENOENT: status = 404
        case EEXIST, EBUSY: status = 409
        case ENOSPC: status = 507
        default: status = 500
        }
        return .json(JSONValue.object([("error", .string(error.description))]).encoded + "\n", status: status)
    }

    /// `/records.json`: the recordings a fan can play or download (ended, with bytes), newest
    /// first, in the management listing's shape.
    func fanList() -> HTTPResponse {
        let served = recorder.list.filter { $0.state != .recording && $0.bytes > 0 }.reversed().map(Recorder.json)
        return FanListing.response(.object([("records", .array(Array(served)))]))
    }

    /// `/records/NAME.ts` or `/records/NAME.m3u8` (`{file}`).
    func fan(_ request: HTTPRequest) -> HTTPResponse {
        let file = request.parameters["file"] ?? ""
        let name: String, playlist: Bool
        if file.hasSuffix(".ts") { name = String(file.dropLast(3)); playlist = false }
        else if file.hasSuffix(".m3u8") { name = String(file.dropLast(5)); playlist = true }
        else { return .text(404, "not found") }
        guard RecordName.problem(name) == nil, let record = recorder.record(name) else { return .text(404, "no such recording") }
        guard record.state != .recording else { return .text(409, "recording \(name) is still running") }
        let store = recorder.store
        if playlist {
            guard let text = try? AtomicFile.read(store.playlistPath(name), limit: 16 << 20) else { return .text(404, "no playlist") }
            return HTTPResponse(status: 200, headers: [("Content-Type", "application/vnd.apple.mpegurl"), ("Cache-Control", "public, max-age=60")],
                                body: text)
        }
        return DiskFileAnswer.response(path: store.tsPath(name), contentType: "video/mp2t", download: "\(name).ts")
    }
}
