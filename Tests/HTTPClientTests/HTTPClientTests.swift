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

    @Test func responsesParseWithLengthOrChunks() throws {
        let sized = HTTPClientResponse.parse(Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A:  b \r\n\r\nhello".utf8))
        #expect(sized == HTTPClientResponse(status: 200, headers: ["content-length": "5", "x-a": "b"], body: Array("hello".utf8)))
        let chunked = try #require(HTTPClientResponse.parse(Array(
            "HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\nwiki\r\n6\r\npedia \r\n0\r\n\r\n".utf8)))
        #expect(chunked.status == 404 && chunked.text == "wikipedia ")
        #expect(HTTPClientResponse.parse(Array("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort".utf8)) == nil)
        #expect(HTTPClientResponse.parse(Array("SSH-2.0-OpenSSH\r\n\r\n".utf8)) == nil)
        #expect(HTTPClientResponse.parse(Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nwi".utf8)) == nil)
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

struct ChunkedDecoderTests {
    @Test func decodesInAnyChunking() {
        let wire = Array("4;ext=1\r\nwiki\r\n6\r\npedia \r\n0\r\nTrailer: x\r\n\r\n".utf8)
        for size in [1, 3, wire.count] {
            var decoder = ChunkedDecoder()
            var body: [UInt8] = []
            var index = 0
            while index < wire.count {
                body += decoder.feed(wire[index..<min(index + size, wire.count)]) ?? Array("<error>".utf8)
                index += size
            }
            #expect(String(decoding: body, as: UTF8.self) == "wikipedia ", "chunk size \(size)")
            #expect(decoder.isDone)
        }
        var bad = ChunkedDecoder()
        #expect(bad.feed(Array("zz\r\n".utf8)[...]) == nil)
        var open = ChunkedDecoder()
        #expect(open.feed(Array("3\r\nabc\r\n".utf8)[...]) == Array("abc".utf8))
        #expect(!open.isDone)
    }
}
