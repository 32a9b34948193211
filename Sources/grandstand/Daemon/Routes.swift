import GrandstandCore
import HTTPServer

/// The fan listener's routes. Later issues add playlists, segments, files and the fan page.
struct FanRoutes: Sendable {
    let status: StatusReport

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return HTTPResponse(status: 405, headers: [("Allow", "GET, HEAD")], body: Array("method not allowed\n".utf8))
        }
        switch request.path {
        case "/health": return .json(status.json().encoded + "\n")
        default: return .text(404, "not found")
        }
    }
}

/// The management listener's routes; every request needs `Authorization: Bearer TOKEN`.
struct ManagementRoutes: Sendable {
    let token: String
    let status: StatusReport

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        guard let authorization = request.header("Authorization"), constantTimeEquals(authorization, "Bearer \(token)") else {
            return HTTPResponse(status: 401, headers: [("WWW-Authenticate", "Bearer realm=\"grandstand\"")],
                                body: Array("management token required\n".utf8))
        }
        switch (request.method, request.path) {
        case ("GET", "/api/v1/status"), ("GET", "/api/v1/health"): return .json(status.json().encoded + "\n")
        case ("GET", "/api/v1/version"): return .json(BuildInfo.current.json.encoded + "\n")
        default: return .text(404, "not found")
        }
    }

    /// Compares without an early exit, so response timing does not reveal the token's prefix.
    private func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<min(x.count, y.count) { difference |= x[i] ^ y[i] }
        return difference == 0
    }
}
