import GrandstandCore
import HTTPServer

/// The management listener's routes; every request needs `Authorization: Bearer TOKEN`.
struct ManagementRoutes: Sendable {
    let token: String
    let status: StatusReport
    let gateway: Gateway
    /// The live ingest's picture (channels, stats), nil when the daemon runs without capture.
    let ingest: (@Sendable () -> IngestSnapshot)?
    /// Routes other files add (HealthRoutes: LEDs, debug faults); nil answer = not theirs.
    var extra: (@Sendable (HTTPRequest) -> HTTPResponse?)? = nil

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        guard let authorization = request.header("Authorization"), constantTimeEquals(authorization, "Bearer \(token)") else {
            return HTTPResponse(status: 401, headers: [("WWW-Authenticate", "Bearer realm=\"grandstand\"")],
                                body: Array("management token required\n".utf8))
        }
        if let response = extra?(request) { return response }
        switch (request.method, request.path) {
        case ("GET", "/api/v1/status"), ("GET", "/api/v1/health"): return .json(statusJSON().encoded + "\n")
        case ("GET", "/api/v1/version"): return .json(BuildInfo.current.json.encoded + "\n")
        case ("GET", "/api/v1/channels"): return .json(ChannelCatalog.json(gateway).encoded + "\n")
        case ("GET", "/api/v1/stats"): return .json(statsJSON().encoded + "\n")
        default: return .text(404, "not found")
        }
    }

    private func statusJSON() -> JSONValue {
        guard case .object(var members) = status.json(), let snapshot = ingest?() else { return status.json() }
        members.append(("ingest", .object([
            ("interface", .string(snapshot.interface)), ("capturing", .bool(snapshot.capturing)),
            ("lastError", snapshot.lastError.map(JSONValue.string) ?? .null),
            ("channels", .number(Double(snapshot.channels.count))),
        ])))
        return .object(members)
    }

    /// The ingest stats (total and per channel) with each video channel's HLS counters merged in.
    private func statsJSON() -> JSONValue {
        var stats = ingest?().stats ?? IngestStats(total: [:], channels: [:])
        for channel in gateway.videoChannels {
            for (key, value) in channel.summary.statistics {
                stats.channels[channel.id, default: [:]][key] = .number(Double(value))
            }
        }
        return (try? JSONParser.parse(Array(stats.encoded.utf8))) ?? .null
    }

    /// Compares without an early exit, so response timing does not reveal the token's prefix.
    private func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<min(x.count, y.count) { difference |= x[i] ^ y[i] }
        return difference == 0
    }
}
