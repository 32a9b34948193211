// The listeners' Router (RFC 9110 §9.3.2, §9.3.7, §15.5.5-6) on any method and path: the first
// input byte picks the method (or a byte string of its own), the rest is the path. Properties: a
// match names a route that takes the method (HEAD through GET) and whose pattern accepts the
// path; captures are non-empty and hold no '/'; a 405 lists OPTIONS and never the refused method;
// resolving twice gives the same answer.
@testable import GrandstandCore

private let methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "get", "BREW", ""]

private let router = Router<Int>([
    .init(["GET"], "/", 0),
    .init(["GET"], "/channels.json", 1),
    .init(["GET"], "/channels/{id}/live.m3u8", 2),
    .init(["GET"], "/channels/{id}/{segment}", 3),
    .init(["GET"], "/files/{id}/*", 4),
    .init(["GET", "PUT"], "/api/v1/config", 5),
    .init(["POST"], "/api/v1/leds/locate", 6),
    .init(["GET", "POST", "DELETE"], "/api/v1/records", 7),
    .init(["DELETE"], "/api/v1/items/{id}", 8),
])

func fuzzOne(_ bytes: [UInt8]) {
    guard let first = bytes.first else { return }
    let rest = Array(bytes.dropFirst())
    let method: String, path: String
    if first < 0xF0 {
        method = methods[Int(first) % methods.count]
        path = String(decoding: rest, as: UTF8.self)
    } else {
        // A method of the input's own: up to the first space.
        let cut = rest.firstIndex(of: 0x20) ?? rest.endIndex
        method = String(decoding: rest[..<cut], as: UTF8.self)
        path = String(decoding: rest[min(cut + 1, rest.endIndex)...], as: UTF8.self)
    }
    let once = router.resolve(method: method, path: path)
    let twice = router.resolve(method: method, path: path)
    switch (once, twice) {
    case (.matched(let handler, let parameters), .matched(let again, let parametersAgain)):
        require(handler == again && parameters == parametersAgain, "two answers for \(method) \(path)")
        let route = router.routes[handler]
        require(route.methods.contains(method) || (method == "HEAD" && route.methods.contains("GET")),
                "\(method) \(path) matched route \(handler), which takes \(route.methods)")
        for name in ["id", "segment"] {
            if let value = parameters[name] {
                require(!value.isEmpty && !value.contains("/"), "capture \(name)=\(value) of \(path)")
            }
        }
        if let rest = parameters.rest { require(!rest.isEmpty, "empty rest for \(path)") }
    case (.methodNotAllowed(let allow), .methodNotAllowed(let again)):
        require(allow == again, "two Allow lists for \(method) \(path)")
        require(allow.contains("OPTIONS") && !allow.contains(method), "Allow \(allow) for \(method) \(path)")
    case (.options(let allow), .options(let again)):
        require(method == "OPTIONS" && allow == again && allow.contains("OPTIONS"), "OPTIONS answer \(allow) for \(method)")
    case (.notFound, .notFound):
        break
    default:
        require(false, "\(method) \(path) resolved two ways: \(once) then \(twice)")
    }
}
