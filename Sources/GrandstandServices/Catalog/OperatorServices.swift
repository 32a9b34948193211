import GrandstandCore
import GrandstandRuntime
import HTTPServer
import GrandstandOperations
import GrandstandServing

/// The operator features beside live HLS — catalog search, recordings, timelines with inserts —
/// behind one value, so the daemon and the route tables hook them in with one line each.
/// Fan paths: `/catalog…`, `/records/…`, `/timelines/…`; management: `/api/v1/catalog…`,
/// `/api/v1/records…`, `/api/v1/timelines…`, `/api/v1/inserts…`.
public final class OperatorServices: LiveInserts {
    let catalogFeed: CatalogFeed
    let catalogPoller: CatalogLivePoller
    let catalog: CatalogRoutes
    let recorder: Recorder
    let records: RecordRoutes
    let timelines: TimelineService
    let timelineRoutes: TimelineRoutes
    let liveBreaks: LiveBreaks

    public init(config: GatewayConfig, gateway: Gateway, events: EventLog, clock: any Clock = SystemClock()) {
        catalogFeed = CatalogFeed(settings: config.catalog, events: events, clock: clock)
        catalogPoller = CatalogLivePoller(clock: clock)
        catalog = CatalogRoutes(feed: catalogFeed, gateway: gateway, poller: catalogPoller)
        recorder = Recorder(store: RecordStore(stateDirectory: config.stateDirectory), gateway: gateway, events: events, clock: clock,
                            autoRecord: config.records.autoRecord)
        records = RecordRoutes(recorder: recorder)
        timelines = TimelineService(stateDirectory: config.stateDirectory)
        timelines.recordings = { [recorder] in recorder.record($0) }
        timelineRoutes = TimelineRoutes(service: timelines)
        liveBreaks = LiveBreaks(timelines: timelines) { [timelines, recorder] segment in
            Self.read(segment, cache: timelines.cache, recordings: recorder.store)
        }
        gateway.files.completed = catalogFeed.fileChannelHook(feedFile: config.catalog.feedFile)
    }

    /// The content cache timelines take their clips from (opened after these services).
    public func attach(cache: ContentCache?) { timelines.cache = cache }

    /// Channel `id`'s live playlist with its scheduled inserts; nil when it has none (the caller
    /// answers as usual). `render` is the channel's own non-blocking answer.
    public func liveWithInserts(_ id: String, render: () -> HTTPResponse?) -> HTTPResponse? {
        timelineRoutes.live(id, render: render)
    }

    public func cmafLive(_ id: String, channel: VideoChannel, now: Int64, view: LiveView) -> (@Sendable (HTTPResponse) -> HTTPResponse)? {
        liveBreaks.playlist(id, channel: channel, now: now, view: view)
    }

    public func breakResource(_ id: String, insert: String, name: String, channel: VideoChannel, responder: HTTPResponder, now: Int64) -> HTTPResponse? {
        liveBreaks.resource(id, insert: insert, name: name, channel: channel, responder: responder, now: now)
    }

    /// A clip segment's bytes when they are on the box: `/items/ID/PATH` (the content cache) or
    /// `/records/NAME.ts` (a recording's byte range); nil for origin URLs.
    static func read(_ segment: VODSegment, cache: ContentCache?, recordings: RecordStore) -> [UInt8]? {
        if segment.uri.hasPrefix("/items/"), let cache {
            let rest = segment.uri.dropFirst("/items/".count)
            guard let slash = rest.firstIndex(of: "/"),
                  let (_, _, local) = cache.file(String(rest[..<slash]), path: String(rest[rest.index(after: slash)...])) else { return nil }
            return LiveBreaks.readFile(local, segment.byteRange)
        }
        if segment.uri.hasPrefix("/records/"), segment.uri.hasSuffix(".ts") {
            let name = String(segment.uri.dropFirst("/records/".count).dropLast(3))
            guard recordings.exists(name) else { return nil }
            return LiveBreaks.readFile(recordings.tsPath(name), segment.byteRange)
        }
        return nil
    }

    public func start() throws(RuntimeError) {
        try catalogFeed.start()
        try catalogPoller.start()
        try recorder.start()
    }

    public func stop() {
        catalogFeed.stop()
        catalogPoller.stop()
        recorder.stop()
    }

    /// The fan listener's routes of these features (reads only), `/items/ID/…`, the item events
    /// and fans' item requests (`POST /items`, which `FanRoutes.acceptedMethods` opens) with a cache.
    public func fanRoutes(cache: CacheFanRoutes?) -> [HTTPRoute] {
        catalog.readRoutes(prefix: "/catalog") + [
            HTTPRoute("GET", "/records.json") { [records] _ in records.fanList() },
            HTTPRoute("GET", "/records/{file}") { [records] in records.fan($0) },
            HTTPRoute("GET", "/timelines.json") { [timelineRoutes] _ in timelineRoutes.fanList() },
            HTTPRoute("GET", "/timelines/{file}") { [timelineRoutes] in timelineRoutes.fan($0) },
        ] + (cache.map { cache in [HTTPRoute("GET", "/items.json") { _ in cache.list() },
                                   HTTPRoute("POST", "/items") { cache.request($0) },
                                   HTTPRoute("GET", "/items/events") { cache.events($0) },
                                   HTTPRoute("GET", "/items/{id}") { cache.share($0.parameters["id"] ?? "") },
                                   HTTPRoute("GET", "/items/{id}/*") { cache.handle($0) }] } ?? [])
    }

    public var managementRoutes: [HTTPRoute] { catalog.managementRoutes + records.managementRoutes + timelineRoutes.managementRoutes }
}
