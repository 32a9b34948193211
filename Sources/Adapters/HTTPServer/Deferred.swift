import Synchronization

/// Answers one request later, from any thread (e.g. a blocking playlist reload answered when the
/// next part is published). The connection waits (no thread held) until `respond` is called;
/// only the first call counts.
public final class HTTPResponder: Sendable {
    private let delivery: any ResponseDelivery
    private let transform: (@Sendable (HTTPResponse) -> HTTPResponse)?

    init(delivery: any ResponseDelivery, transform: (@Sendable (HTTPResponse) -> HTTPResponse)? = nil) {
        self.delivery = delivery
        self.transform = transform
    }

    /// A responder outside any listener (tests, tools): `deliver` gets the first answer.
    public convenience init(_ deliver: @escaping @Sendable (HTTPResponse) -> Void) {
        self.init(delivery: ClosureDelivery(deliver))
    }

    /// Delivers the answer and resumes the connection; later calls are ignored.
    public func respond(_ response: HTTPResponse) {
        delivery.deliver(transform.map { $0(response) } ?? response)
    }

    /// A responder for the same request that passes every answer through `transform` first
    /// (after any transform this one already applies): headers every route adds, conditionals.
    public func adapting(_ transform: @escaping @Sendable (HTTPResponse) -> HTTPResponse) -> HTTPResponder {
        guard let first = self.transform else { return HTTPResponder(delivery: delivery, transform: transform) }
        let chained: @Sendable (HTTPResponse) -> HTTPResponse = { transform(first($0)) }
        return HTTPResponder(delivery: delivery, transform: chained)
    }
}

/// Where a deferred answer goes: the engine's side of `HTTPResponder` (any thread; first wins).
protocol ResponseDelivery: AnyObject, Sendable {
    func deliver(_ response: HTTPResponse)
}

/// `HTTPResponder(_:)`'s delivery: the first answer goes to the closure, later ones are dropped.
final class ClosureDelivery: ResponseDelivery {
    private let sink: @Sendable (HTTPResponse) -> Void
    private let answered = Mutex(false)

    init(_ sink: @escaping @Sendable (HTTPResponse) -> Void) { self.sink = sink }

    func deliver(_ response: HTTPResponse) {
        let first: Bool = answered.withLock { answered in
            defer { answered = true }
            return !answered
        }
        if first { sink(response) }
    }
}
