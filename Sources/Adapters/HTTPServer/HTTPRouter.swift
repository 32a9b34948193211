import GrandstandCore

/// One route of a listener's table: methods, a path pattern (`/api/v1/items/{id}`,
/// `/files/{id}/*`: `RoutePattern`) and the handler, which finds the captures in
/// `request.parameters`. Each feature contributes an array of these.
public struct HTTPRoute: Sendable {
    public let methods: [String]
    public let pattern: String
    public let handler: HTTPDeferringHandler

    /// A route that may answer later through the responder (blocking reloads, held parts).
    public init(_ methods: [String], _ pattern: String, deferring handler: @escaping HTTPDeferringHandler) {
        self.methods = methods
        self.pattern = pattern
        self.handler = handler
    }

    public init(_ methods: [String], _ pattern: String, _ handler: @escaping HTTPHandler) {
        self.init(methods, pattern, deferring: { request, _ in handler(request) })
    }

    public init(_ method: String, _ pattern: String, _ handler: @escaping HTTPHandler) {
        self.init([method], pattern, handler)
    }
}

/// A listener's routes on the core's `Router`: the one place that answers an unknown path (404),
/// a method the resource does not take (405 with `Allow`, RFC 9110 §15.5.6), OPTIONS (204 with
/// `Allow`, §9.3.7) and HEAD (the GET route; the engine sends no body, §9.3.2).
public struct HTTPRouter: Sendable {
    public let router: Router<HTTPDeferringHandler>

    public init(_ routes: [HTTPRoute], acceptedMethods: AcceptedMethods? = nil) {
        router = Router(routes.map { Router.Route($0.methods, $0.pattern, $0.handler) }, acceptedMethods: acceptedMethods)
    }

    /// The route's answer (nil: it answers later through `responder`), or the shared one.
    public func handle(_ request: HTTPRequest, _ responder: HTTPResponder) -> HTTPResponse? {
        switch router.resolve(method: request.method, path: request.path) {
        case .matched(let handler, let parameters):
            var request = request
            request.parameters = parameters
            return handler(request, responder)
        case .notFound:
            return .text(404, "not found")
        case .methodNotAllowed(let allow):
            var response = HTTPResponse.text(405, "method not allowed")
            response.headers.insert(("Allow", allow.joined(separator: ", ")), at: 0)
            return response
        case .options(let allow):
            return HTTPResponse(status: 204, headers: [("Allow", allow.joined(separator: ", "))])
        }
    }
}
