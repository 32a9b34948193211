import Foundation
import GrandstandCore
import GrandstandRuntime
import TestSupport
@testable import GrandstandDaemon

/// The daemon with a cache on `origin`, and curl on its two listeners (the management API with
/// the bearer token, the fan listener without): the download-to-go SDK's behaviours as an
/// operator and a fan meet them.
struct CacheCurl {
    let management: String
    let fan: String

    init(_ daemon: Daemon) throws {
        guard let status = daemon.status else { throw CurlFailed(output: "daemon not started") }
        management = "http://127.0.0.1:\(status.management.port)"
        fan = "http://127.0.0.1:\(status.fan.port)"
    }

    struct CurlFailed: Error { let output: String }

    struct Answer {
        let status: Int
        let body: String
        var json: JSONValue? { try? JSONParser.parse(Array(body.utf8)) }
    }

    /// curl on `url` (extra arguments first); the status and the body.
    static func curl(_ url: String, _ arguments: [String] = []) throws -> Answer {
        let output = try runCommand(["curl", "-s", "-w", "\n%{http_code}"] + arguments + [url])
        guard let cut = output.lastIndex(of: "\n"), let status = Int(output[output.index(after: cut)...]) else {
            throw CurlFailed(output: output)
        }
        return Answer(status: status, body: String(output[..<cut]))
    }

    func get(_ path: String) throws -> Answer { try Self.curl(management + path, ["-H", "Authorization: Bearer secret"]) }

    func post(_ path: String, _ body: String) throws -> Answer {
        try Self.curl(management + path, ["-H", "Authorization: Bearer secret", "-H", "Content-Type: application/json", "--data", body])
    }

    func fanGet(_ path: String) throws -> Answer { try Self.curl(fan + path) }

    /// The ids of a `GET /api/v1/items?…` answer, in order.
    func ids(_ query: String) throws -> [String] {
        guard case .array(let items)? = try get("/api/v1/items?" + query).json?["items"] else { return [] }
        return items.compactMap { if case .string(let id)? = $0["id"] { id } else { nil } }
    }

    static func daemon(_ origin: CacheOrigin, clock: (any GrandstandRuntime.Clock)? = nil,
                       configure: (inout GatewayConfig.Cache) -> Void = { _ in }) throws -> Daemon {
        var config = try DaemonTests.config()
        var cache = origin.cacheConfig()
        configure(&cache)
        config.cache = cache
        config.stateDirectory = cache.directory + "-state"
        return clock.map { Daemon(config: config, board: nil, clock: $0) } ?? Daemon(config: config, board: nil)
    }
}
