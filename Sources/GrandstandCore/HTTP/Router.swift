/// A listener's route table: each route is a set of methods and a `RoutePattern`. A request's
/// method and path resolve to the route's handler and captures, or to the answer every route
/// shares: 404 (RFC 9110 §15.5.5), 405 with the `Allow` list (§15.5.6, §10.2.1), or the OPTIONS
/// answer (§9.3.7). HEAD is served by the GET route wherever no route names HEAD (§9.3.2).
/// Pure: no I/O; `Handler` is whatever the listener calls (a closure, an id).
public struct Router<Handler> {
    public struct Route {
        public let methods: [String]
        public let pattern: RoutePattern
        public let handler: Handler

        public init(_ methods: [String], _ pattern: String, _ handler: Handler) {
            self.methods = methods
            self.pattern = RoutePattern(pattern)
            self.handler = handler
        }
    }

    public enum Resolution {
        case matched(Handler, RouteParameters)
        case notFound
        /// The path names a resource that does not take this method: 405 with `Allow: allow`.
        case methodNotAllowed(allow: [String])
        /// OPTIONS on a resource (or `*`: the listener): 204 with `Allow: allow`.
        case options(allow: [String])
    }

    public let routes: [Route]
    /// The matching itself, not generic, so it is compiled once in this module.
    private let table: RouteTable

    /// `acceptedMethods`: the methods the listener takes at all, on every path or on some
    /// resources only (`AcceptedMethods`); another is 405 with the listener's `Allow`, the
    /// routes not asked. nil: each path's routes decide.
    public init(_ routes: [Route], acceptedMethods: AcceptedMethods? = nil) {
        self.routes = routes
        table = RouteTable(routes.map { ($0.methods, $0.pattern) }, acceptedMethods: acceptedMethods)
    }

    public func resolve(method: String, path: String) -> Resolution {
        switch table.resolve(method: method, path: path) {
        case .matched(let index, let parameters): return .matched(routes[index].handler, parameters)
        case .notFound: return .notFound
        case .methodNotAllowed(let allow): return .methodNotAllowed(allow: allow)
        case .options(let allow): return .options(allow: allow)
        }
    }

    /// `methods` as an `Allow` list: HEAD with GET, OPTIONS always, in a fixed order
    /// (GET, HEAD, POST, PUT, PATCH, DELETE, others alphabetically, OPTIONS), each once.
    public static func allowed(_ methods: [String]) -> [String] { RouteTable.allowed(methods) }
}

extension Router: Sendable where Handler: Sendable {}
extension Router.Route: Sendable where Handler: Sendable {}
extension Router.Resolution: Sendable where Handler: Sendable {}
