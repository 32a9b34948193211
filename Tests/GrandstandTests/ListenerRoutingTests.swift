import Foundation
import GrandstandCore
import TestSupport
import Testing
@testable import GrandstandDaemon

/// Issue 19: one router behind both listeners, on a running daemon's sockets. A management route
/// and a fan route each answer another method with 405 and `Allow` (RFC 9110 §15.5.6), HEAD as
/// GET without a body (§9.3.2), and OPTIONS with 204 and `Allow` (§9.3.7).
@Suite(.serialized) struct ListenerRoutingTests {
    static let token = "Authorization: Bearer secret"

    static func request(_ method: String, _ target: String, _ headers: [String] = []) -> [UInt8] {
        Array(("\(method) \(target) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: 0\r\n"
            + headers.map { $0 + "\r\n" }.joined() + "\r\n").utf8)
    }

    @Test func managementRoutesAnswer405WithAllowHeadAndOptions() throws {
        let daemon = Daemon(config: try DaemonTests.config(), board: nil)
        try daemon.start()
        defer { daemon.stop() }
        let client = RawHTTPClient(port: try #require(daemon.status?.management.port))

        let delete = try client.send(Self.request("DELETE", "/api/v1/config", [Self.token]))
        #expect(delete.status == 405)
        #expect(delete.headers["allow"] == "GET, HEAD, PUT, OPTIONS")
        // HealthRoutes once answered 405 without Allow and refused HEAD.
        let ledsPost = try client.send(Self.request("POST", "/api/v1/leds", [Self.token]))
        #expect(ledsPost.status == 405)
        #expect(ledsPost.headers["allow"] == "GET, HEAD, OPTIONS")
        #expect(try client.send(Self.request("HEAD", "/api/v1/leds", [Self.token])).status == 200)

        let get = try client.send(Self.request("GET", "/api/v1/version", [Self.token]))
        let head = try client.send(Self.request("HEAD", "/api/v1/version", [Self.token]))
        #expect(get.status == 200 && !get.body.isEmpty)
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(head.headers["content-length"] == "\(get.body.count)")
        #expect(head.headers["content-type"] == get.headers["content-type"])

        let options = try client.send(Self.request("OPTIONS", "/api/v1/log-level", [Self.token]))
        #expect(options.status == 204)
        #expect(options.headers["allow"] == "GET, HEAD, PUT, OPTIONS")
        #expect(options.body.isEmpty)
        let locate = try client.send(Self.request("OPTIONS", "/api/v1/leds/locate", [Self.token]))
        #expect(locate.status == 204 && locate.headers["allow"] == "POST, OPTIONS")
        // The token comes first, for every method and path.
        #expect(try client.send(Self.request("OPTIONS", "/api/v1/log-level")).status == 401)
        #expect(try client.send(Self.request("DELETE", "/api/v1/config")).status == 401)
        #expect(try client.send(Self.request("DELETE", "/nope", [Self.token])).status == 404)
    }

    @Test func fanRoutesAnswer405WithAllowHeadAndOptions() throws {
        let daemon = Daemon(config: try DaemonTests.config(), board: nil)
        try daemon.start()
        defer { daemon.stop() }
        let client = RawHTTPClient(port: try #require(daemon.status?.fan.port))

        let delete = try client.send(Self.request("DELETE", "/channels.json"))
        #expect(delete.status == 405)
        #expect(delete.headers["allow"] == "GET, HEAD, OPTIONS")
        #expect(delete.headers["access-control-allow-origin"] == "*")
        #expect(delete.headers["cache-control"] == "no-store")

        let get = try client.get("/channels.json")
        let head = try client.send(Self.request("HEAD", "/channels.json"))
        #expect(get.status == 200 && !get.body.isEmpty)
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(head.headers["content-length"] == "\(get.body.count)")
        #expect(head.headers["etag"] == get.headers["etag"])

        let options = try client.send(Self.request("OPTIONS", "/health", ["Origin: http://app.example"]))
        #expect(options.status == 204)
        #expect(options.headers["allow"] == "GET, HEAD, OPTIONS")
        #expect(options.headers["access-control-allow-methods"] == "GET, HEAD, OPTIONS")
        #expect(options.headers["access-control-allow-origin"] == "*")
        #expect(options.body.isEmpty)
        #expect(try client.send(Self.request("OPTIONS", "*")).status == 204)
        // A path no route matches is 404 for OPTIONS too; other methods are refused everywhere.
        #expect(try client.send(Self.request("OPTIONS", "/nope")).status == 404)
        #expect(try client.send(Self.request("PUT", "/nope")).status == 405)
    }
}
