import GrandstandCore
import GrandstandOperations
import HTTPServer
import Synchronization

/// Where a cache's item events go (docs/cache.md "Item events"): the operator's form to the
/// event log (journald with its MESSAGE_ID, and `GET /api/v1/events` on the management
/// listener), the fans' form (no error detail, URL or token) to `fans`, the hub behind
/// `GET /items/events` on the fan listener.
public final class ItemEventRelay: Sendable {
    let log: EventLog?
    public let fans: EventHub
    /// Services following item changes in-process (timelines waiting for URL items).
    private let observers = Mutex<[@Sendable (CacheItemEvent) -> Void]>([])

    /// `log` nil: fans' stream only (tests, tools). `maxFanFollowers`: fan streams at once.
    public init(log: EventLog? = nil, maxFanFollowers: Int = 64) {
        self.log = log
        fans = EventHub(maximum: maxFanFollowers, backlog: 64)
    }

    /// Calls `body` with every later event, on the thread that made the change (no cache lock held).
    func observe(_ body: @escaping @Sendable (CacheItemEvent) -> Void) { observers.withLock { $0.append(body) } }

    func publish(_ event: CacheItemEvent) {
        for observer in observers.withLock({ $0 }) { observer(event) }
        log?.record(event.gatewayEvent)
        fans.publish(kind: event.kind.rawValue) { _ in event.fanJSON.encoded }
    }
}

extension CacheFanRoutes {
    /// `GET /items/events[?kinds=progress,failed,…]`: the item events as Server-Sent Events
    /// (WHATWG HTML §9.2): `event:` the kind, `id:` for `Last-Event-ID` (the newer events still
    /// in the last 64 are replayed), `data:` the fans' JSON. 503 past the follower limit.
    func events(_ request: HTTPRequest) -> HTTPResponse {
        let headers: [(name: String, value: String)] = [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache"),
                                                        ("X-Accel-Buffering", "no")]
        var kinds: Set<String>?
        if let text = request.query["kinds"] {
            let names = text.split(separator: ",").map(String.init)
            let known = CacheItemEvent.Kind.allCases.map(\.rawValue)
            if let unknown = names.first(where: { !known.contains($0) }) {
                return .text(400, "kinds: \"\(unknown)\" is not an item event (\(known.joined(separator: ", ")))")
            }
            kinds = Set(names)
        }
        guard request.method == "GET" else { return HTTPResponse(status: 200, headers: headers) }
        let hub = cache.events.fans
        guard let stream = hub.subscribe(kinds: kinds, lastEventID: request.header("Last-Event-ID"),
                                         first: Array("retry: 2000\n\n".utf8)) else {
            return .text(503, "too many item event followers (at most \(hub.maximum)); try again later")
        }
        return .stream(stream, headers: headers)
    }
}
