import CGSMicroHTTPD
import CGSMicroHTTPDSystem
#if canImport(Glibc)
import Glibc
#endif

/// Answers one request later, from any thread (e.g. a blocking playlist reload answered when the
/// next part is published). The connection stays suspended (libmicrohttpd suspend/resume, no
/// thread held) until `respond` is called; only the first call counts.
public final class HTTPResponder: @unchecked Sendable {
    // @unchecked: the delivery is itself thread-safe (libmicrohttpd: under the PendingRequest's
    // lock; the event loop: its mailbox).
    private let delivery: any ResponseDelivery
    private let transform: (@Sendable (HTTPResponse) -> HTTPResponse)?

    init(pending: PendingRequest, connection: OpaquePointer, transform: (@Sendable (HTTPResponse) -> HTTPResponse)? = nil) {
        self.delivery = MHDDelivery(pending: pending, connection: connection)
        self.transform = transform
    }

    init(delivery: any ResponseDelivery, transform: (@Sendable (HTTPResponse) -> HTTPResponse)? = nil) {
        self.delivery = delivery
        self.transform = transform
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
protocol ResponseDelivery: AnyObject {
    func deliver(_ response: HTTPResponse)
}

/// libmicrohttpd: store the answer in the request's slot and resume the connection.
final class MHDDelivery: ResponseDelivery {
    let pending: PendingRequest
    let connection: OpaquePointer
    init(pending: PendingRequest, connection: OpaquePointer) {
        self.pending = pending
        self.connection = connection
    }
    func deliver(_ response: HTTPResponse) { pending.deliver(response, connection: connection) }
}

extension PendingRequest {
    /// Stores the answer; resumes the connection if it is already suspended.
    func deliver(_ response: HTTPResponse, connection: OpaquePointer) {
        lock.withLock {
            guard !answered else { return }
            answered = true
            deferredResponse = response
            if suspended {
                suspended = false
                MHD_resume_connection(connection)
            }
        }
    }

    /// Called right after the handler deferred: suspends unless the answer already arrived
    /// (then queues it at once). Returns the result of queueing, or nil after suspending.
    func suspendUnlessAnswered(_ connection: OpaquePointer, _ context: ServerContext) -> MHD_Result? {
        let ready: HTTPResponse? = lock.withLock {
            if answered { return takeDeferredResponseLocked() }
            suspended = true
            MHD_suspend_connection(connection)
            return nil
        }
        guard let ready else { return nil }
        return queueResponse(ready, on: connection, context)
    }

    func takeDeferredResponse() -> HTTPResponse? { lock.withLock { takeDeferredResponseLocked() } }

    private func takeDeferredResponseLocked() -> HTTPResponse? {
        defer { deferredResponse = nil }
        return deferredResponse
    }
}
