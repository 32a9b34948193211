import Testing
@testable import GrandstandCore

/// The one router both listeners use: patterns, precedence, 404, 405 with `Allow` (RFC 9110
/// §15.5.6), HEAD served by GET (§9.3.2), OPTIONS (§9.3.7). Handlers here are route names.
struct HTTPRouterTests {
    /// A resolution flattened for comparison: the handler's name and captures, or the status.
    enum Outcome: Equatable, Sendable, CustomStringConvertible {
        case route(String, RouteParameters = RouteParameters())
        case notFound
        case notAllowed(String)
        case options(String)

        init(_ resolution: Router<String>.Resolution) {
            switch resolution {
            case .matched(let name, let parameters): self = .route(name, parameters)
            case .notFound: self = .notFound
            case .methodNotAllowed(let allow): self = .notAllowed(allow.joined(separator: ", "))
            case .options(let allow): self = .options(allow.joined(separator: ", "))
            }
        }

        var description: String {
            switch self {
            case .route(let name, let parameters): return "\(name) \(parameters)"
            case .notFound: return "404"
            case .notAllowed(let allow): return "405 Allow: \(allow)"
            case .options(let allow): return "204 Allow: \(allow)"
            }
        }
    }

    static let management = Router<String>([
        .init(["GET"], "/api/v1/status", "status"),
        .init(["GET", "PUT"], "/api/v1/config", "config"),
        .init(["GET", "POST"], "/api/v1/items", "items"),
        .init(["GET"], "/api/v1/items/{id}", "item"),
        .init(["DELETE"], "/api/v1/items/{name}", "delete-item"),
        .init(["POST"], "/api/v1/items/{id}/{action}", "item-action"),
        .init(["POST"], "/api/v1/items/special/{action}", "special-action"),
        .init(["POST"], "/api/v1/leds/locate", "locate"),
        .init(["GET"], "/", "root"),
    ])

    static let fan = Router<String>([
        .init(["GET"], "/channels.json", "channels"),
        .init(["GET"], "/channels/{id}/live.m3u8", "live"),
        .init(["GET"], "/channels/{id}/{segment}", "segment"),
        .init(["GET"], "/files/{id}/*", "file"),
    ], acceptedMethods: ["GET"])

    static let managementCases: [(String, String, Outcome)] = [
        ("GET", "/api/v1/status", .route("status")),
        ("HEAD", "/api/v1/status", .route("status")),
        ("POST", "/api/v1/status", .notAllowed("GET, HEAD, OPTIONS")),
        ("OPTIONS", "/api/v1/status", .options("GET, HEAD, OPTIONS")),
        ("PUT", "/api/v1/config", .route("config")),
        ("DELETE", "/api/v1/config", .notAllowed("GET, HEAD, PUT, OPTIONS")),
        ("PATCH", "/api/v1/config", .notAllowed("GET, HEAD, PUT, OPTIONS")),
        ("POST", "/api/v1/items", .route("items")),
        ("GET", "/api/v1/items/goal", .route("item", RouteParameters(["id": "goal"]))),
        ("HEAD", "/api/v1/items/goal", .route("item", RouteParameters(["id": "goal"]))),
        // Same shape, another capture name: one resource; each route gets its own names.
        ("DELETE", "/api/v1/items/goal", .route("delete-item", RouteParameters(["name": "goal"]))),
        ("PUT", "/api/v1/items/goal", .notAllowed("GET, HEAD, DELETE, OPTIONS")),
        ("POST", "/api/v1/items/goal/pause", .route("item-action", RouteParameters(["id": "goal", "action": "pause"]))),
        // A literal segment outranks a capture.
        ("POST", "/api/v1/items/special/pause", .route("special-action", RouteParameters(["action": "pause"]))),
        ("GET", "/api/v1/items/goal/pause", .notAllowed("POST, OPTIONS")),
        ("GET", "/api/v1/items/special/pause", .notAllowed("POST, OPTIONS")),
        ("GET", "/api/v1/leds/locate", .notAllowed("POST, OPTIONS")),
        ("HEAD", "/api/v1/leds/locate", .notAllowed("POST, OPTIONS")),
        ("OPTIONS", "/api/v1/leds/locate", .options("POST, OPTIONS")),
        ("GET", "/", .route("root")),
        ("OPTIONS", "*", .options("GET, HEAD, POST, PUT, DELETE, OPTIONS")),
        ("GET", "*", .notFound),
        // Unknown paths are 404 whatever the method; no prefix or trailing-slash matching.
        ("GET", "/nope", .notFound),
        ("BREW", "/nope", .notFound),
        ("GET", "/api/v1/status/", .notFound),
        ("GET", "/api/v1/statusx", .notFound),
        ("GET", "/api/v1", .notFound),
        ("GET", "/api/v1/items/", .notFound),
        ("GET", "/api/v1/items//pause", .notFound),
        ("POST", "/api/v1/items/a/b/c", .notFound),
        ("GET", "", .notFound),
        ("GET", "api/v1/status", .notFound),
    ]

    @Test(arguments: managementCases)
    func managementTable(method: String, path: String, expected: Outcome) {
        #expect(Outcome(Self.management.resolve(method: method, path: path)) == expected, "\(method) \(path)")
    }

    static let fanCases: [(String, String, Outcome)] = [
        ("GET", "/channels.json", .route("channels")),
        ("HEAD", "/channels.json", .route("channels")),
        ("OPTIONS", "/channels.json", .options("GET, HEAD, OPTIONS")),
        ("GET", "/channels/cam/live.m3u8", .route("live", RouteParameters(["id": "cam"]))),
        ("GET", "/channels/cam/seg3.ts", .route("segment", RouteParameters(["id": "cam", "segment": "seg3.ts"]))),
        ("GET", "/channels//live.m3u8", .notFound),
        ("GET", "/channels/cam/", .notFound),
        ("GET", "/channels/cam/a/b", .notFound),
        ("GET", "/files/menus/a/b.json", .route("file", RouteParameters(["id": "menus"], rest: "a/b.json"))),
        ("GET", "/files/menus/a//b", .route("file", RouteParameters(["id": "menus"], rest: "a//b"))),
        ("GET", "/files/menus/a/", .route("file", RouteParameters(["id": "menus"], rest: "a/"))),
        ("GET", "/files/menus//", .route("file", RouteParameters(["id": "menus"], rest: "/"))),
        ("GET", "/files/m\u{E9}nus/caf\u{E9} \u{1F3DF}.txt", .route("file", RouteParameters(["id": "m\u{E9}nus"], rest: "caf\u{E9} \u{1F3DF}.txt"))),
        ("GET", "/files/menus/", .notFound),
        ("GET", "/files/menus", .notFound),
        // The fan listener takes reads only: other methods are 405 on every path, known or not.
        ("POST", "/channels.json", .notAllowed("GET, HEAD, OPTIONS")),
        ("DELETE", "/api/v1/items", .notAllowed("GET, HEAD, OPTIONS")),
        ("OPTIONS", "*", .options("GET, HEAD, OPTIONS")),
    ] + unknownFanPaths

    /// Unknown paths on the fan listener, with or without a cache: 405 for other methods, else 404.
    static let unknownFanPaths: [(String, String, Outcome)] = [
        ("PUT", "/nope", .notAllowed("GET, HEAD, OPTIONS")),
        ("GET", "/nope", .notFound),
        ("OPTIONS", "/nope", .notFound),
    ]

    @Test(arguments: fanCases)
    func fanTable(method: String, path: String, expected: Outcome) {
        #expect(Outcome(Self.fan.resolve(method: method, path: path)) == expected, "\(method) \(path)")
    }

    /// The fan listener with a cache: reads everywhere, POST on `/items` alone (a fan's item
    /// request). Every other path answers as `fan` does, the same `Allow` included; `/items`
    /// itself lists only what it takes. A route naming a method the listener does not open
    /// (DELETE on records here) neither takes it nor lists it.
    static let fanWithItems = Router<String>([
        .init(["GET"], "/channels.json", "channels"),
        .init(["GET"], "/items.json", "items-list"),
        .init(["POST"], "/items", "item-request"),
        .init(["GET"], "/items/{id}/*", "item-file"),
        .init(["GET", "DELETE"], "/records/{file}", "record"),
    ], acceptedMethods: AcceptedMethods(["GET"], more: ["/items": ["POST"]]))

    static let fanWithItemsCases: [(String, String, Outcome)] = [
        ("POST", "/items", .route("item-request")),
        ("GET", "/items", .notAllowed("POST, OPTIONS")),
        ("HEAD", "/items", .notAllowed("POST, OPTIONS")),
        ("DELETE", "/items", .notAllowed("POST, OPTIONS")),
        ("OPTIONS", "/items", .options("POST, OPTIONS")),
        ("GET", "/items.json", .route("items-list")),
        ("POST", "/items.json", .notAllowed("GET, HEAD, OPTIONS")),
        ("POST", "/items/goal/a.ts", .notAllowed("GET, HEAD, OPTIONS")),
        ("POST", "/items/", .notAllowed("GET, HEAD, OPTIONS")),
        ("POST", "/channels.json", .notAllowed("GET, HEAD, OPTIONS")),
        ("DELETE", "/channels.json", .notAllowed("GET, HEAD, OPTIONS")),
        ("GET", "/records/r1.m3u8", .route("record", RouteParameters(["file": "r1.m3u8"]))),
        ("DELETE", "/records/r1.m3u8", .notAllowed("GET, HEAD, OPTIONS")),
        ("OPTIONS", "/records/r1.m3u8", .options("GET, HEAD, OPTIONS")),
        ("POST", "/nope", .notAllowed("GET, HEAD, OPTIONS")),
        ("POST", "items", .notAllowed("GET, HEAD, OPTIONS")),
        ("POST", "*", .notAllowed("GET, HEAD, OPTIONS")),
        ("OPTIONS", "*", .options("GET, HEAD, POST, OPTIONS")),
    ] + unknownFanPaths

    @Test(arguments: fanWithItemsCases)
    func fanWithItemsTable(method: String, path: String, expected: Outcome) {
        #expect(Outcome(Self.fanWithItems.resolve(method: method, path: path)) == expected, "\(method) \(path)")
    }

    /// A pattern opened with no route behind it (a gateway without a cache) opens nothing;
    /// patterns match by shape, whatever their captures are called.
    @Test func openedPatternsNeedTheirRoute() {
        let bare = Router<String>([.init(["GET"], "/items.json", "items-list")],
                                  acceptedMethods: AcceptedMethods(["GET"], more: ["/items": ["POST"]]))
        #expect(Outcome(bare.resolve(method: "POST", path: "/items")) == .notAllowed("GET, HEAD, OPTIONS"))
        let renamed = Router<String>([.init(["GET", "PUT"], "/things/{id}", "thing")],
                                     acceptedMethods: AcceptedMethods(["GET"], more: ["/things/{name}": ["PUT"]]))
        #expect(Outcome(renamed.resolve(method: "PUT", path: "/things/a")) == .route("thing", RouteParameters(["id": "a"])))
        #expect(Outcome(renamed.resolve(method: "DELETE", path: "/things/a")) == .notAllowed("GET, HEAD, PUT, OPTIONS"))
    }

    @Test(arguments: [
        (["GET"], "GET, HEAD, OPTIONS"),
        (["PUT", "GET"], "GET, HEAD, PUT, OPTIONS"),
        (["DELETE", "POST", "GET", "POST"], "GET, HEAD, POST, DELETE, OPTIONS"),
        (["BREW", "PATCH", "OPTIONS", "HEAD"], "HEAD, PATCH, BREW, OPTIONS"),
        ([], "OPTIONS"),
    ])
    func allowListsAreOrderedAndComplete(methods: [String], allow: String) {
        #expect(Router<String>.allowed(methods).joined(separator: ", ") == allow)
    }

    /// A route that names HEAD itself takes HEAD; GET still answers GET.
    @Test func anExplicitHeadRouteWins() {
        let router = Router<String>([.init(["GET"], "/x", "get"), .init(["HEAD"], "/x", "head")])
        #expect(Outcome(router.resolve(method: "HEAD", path: "/x")) == .route("head"))
        #expect(Outcome(router.resolve(method: "GET", path: "/x")) == .route("get"))
    }

    @Test(arguments: [
        ("/a/{x}/c", "/a/{y}/c", false),
        ("/a/b/{x}", "/a/{x}/b", true),
        ("/a/{x}", "/a/*", true),
        ("/a/*", "/a/{x}", false),
        ("/a/b", "/a", true),
    ])
    func specificity(pattern: String, other: String, moreSpecific: Bool) {
        #expect(RoutePattern(pattern).isMoreSpecific(than: RoutePattern(other)) == moreSpecific)
    }

    /// Only a well-formed capture or a final `*` is special; the rest is literal text.
    @Test func oddPatternSegmentsAreLiterals() {
        let router = Router<String>([.init(["GET"], "/a/*/b", "star"), .init(["GET"], "/{}/x", "braces")])
        #expect(Outcome(router.resolve(method: "GET", path: "/a/*/b")) == .route("star"))
        #expect(Outcome(router.resolve(method: "GET", path: "/a/z/b")) == .notFound)
        #expect(Outcome(router.resolve(method: "GET", path: "/{}/x")) == .route("braces"))
    }
}
