import Foundation
import GrandstandCore
import HTTPClient
import TestSupport
import Testing
@testable import GrandstandDaemon

/// Issue 10 (security): management routes exist only on the management listener and always
/// need the token; the fan listener answers 404 for every management path and never shows the
/// token (docs/security.md).
@Suite(.serialized) struct ManagementSecurityTests {
    /// Every management route with its method, from the running daemon's table (every feature
    /// adds to it: LEDs and debug faults, the event stream, catalog, records, timelines, files),
    /// captures filled with a sample value (`{id}` → `x`, a final `*` → `x/y`).
    static func routes(_ daemon: Daemon) throws -> [(method: String, path: String)] {
        let table = daemon.managementTable
        for path in ["/api/v1/leds", "/api/v1/leds/locate", "/api/v1/leds/test", "/api/v1/debug/fault", "/api/v1/events"] {
            #expect(table.contains { $0.pattern == path }, "\(path) is not in the management table")
        }
        return table.flatMap { route in
            let path = route.pattern.split(separator: "/", omittingEmptySubsequences: false).map { segment in
                segment == "*" ? "x/y" : segment.hasPrefix("{") ? "x" : String(segment)
            }.joined(separator: "/")
            return route.methods.map { (method: $0, path: path) }
        }
    }

    static func start() throws -> Daemon {
        let daemon = Daemon(config: try DaemonTests.config(), board: try BoardDescription.decode(Array(DaemonHealthTests.board.utf8)))
        try daemon.start()
        return daemon
    }

    @Test func everyManagementRouteRefusesAMissingOrWrongToken() throws {
        let daemon = try Self.start()
        defer { daemon.stop() }
        let routes = try Self.routes(daemon)
        #expect(routes.count >= 15, "\(routes.map(\.path))")
        let port = try #require(daemon.status?.management.port)
        let client = HTTPClient(HTTPEndpoint(host: "127.0.0.1", port: port))
        for (method, path) in routes {
            let body = Array(#"{"level":"debug"}"#.utf8)
            for headers in [[], [("Authorization", "Bearer wrong")], [("Authorization", "secret")],
                            [("Authorization", "Basic c2VjcmV0")]] {
                let response = try client.request(method, path, headers: headers, body: method == "GET" ? [] : body)
                #expect(response.status == 401, "\(method) \(path) with \(headers) answered \(response.status)")
                #expect(response.headers["www-authenticate"] == "Bearer realm=\"grandstand\"")
            }
            // A token in the query string is not a credential.
            let query = try client.request(method, path + "?token=secret&access_token=secret", body: [])
            #expect(query.status == 401, "\(method) \(path)?token= answered \(query.status)")
        }
        // Nothing refused had an effect: no locate running, the log level unchanged.
        let leds = try DaemonHealthTests.call(daemon, "GET", "/api/v1/leds")
        #expect(try JSONParser.parse(Array(leds.body.utf8))["locateRemainingSeconds"] == .number(0))
        let level = try DaemonHealthTests.call(daemon, "GET", "/api/v1/log-level")
        #expect(level.body.contains("\"info\""))
    }

    @Test func theFanListenerAnswers404ForEveryManagementPath() throws {
        let daemon = try Self.start()
        defer { daemon.stop() }
        let fan = RawHTTPClient(port: try #require(daemon.status?.fan.port))
        for (method, path) in try Self.routes(daemon) {
            let plain = try fan.get(path)
            #expect(plain.status == 404, "GET \(path) on the fan listener answered \(plain.status)")
            let authorized = try fan.get(path, headers: ["Authorization: Bearer secret"])
            #expect(authorized.status == 404, "GET \(path) with the token on the fan listener answered \(authorized.status)")
            if method != "GET" {
                // Other methods are refused before any route is looked at.
                let request = "\(method) \(path) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer secret\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                #expect(try fan.send(Array(request.utf8)).status == 405, "\(method) \(path) on the fan listener")
            }
        }
        // What the fan listener does serve never carries the token.
        for path in ["/health", "/", "/channels.json"] {
            let reply = try fan.get(path)
            #expect(reply.status == 200, "\(path)")
            #expect(!String(decoding: reply.body, as: UTF8.self).contains("secret"), "\(path) shows the token")
        }
    }
}
