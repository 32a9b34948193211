import GrandstandCore
import HTTPServer
import Systemd
#if canImport(Glibc)
import Glibc
#endif
import GrandstandIngest
import GrandstandOperations
import GrandstandServices
import GrandstandServing

/// The management listener's routes; every request needs `Authorization: Bearer TOKEN`
/// (docs/management.md lists them).
struct ManagementRoutes: Sendable {
    let runtime: RuntimeConfig
    let status: StatusReport
    let gateway: Gateway
    /// The live ingest's picture (channels, stats), nil when the daemon runs without capture.
    let ingest: (@Sendable () -> IngestSnapshot)?
    /// `/api/v1/logs?follow=1` streams (one thread each, bounded); stopped with the daemon.
    var followers = LogFollowers()
    /// Routes other files add (HealthRoutes, ManagementEventRoutes, CacheRoutes).
    var more: [HTTPRoute] = []
    /// Members added to `GET /api/v1/stats` (WiFiStatus: the Wi-Fi interfaces, in-venue).
    var statsExtra: (@Sendable () -> [(String, JSONValue)])? = nil
    /// Catalog, recordings and timelines (Catalog/OperatorServices.swift).
    var services: OperatorServices? = nil
    /// The A/B update state for `/metrics` (nil on a box without slots).
    var updates: UpdateService? = nil

    /// Every route; other files add theirs here with one `+ …routes` term.
    var table: [HTTPRoute] {
        coreRoutes + FileRoutes.management(gateway) + (services?.managementRoutes ?? []) + more
    }

    private var coreRoutes: [HTTPRoute] {
        [
            HTTPRoute("GET", "/api/v1/status") { _ in .json(statusJSON().encoded + "\n") },
            HTTPRoute("GET", "/api/v1/health") { _ in .json(statusJSON().encoded + "\n") },
            HTTPRoute("GET", "/api/v1/version") { _ in .json(BuildInfo.current.json.encoded + "\n") },
            HTTPRoute("GET", "/api/v1/channels") { _ in .json(ChannelCatalog.json(gateway, forOperators: true).encoded + "\n") },
            HTTPRoute("GET", "/api/v1/stats") { _ in .json(statsJSON().merging(statsExtra?() ?? []).encoded + "\n") },
            HTTPRoute("GET", "/metrics") { _ in metrics() },
            HTTPRoute("GET", "/api/v1/logs") { logs($0) },
            HTTPRoute("GET", "/api/v1/log-level") { _ in logLevelJSON() },
            HTTPRoute("PUT", "/api/v1/log-level") { setLogLevel($0) },
            HTTPRoute("GET", "/api/v1/config") { _ in config() },
            HTTPRoute("PUT", "/api/v1/config") { replaceConfig($0) },
        ]
    }

    /// The listener's handler: the token check on every request (unknown paths included), then
    /// the router, built once here (404, 405 with `Allow`, HEAD, OPTIONS: `HTTPRouter`).
    func handler() -> HTTPDeferringHandler {
        let router = HTTPRouter(table), runtime = self.runtime
        return { request, responder in
            // The token is read per request: `PUT /api/v1/config` may rotate it.
            guard let authorization = request.header("Authorization"),
                  Self.constantTimeEquals(authorization, "Bearer \(runtime.token)") else {
                return HTTPResponse(status: 401, headers: [("WWW-Authenticate", "Bearer realm=\"grandstand\"")],
                                    body: Array("management token required\n".utf8))
            }
            return router.handle(request, responder)
        }
    }

    private func statusJSON() -> JSONValue {
        guard case .object(var members) = status.json() else { return status.json() }
        members.append(("logLevel", .string(runtime.events.level.name)))
        if let snapshot = ingest?() {
            members.append(("ingest", .object([
                ("interface", .string(snapshot.interface)), ("capturing", .bool(snapshot.capturing)),
                ("lastError", snapshot.lastError.map(JSONValue.string) ?? .null),
                ("channels", .number(Double(snapshot.channels.count))),
                // Captures on other interfaces for second paths (docs/ingest.md, "Two paths").
                ("otherInterfaces", .array(snapshot.otherInterfaces.map { other in
                    .object([("interface", .string(other.name)), ("capturing", .bool(other.capturing)),
                             ("lastError", other.lastError.map(JSONValue.string) ?? .null),
                             ("memberships", .array(other.memberships.map { .string($0.description) }))])
                })),
            ])))
        }
        return .object(members)
    }

    /// The ingest stats (total and per channel) with each video channel's HLS counters merged in.
    private func statsJSON() -> JSONValue {
        gateway.stats(merging: ingest?().stats).json
    }

    /// Prometheus text: the stats as families, plus the daemon's own up/uptime/build facts.
    private func metrics() -> HTTPResponse {
        let report = status.json()
        var families = [
            MetricFamily(name: "grandstand_up", help: "1 while the daemon serves.", kind: .gauge, samples: [.init([], 1)]),
            MetricFamily(name: "grandstand_build_info", help: "The running build; always 1.", kind: .gauge,
                         samples: [.init([.init("version", status.version), .init("board", status.board ?? "")], 1)]),
        ]
        if case .number(let uptime)? = report["uptimeSeconds"] {
            families.append(MetricFamily(name: "grandstand_uptime_seconds", help: "Seconds since the daemon started.",
                                         kind: .gauge, samples: [.init([], uptime)]))
        }
        families += StatsMetrics.families(statsJSON())
        if let updates { families += UpdateMetrics.families(updates.status) }
        return HTTPResponse(status: 200, contentType: PrometheusText.contentType, body: PrometheusText.render(families))
    }

    /// `GET /api/v1/logs?…`: matching journal entries as JSON lines (docs/logging.md).
    private func logs(_ request: HTTPRequest) -> HTTPResponse {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let query: LogQuery
        switch LogQuery.parse(request.query, nowMicroseconds: UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec / 1000)) {
        case .failure(let error): return .text(400, error.description)
        case .success(let parsed): query = parsed
        }
        if query.follow { return followers.start(query, lastEventID: request.header("Last-Event-ID")) }
        do {
            let lines = try LogSearch.run(query).map { $0.json.encoded + "\n" }.joined()
            return HTTPResponse(status: 200, contentType: "application/x-ndjson", body: lines)
        } catch {
            return .text(503, "cannot read the journal: \(error)")
        }
    }

    private func logLevelJSON() -> HTTPResponse {
        .json(JSONValue.object([("level", .string(runtime.events.level.name))]).encoded + "\n")
    }

    /// `PUT /api/v1/log-level` `{"level":"debug"}`: takes effect at once, until the next reload.
    private func setLogLevel(_ request: HTTPRequest) -> HTTPResponse {
        guard let document = try? JSONParser.parse(request.body), case .string(let name)? = document["level"] else {
            return .text(400, "$.level: expected {\"level\":\"NAME\"}")
        }
        guard let level = LogLevel(name: name) else {
            return .text(400, "$.level: \"\(name)\" is not a level (\(LogLevel.allCases.map(\.name).joined(separator: ", ")))")
        }
        runtime.events.level = level
        return logLevelJSON()
    }

    private func config() -> HTTPResponse {
        switch runtime.document() {
        case .success(let document): return .json(document.encoded + "\n")
        case .failure(.noFile): return .text(404, RuntimeConfig.Rejection.noFile.description)
        case .failure(let error): return .text(500, error.description)
        }
    }

    private func replaceConfig(_ request: HTTPRequest) -> HTTPResponse {
        switch runtime.replace(with: request.body) {
        case .success(let outcome):
            return .json(outcome.json.encoded + "\n")
        case .failure(.invalid(let issues)):
            let errors = JSONValue.array(issues.map { .object([("path", .string($0.path.description)), ("reason", .string($0.reason))]) })
            return .json(JSONValue.object([("errors", errors)]).encoded + "\n", status: 400)
        case .failure(.noFile):
            return .text(409, RuntimeConfig.Rejection.noFile.description)
        case .failure(let error):
            return .text(500, error.description)
        }
    }

    /// Compares without an early exit, so response timing does not reveal the token's prefix.
    private static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<min(x.count, y.count) { difference |= x[i] ^ y[i] }
        return difference == 0
    }
}
