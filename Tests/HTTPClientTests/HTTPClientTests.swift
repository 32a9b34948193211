#if canImport(Glibc)
import Glibc
#endif
import Testing
import HTTPServer
@testable import HTTPClient

struct HTTPClientTests {
    @Test(arguments: [
        ("http://127.0.0.1:8081", "127.0.0.1", UInt16(8081), ""), ("http://[::1]:9/api/", "::1", 9, "/api"),
        ("http://gateway.local", "gateway.local", 80, ""), ("http://10.0.0.1:80/x/y", "10.0.0.1", 80, "/x/y"),
    ])
    func urlsParse(url: String, host: String, port: UInt16, base: String) {
        #expect(HTTPEndpoint(url: url) == HTTPEndpoint(host: host, port: port, basePath: base))
    }

    @Test(arguments: ["https://127.0.0.1", "127.0.0.1:80", "http://", "http://h:0", "http://h:99999", "http://[::1"])
    func badURLsAreRejected(url: String) {
        #expect(HTTPEndpoint(url: url) == nil)
    }

    @Test func getsAndPutsAgainstTheServerAdapter() throws {
        let server = try EventLoopServer(HTTPListenerConfiguration(host: "127.0.0.1", port: 0)) { request in
            .text(201, "\(request.method) \(request.path) q=\(request.query["q"] ?? "-") auth=\(request.header("Authorization") ?? "-") body=\(String(decoding: request.body, as: UTF8.self))")
        }
        defer { server.stop() }
        let client = HTTPClient(HTTPEndpoint(host: "127.0.0.1", port: server.port, basePath: "/base"))
        let get = try client.get("/x?q=a%20b", headers: [("Authorization", "Bearer t")])
        #expect(get.status == 201)
        #expect(get.text == "GET /base/x q=a b auth=Bearer t body=\n")
        let put = try client.request("PUT", "/y", body: Array(#"{"level":"debug"}"#.utf8))
        #expect(put.text == #"PUT /base/y q=- auth=- body={"level":"debug"}"# + "\n")
    }

    @Test func streamHandsOverTheBodyOrReturnsAnError() throws {
        let server = try EventLoopServer(HTTPListenerConfiguration(host: "127.0.0.1", port: 0)) { request in
            request.path == "/ok" ? .text(200, "streamed body") : .text(401, "no")
        }
        defer { server.stop() }
        let client = HTTPClient(HTTPEndpoint(host: "127.0.0.1", port: server.port))
        var received: [UInt8] = []
        let ok = try client.stream("/ok") { received += $0; return true }
        #expect(ok.status == 200 && String(decoding: received, as: UTF8.self) == "streamed body\n")
        received = []
        let denied = try client.stream("/other") { received += $0; return true }
        #expect(denied.status == 401 && denied.text == "no\n" && received.isEmpty)
    }

    @Test func nobodyListeningIsConnectionRefused() throws {
        // Bind a port, then close it: nothing listens there afterwards.
        let port = try Self.withListener { port, _ in port }
        var caught: HTTPClientError?
        do throws(HTTPClientError) {
            _ = try HTTPClient(HTTPEndpoint(host: "127.0.0.1", port: port)).get("/")
        } catch {
            caught = error
        }
        let error = try #require(caught)
        #expect(error.isConnectionRefused)
        #expect(error.description == "connect to 127.0.0.1:\(port): Connection refused (errno 111)")
    }

    @Test func aPeerThatNeverAnswersTimesOut() throws {
        // A listening socket that never accepts: the kernel completes the handshake, nobody reads.
        try Self.withListener { port, _ in
            let started = Self.seconds()
            var caught: HTTPClientError?
            do throws(HTTPClientError) {
                _ = try HTTPClient(HTTPEndpoint(host: "127.0.0.1", port: port), timeoutSeconds: 0.3).get("/")
            } catch {
                caught = error
            }
            let elapsed = Self.seconds() - started
            #expect(caught?.isTimeout == true, "\(String(describing: caught))")
            #expect(elapsed >= 0.29 && elapsed < 3, "\(elapsed)")
        }
    }

    @Test func unresolvableHostIsAClearError() {
        do throws(HTTPClientError) {
            _ = try HTTPClient(HTTPEndpoint(host: "no-such-host.invalid", port: 80), timeoutSeconds: 2).get("/")
            Issue.record("resolved")
        } catch {
            #expect(error.operation == "resolve no-such-host.invalid")
        }
    }

    /// Runs `body` with a listening (never accepting) TCP socket on a loopback port.
    static func withListener<T>(_ body: (UInt16, Int32) throws -> T) throws -> T {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 4) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        try #require(bound, "bind/listen: errno \(errno)")
        return try body(UInt16(bigEndian: address.sin_port), fd)
    }

    static func seconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
