import GrandstandCore
import GrandstandRuntime
import HTTPServer
import GrandstandServing

/// Timeline and insert requests (docs/inserts.md "API"). Management: `GET/POST/DELETE
/// /api/v1/timelines` (delete: `?id=`), `GET/POST/DELETE /api/v1/inserts` (list:
/// `?timeline=` or `?channel=`; delete: `?id=`). Fan: `/timelines/ID.m3u8[?session=S]`, and the
/// live playlist of a channel with wall-clock inserts (`live(…)`).
struct TimelineRoutes: Sendable {
    let service: TimelineService

    /// Sessions are as long as a live channel's (`LiveView`).
    static let maxSessionBytes = LiveView.maxSessionBytes
    /// `Retry-After` of a timeline waiting for a URL's item (seconds).
    static let pendingRetrySeconds = 5

    var managementRoutes: [HTTPRoute] {
        [
            HTTPRoute("GET", "/api/v1/timelines") { _ in list() },
            HTTPRoute("POST", "/api/v1/timelines") { request in
                // 201 ready; 202 while a URL clip's item downloads (docs/inserts.md "Scheduling before the URL is cached").
                answer(request, status: 201) { body throws(TimelineService.Refusal) in
                    let record = try service.createTimeline(body)
                    let json = timelineJSON(record, service.current)
                    return (json, json["state"] == .string("ready") ? 201 : 202)
                }
            },
            HTTPRoute("DELETE", "/api/v1/timelines") { request in
                guard let id = request.query["id"] else { return .text(400, "DELETE /api/v1/timelines?id=TIMELINE") }
                return deleted { () throws(TimelineService.Refusal) in try service.deleteTimeline(id) }
            },
            HTTPRoute("GET", "/api/v1/inserts") { request in
                var inserts = service.current.inserts
                if let id = request.query["timeline"] { inserts.removeAll { $0.target != .timeline(id) } }
                if let id = request.query["channel"] { inserts.removeAll { $0.target != .channel(id) } }
                return .json(JSONValue.object([("inserts", .array(inserts.map { ScheduleJSON.json($0, withSegments: false) }))]).encoded + "\n")
            },
            HTTPRoute("POST", "/api/v1/inserts") { request in
                answer(request, status: 201) { body throws(TimelineService.Refusal) in
                    let insert = try service.addInsert(body)
                    return (ScheduleJSON.json(insert, withSegments: false), insert.clip.state == .pending ? 202 : 201)
                }
            },
            HTTPRoute("DELETE", "/api/v1/inserts") { request in
                guard let id = request.query["id"] else { return .text(400, "DELETE /api/v1/inserts?id=INSERT") }
                return deleted { () throws(TimelineService.Refusal) in try service.deleteInsert(id) }
            },
        ]
    }

    private func list() -> HTTPResponse {
        let schedule = service.current
        let timelines = schedule.timelines.map { timelineJSON($0, schedule) }
        return .json(JSONValue.object([
            ("timelines", .array(timelines)), ("sessions", .number(Double(service.sessionCount))),
            ("loadIssues", .array(service.loadIssues.map { .object([("path", .string($0.path.description)), ("reason", .string($0.reason))]) })),
        ]).encoded + "\n")
    }

    /// A timeline as the API shows it, with its `state` (`ready`, `pending`, `failed`), the clips
    /// `waiting` for their URL's item (JSON path, item id and the item's state) and the `errors`
    /// of failed clips.
    private func timelineJSON(_ record: TimelineRecord, _ schedule: Schedule) -> JSONValue {
        let json = ScheduleJSON.json(record, mainDuration: schedule.timeline(record.id)?.mainDurationSeconds, withSegments: false)
        guard case .object(var members) = json else { return json }
        let status = schedule.status(record.id)
        members.append(("state", .string(status.name)))
        if !status.waiting.isEmpty {
            let cache = service.cache
            members.append(("waiting", .array(status.waiting.map { waiting in
                .object([("path", .string(waiting.path)), ("item", .string(waiting.item)),
                         ("itemState", .string(cache?.item(waiting.item)?.state.rawValue ?? "unknown"))])
            })))
        }
        if !status.failed.isEmpty {
            members.append(("errors", .array(status.failed.map { .object([("path", .string($0.path.description)), ("reason", .string($0.reason))]) })))
        }
        return .object(members)
    }

    private func answer(_ request: HTTPRequest, status: Int,
                        _ body: (JSONValue) throws(TimelineService.Refusal) -> (JSONValue, Int)) -> HTTPResponse {
        guard let document = try? JSONParser.parse(request.body) else {
            return Self.refusal(TimelineService.Refusal(400, [JSONIssue(path: .root, reason: "the body is not JSON")]))
        }
        do throws(TimelineService.Refusal) {
            let (json, code) = try body(document)
            return .json(json.encoded + "\n", status: code)
        } catch {
            return Self.refusal(error)
        }
    }

    private func deleted(_ body: () throws(TimelineService.Refusal) -> Void) -> HTTPResponse {
        do throws(TimelineService.Refusal) {
            try body()
            return HTTPResponse(status: 204, headers: [], body: [])
        } catch {
            return Self.refusal(error)
        }
    }

    /// `{"error": first problem, "issues": [{"path", "reason"}, …]}`.
    static func refusal(_ refusal: TimelineService.Refusal) -> HTTPResponse {
        .json(JSONValue.object([
            ("error", .string(refusal.issues.first?.description ?? "refused")),
            ("issues", .array(refusal.issues.map { .object([("path", .string($0.path.description)), ("reason", .string($0.reason))]) })),
        ]).encoded + "\n", status: refusal.status)
    }

    // MARK: Fan

    /// `/timelines.json`: every timeline a fan can play (`{"timelines":[{id, playlist,
    /// mainDurationSeconds, clips, inserts}]}`; clip sources stay with the operator).
    func fanList() -> HTTPResponse {
        let schedule = service.current
        let timelines: [JSONValue] = schedule.timelines.map { record in
            var members: [(String, JSONValue)] = [("id", .string(record.id)), ("playlist", .string("/timelines/\(record.id).m3u8"))]
            if let seconds = schedule.timeline(record.id)?.mainDurationSeconds { members.append(("mainDurationSeconds", .number(seconds))) }
            let inserts = schedule.inserts.filter { $0.target == .timeline(record.id) }.count
            members += [("clips", .number(Double(record.clips.count))), ("inserts", .number(Double(inserts)))]
            // Waiting for a URL clip's item (its playlist answers 503 meanwhile), or failed (502).
            let status = schedule.status(record.id)
            if status.name != "ready" { members.append(("state", .string(status.name))) }
            return .object(members)
        }
        return FanListing.response(.object([("timelines", .array(timelines))]))
    }

    /// `/timelines/ID.m3u8[?session=S]` (`{file}`).
    func fan(_ request: HTTPRequest) -> HTTPResponse {
        let file = request.parameters["file"] ?? ""
        guard file.hasSuffix(".m3u8") else { return .text(404, "not found") }
        let id = String(file.dropLast(".m3u8".count))
        let session = request.query["session"]
        if let session, session.isEmpty || session.utf8.count > Self.maxSessionBytes {
            return .text(400, "session: 1 to \(Self.maxSessionBytes) bytes")
        }
        guard ScheduleJSON.idProblem(id) == nil, service.current.timelineRecord(id) != nil else { return .text(404, "no such timeline") }
        // Waiting for a URL's item: try again later; a clip that failed: the box cannot play it.
        let status = service.current.status(id)
        if !status.failed.isEmpty {
            return .text(502, "timeline \(id) failed: " + status.failed.map(\.description).joined(separator: "; "))
        }
        if !status.waiting.isEmpty {
            var answer = HTTPResponse.text(503, "timeline \(id) is waiting for " + status.waiting.map { "\($0.path) (item \($0.item))" }.joined(separator: ", "))
            answer.headers.append(("Retry-After", "\(Self.pendingRetrySeconds)"))
            answer.headers.append(("Cache-Control", "no-store"))
            return answer
        }
        guard let text = service.playlist(id, session: session, now: SystemClock().wallNanoseconds()) else {
            return .text(404, "no such timeline")
        }
        // Per session and changing with each fetch: never cached.
        return HTTPResponse(status: 200, headers: [("Content-Type", "application/vnd.apple.mpegurl"), ("Cache-Control", "no-store")],
                            body: Array(text.utf8))
    }

    /// Channel `id`'s live playlist with its wall-clock inserts spliced in, from `render` (the
    /// channel's own answer, asked without blocking). Nil — the channel answers as usual, LL-HLS
    /// blocking reloads included — until a break is anchored: before its time nothing is done,
    /// from its time on each request tries to anchor it (docs/inserts.md "Live channels").
    func live(_ id: String, render: () -> HTTPResponse?) -> HTTPResponse? {
        let state = service.liveState(id, nowNanoseconds: SystemClock().wallNanoseconds())
        guard state == .due || state == .spliced else { return nil }
        guard let plain = render(), plain.status == 200 else { return nil }
        let text = service.spliceLive(id, String(decoding: plain.body, as: UTF8.self))
        guard state == .spliced || service.liveState(id, nowNanoseconds: SystemClock().wallNanoseconds()) == .spliced else { return nil }
        return HTTPResponse(status: 200, headers: [("Content-Type", "application/vnd.apple.mpegurl"), ("Cache-Control", "no-cache")],
                            body: Array(text.utf8))
    }
}
