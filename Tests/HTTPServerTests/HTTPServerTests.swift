#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport
@testable import HTTPServer

struct HTTPServerTests {
    /// A handler that echoes what it was given, so tests can check the request plumbing.
    static func echo(_ request: HTTPRequest) -> HTTPResponse {
        switch request.path {
        case "/hello":
            let name = request.query["name"] ?? "?"
            let agent = request.header("X-Agent") ?? "-"
            return HTTPResponse(status: 200, headers: [("Content-Type", "text/plain"), ("X-Echo-Method", request.method)],
                                body: Array("hello \(name) from \(agent)".utf8))
        case "/upload":
            return .json("{\"bytes\":\(request.body.count),\"sum\":\(request.body.reduce(0) { $0 + Int($1) })}", status: 201)
        case "/client":
            return .text(200, request.client ?? "none")
        default:
            return .text(404, "no route for \(request.path)")
        }
    }

    func start(_ configure: (inout HTTPListenerConfiguration) -> Void = { _ in }) throws -> any HTTPListener {
        var configuration = HTTPListenerConfiguration(host: "127.0.0.1", port: 0)
        configure(&configuration)
        return try EventLoopServer(configuration, handler: Self.echo)
    }

    @Test func getOnAnEphemeralLoopbackPort() throws {
        let server = try start()
        #expect(server.port != 0)
        let reply = try RawHTTPClient(port: server.port).get("/hello?name=fan%20one", headers: ["X-Agent: test"])
        #expect(reply.status == 200)
        #expect(reply.text == "hello fan one from test")
        #expect(reply.headers["content-type"] == "text/plain")
        #expect(reply.headers["x-echo-method"] == "GET")
        #expect(reply.headers["content-length"] == "23")
    }

    @Test func unknownPathIs404() throws {
        let server = try start()
        let reply = try RawHTTPClient(port: server.port).get("/nope")
        #expect(reply.status == 404)
        #expect(reply.text == "no route for /nope\n")
    }

    @Test func postBodyArrivesWhole() throws {
        let server = try start()
        let body = (0..<100_000).map { UInt8($0 % 251) }
        let reply = try RawHTTPClient(port: server.port).post("/upload", body: body)
        #expect(reply.status == 201)
        #expect(reply.text == "{\"bytes\":100000,\"sum\":\(body.reduce(0) { $0 + Int($1) })}")
    }

    @Test func oversizedBodyIs413() throws {
        let server = try start { $0.maxBodyBytes = 1000 }
        let reply = try RawHTTPClient(port: server.port).post("/upload", body: [UInt8](repeating: 7, count: 5000))
        #expect(reply.status == 413)
    }

    @Test func oversizedHeadersGetA4xx() throws {
        let server = try start()
        let reply = try RawHTTPClient(port: server.port).get("/hello", headers: ["X-Big: " + String(repeating: "a", count: 64 * 1024)])
        #expect((400..<500).contains(reply.status))
    }

    @Test func clientAddressIsReported() throws {
        let server = try start()
        let reply = try RawHTTPClient(port: server.port).get("/client")
        #expect(reply.text.hasPrefix("127.0.0.1:"))
    }

    @Test func secondListenerOnTheSamePortFailsWithEADDRINUSE() throws {
        let first = try start()
        #expect(throws: HTTPServerError("start listener on 127.0.0.1:\(first.port)", errno: EADDRINUSE)) {
            _ = try start { $0.port = first.port }
        }
    }

    @Test(arguments: ["localhost", "300.1.1.1", "", "::g"])
    func nonNumericHostsAreRejected(host: String) {
        #expect(throws: HTTPServerError.self) { _ = try start { $0.host = host } }
    }

    @Test func ipv6Loopback() throws {
        let server = try start { $0.host = "::1" }
        #expect(server.port != 0)
    }

    @Test func stopClosesTheListener() throws {
        let server = try start()
        let port = server.port
        server.stop()
        #expect(throws: (any Error).self) { _ = try RawHTTPClient(port: port).get("/hello") }
    }
}
