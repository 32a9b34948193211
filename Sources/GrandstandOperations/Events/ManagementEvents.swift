import GrandstandCore
import GrandstandRuntime
import Synchronization
import HTTPServer

/// Every gateway event as it happens, for `GET /api/v1/events` (Server-Sent Events on the
/// management listener): health transitions, channels added/removed, reloads. Each event gets an
/// id `SESSION.N`; the last `backlog` events are kept so a client that reconnects with
/// `Last-Event-ID` gets what it missed. At most `maximum` clients at once.
public final class EventHub: Sendable {
    private struct Subscriber {
        let stream: HTTPStream
        let kinds: Set<String>?
    }
    private struct State {
        var subscribers: [ObjectIdentifier: Subscriber] = [:]
        var recent: [(number: UInt64, kind: String, bytes: [UInt8])] = []
        var next: UInt64 = 1
    }

    public let maximum: Int
    let backlog: Int
    /// Distinguishes this daemon run's ids from an earlier run's (ids restart at 1).
    let session: String
    private let state = Mutex(State())

    public init(maximum: Int = 8, backlog: Int = 64) {
        self.maximum = maximum
        self.backlog = backlog
        var generator = SystemRandomNumberGenerator()
        session = String(UInt32.random(in: 0x1000_0000 ... UInt32.max, using: &generator), radix: 16)
    }

    /// The kinds of the events still in the backlog, oldest first.
    var recentKinds: [String] { state.withLock { $0.recent.map(\.kind) } }
    /// The events still in the backlog as sent (server-sent events with their JSON), oldest first.
    var recentText: [String] { state.withLock { $0.recent.map { String(decoding: $0.bytes, as: UTF8.self) } } }

    /// Numbers the event and sends it to every subscriber whose filter admits its kind.
    func publish(_ event: GatewayEvent, realtimeMicroseconds: Int64) {
        publish(kind: event.kind.rawValue) { id in Self.json(event, id: id, realtimeMicroseconds: realtimeMicroseconds).encoded }
    }

    /// Numbers an event of `kind` (`event:`), makes its `data:` from its id, and sends it to
    /// every subscriber whose filter admits the kind (another hub's events: the fans' item events).
    public func publish(kind: String, data: (_ id: String) -> String) {
        state.withLock { state in
            let number = state.next
            state.next += 1
            let id = "\(session).\(number)"
            let bytes = Array(ServerSentEvent(id: id, event: kind, data: data(id)).encoded.utf8)
            state.recent.append((number, kind, bytes))
            if state.recent.count > backlog { state.recent.removeFirst(state.recent.count - backlog) }
            for (key, subscriber) in state.subscribers where subscriber.kinds?.contains(kind) ?? true {
                if !subscriber.stream.send(bytes) { state.subscribers[key] = nil }
            }
        }
    }

    /// A new stream starting with `first` (the current state), then the events after
    /// `lastEventID` still in the backlog (all of them when the id is from another run), then
    /// every new event. Nil when `maximum` clients are already connected.
    public func subscribe(kinds: Set<String>?, lastEventID: String?, first: [UInt8]?) -> HTTPStream? {
        var limits = HTTPStream.Limits()
        limits.heartbeat = Array(": keepalive\n\n".utf8)
        let stream = HTTPStream(limits: limits)
        return state.withLock { state -> HTTPStream? in
            state.subscribers = state.subscribers.filter { $0.value.stream.isOpen }
            guard state.subscribers.count < maximum else { return nil }
            if let first { _ = stream.send(first) }
            if let lastEventID {
                let parts = lastEventID.split(separator: ".", maxSplits: 1)
                let after = parts.count == 2 && parts[0] == session ? UInt64(parts[1]) ?? 0 : 0
                for entry in state.recent where entry.number > after && (kinds?.contains(entry.kind) ?? true) {
                    _ = stream.send(entry.bytes)
                }
            }
            state.subscribers[ObjectIdentifier(stream)] = Subscriber(stream: stream, kinds: kinds)
            return stream
        }
    }

    /// Clients connected now.
    public var count: Int { state.withLock { $0.subscribers.values.filter { $0.stream.isOpen }.count } }

    /// Ends every stream (daemon stop: before the listener that carries them).
    public func finishAll() {
        let streams = state.withLock { state -> [HTTPStream] in
            defer { state.subscribers = [:] }
            return state.subscribers.values.map(\.stream)
        }
        for stream in streams { stream.finish() }
    }

    /// `{"id","kind","messageId","priority","message","fields":{NAME:value},"timestampMicroseconds"}`.
    static func json(_ event: GatewayEvent, id: String, realtimeMicroseconds: Int64) -> JSONValue {
        .object([
            ("id", .string(id)), ("kind", .string(event.kind.rawValue)), ("messageId", .string(event.kind.messageID)),
            ("priority", .number(Double(event.kind.priority))), ("message", .string(event.message)),
            ("fields", .object(event.fields.map { ($0.name, JSONValue.string($0.value)) })),
            ("timestampMicroseconds", .number(Double(realtimeMicroseconds))),
        ])
    }
}

/// `GET /api/v1/events[?kinds=service-up,service-down,…]`: the event stream (added to
/// ManagementRoutes' table, behind the token). The first event, `status`, is the service state now.
public struct ManagementEventRoutes: Sendable {
    public let hub: EventHub
    /// The service object of `/api/v1/status` (nil when the daemon runs without health).
    public let service: @Sendable () -> JSONValue?

    public var routes: [HTTPRoute] { [HTTPRoute("GET", "/api/v1/events") { open($0) }] }

    private func open(_ request: HTTPRequest) -> HTTPResponse {
        var kinds: Set<String>?
        if let text = request.query["kinds"] {
            let names = text.split(separator: ",").map(String.init)
            let known = Set(GatewayEvent.Kind.allCases.map(\.rawValue))
            if let unknown = names.first(where: { !known.contains($0) }) {
                return .text(400, "kinds: \"\(unknown)\" is not an event kind (\(known.sorted().joined(separator: ", ")))")
            }
            kinds = Set(names)
        }
        let first = service().map { state in
            Array(ServerSentEvent(event: "status", data: JSONValue.object([("service", state)]).encoded).encoded.utf8)
        }
        guard let stream = hub.subscribe(kinds: kinds, lastEventID: request.header("Last-Event-ID"), first: first) else {
            return .text(503, "too many event followers (at most \(hub.maximum)); try again later")
        }
        return .stream(stream, headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")])
    }

    public init(hub: EventHub, service: @escaping @Sendable () -> JSONValue?) {
        self.hub = hub
        self.service = service
    }
}
