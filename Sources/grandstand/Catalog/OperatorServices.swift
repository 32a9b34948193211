import GrandstandCore
import HTTPServer

/// The operator features beside live HLS — catalog search, recordings, timelines with inserts —
/// behind one value, so the daemon and the route tables hook them in with one line each.
/// Fan paths: `/catalog…`, `/records/…`, `/timelines/…`; management: `/api/v1/catalog…`,
/// `/api/v1/records…`, `/api/v1/timelines…`, `/api/v1/inserts…`.
final class OperatorServices: Sendable {
    let catalogFeed: CatalogFeed
    let catalog: CatalogRoutes
    let recorder: Recorder
    let records: RecordRoutes

    init(config: GatewayConfig, gateway: Gateway, events: EventLog) {
        catalogFeed = CatalogFeed(settings: config.catalog, events: events)
        catalog = CatalogRoutes(feed: catalogFeed, gateway: gateway)
        recorder = Recorder(store: RecordStore(stateDirectory: config.stateDirectory), gateway: gateway, events: events)
        records = RecordRoutes(recorder: recorder)
    }

    func start() {
        catalogFeed.start()
        recorder.start()
    }

    func stop() {
        catalogFeed.stop()
        recorder.stop()
    }

    /// The fan listener's answer for paths these features own, nil for any other path.
    func fan(_ request: HTTPRequest) -> HTTPResponse? {
        let path = request.path
        if path == "/catalog" || path.hasPrefix("/catalog/") {
            return catalog.handle(request, rest: String(path.dropFirst("/catalog".count)))
        }
        return records.fan(request)
    }

    var managementRoutes: [ManagementRoute] { catalog.managementRoutes + records.managementRoutes }
}
