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
    /// Methods the listener takes at all; another is 405 on every path, before any lookup (the
    /// fan listener serves reads only). nil: each path's routes decide.
    public let acceptedMethods: [String]?
    /// `acceptedMethods` as an `Allow` list, worked out once.
    private let acceptedAllow: [String]?

    public init(_ routes: [Route], acceptedMethods: [String]? = nil) {
        self.routes = routes
        self.acceptedMethods = acceptedMethods
        acceptedAllow = acceptedMethods.map(Self.allowed)
    }

    public func resolve(method: String, path: String) -> Resolution {
        if let acceptedAllow, !acceptedAllow.contains(method) { return .methodNotAllowed(allow: acceptedAllow) }
        if path == "*" {
            // §9.3.7: OPTIONS * asks about the server, not a resource.
            return method == "OPTIONS" ? .options(allow: acceptedAllow ?? Self.allowed(routes.flatMap(\.methods))) : .notFound
        }
        guard path.first == "/" else { return .notFound }
        let segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        var best: (route: Route, parameters: RouteParameters)?
        for route in routes {
            guard best.map({ route.pattern.isMoreSpecific(than: $0.route.pattern) }) ?? true,
                  let parameters = route.pattern.match(segments) else { continue }
            best = (route, parameters)
        }
        guard let best else { return .notFound }
        // Every route with the winning pattern's shape serves the same resource.
        let resource = routes.filter { $0.pattern.hasSameShape(as: best.route.pattern) }
        let chosen = resource.first { $0.methods.contains(method) }
            ?? (method == "HEAD" ? resource.first { $0.methods.contains("GET") } : nil)
        if let chosen {
            return .matched(chosen.handler, chosen.pattern.match(segments) ?? best.parameters)
        }
        let allow = Self.allowed(resource.flatMap(\.methods))
        return method == "OPTIONS" ? .options(allow: allow) : .methodNotAllowed(allow: allow)
    }

    /// `methods` as an `Allow` list: HEAD with GET, OPTIONS always, in a fixed order
    /// (GET, HEAD, POST, PUT, PATCH, DELETE, others alphabetically, OPTIONS), each once.
    public static func allowed(_ methods: [String]) -> [String] {
        var set = Set(methods)
        if set.contains("GET") { set.insert("HEAD") }
        set.insert("OPTIONS")
        let order = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]
        let known = order.filter(set.contains)
        let others = set.subtracting(order).subtracting(["OPTIONS"]).sorted()
        return known + others + ["OPTIONS"]
    }
}

extension Router: Sendable where Handler: Sendable {}
extension Router.Route: Sendable where Handler: Sendable {}
extension Router.Resolution: Sendable where Handler: Sendable {}
