import GrandstandCore
import GrandstandOperations
import HTTPServer

/// `GET /api/v1/update` (status, progress, slots, last result) and `POST /api/v1/update`
/// `{"source":"https://…/x.raucb"|"/path/x.raucb","reboot":true}` (docs/updates.md).
struct UpdateRoutes {
    let service: UpdateService?

    var routes: [HTTPRoute] {
        [HTTPRoute("GET", "/api/v1/update") { _ in status() },
         HTTPRoute("POST", "/api/v1/update") { install($0) }]
    }

    private func status() -> HTTPResponse {
        guard let service else { return .json(Self.unavailable.encoded + "\n") }
        guard case .object(let members) = service.status.json else { return .text(500, "status") }
        return .json(JSONValue.object([("available", .bool(true))] + members).encoded + "\n")
    }

    private func install(_ request: HTTPRequest) -> HTTPResponse {
        guard let service else { return .text(503, "updates are not available on this box (no /etc/rauc/system.conf)") }
        guard let document = try? JSONParser.parse(request.body), case .string(let source)? = document["source"] else {
            return .text(400, "expected {\"source\":\"URL or absolute path of a .raucb bundle\",\"reboot\":true|false}")
        }
        guard source.hasPrefix("/") || source.hasPrefix("http://") || source.hasPrefix("https://") else {
            return .text(400, "source \(source) is neither an absolute path nor an http(s) URL")
        }
        var reboot = false
        if case .bool(let value)? = document["reboot"] { reboot = value }
        switch service.install(source, reboot: reboot) {
        case .success:
            return .json(service.status.json.encoded + "\n", status: 202)
        case .failure(.busy):
            return .text(409, "an installation is already running")
        case .failure(let refusal):
            return .text(422, refusal.description)
        }
    }

    static let unavailable = JSONValue.object([("available", .bool(false)),
                                               ("reason", .string("no /etc/rauc/system.conf: this box has no A/B slots"))])
}
