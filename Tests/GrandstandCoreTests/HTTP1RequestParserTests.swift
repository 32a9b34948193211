import GrandstandCore
import Testing

/// The sans-I/O request-head parser (RFC 9112): whole heads, byte by byte, odd splits, pipelined
/// requests, limits, and a table of bad inputs with their status.
struct HTTP1RequestParserTests {
    static let segmentGET = "GET /channels/cam/seg12.ts?_HLS_msn=3&x=a+b%20c HTTP/1.1\r\nHost: gw\r\nUser-Agent: t\r\nRange: bytes=0-99\r\n\r\n"

    /// Feeds `text` in pieces of `step` bytes; the outcomes once complete.
    static func feed(_ text: String, step: Int, limits: HTTP1RequestParser.Limits = .init()) -> [HTTP1RequestParser.Outcome] {
        var parser = HTTP1RequestParser(limits: limits)
        let all = Array(text.utf8)
        var buffer: [UInt8] = []
        var outcomes: [HTTP1RequestParser.Outcome] = []
        var offset = 0
        while offset < all.count {
            buffer.append(contentsOf: all[offset..<min(offset + step, all.count)])
            offset += step
            while true {
                let outcome = parser.parse(buffer)
                if case .head(_, let consumed) = outcome {
                    outcomes.append(outcome)
                    buffer.removeFirst(consumed)
                    continue
                }
                if case .failure = outcome { return outcomes + [outcome] }
                break
            }
        }
        return outcomes
    }

    static func head(_ text: String) throws -> HTTP1RequestHead {
        var parser = HTTP1RequestParser()
        let outcome = parser.parse(Array(text.utf8))
        guard case .head(let head, _) = outcome else { throw Failure(outcome: outcome) }
        return head
    }

    struct Failure: Error { let outcome: HTTP1RequestParser.Outcome }

    @Test func aWholeHeadIsParsed() throws {
        let head = try Self.head(Self.segmentGET)
        #expect(head.method == "GET")
        #expect(head.target == "/channels/cam/seg12.ts?_HLS_msn=3&x=a+b%20c")
        #expect(head.path == "/channels/cam/seg12.ts")
        #expect(head.query == ["_HLS_msn": "3", "x": "a b c"])
        #expect(head.headers == ["host": "gw", "user-agent": "t", "range": "bytes=0-99"])
        #expect(head.minorVersion == 1 && head.keepAlive && head.body == .none)
    }

    @Test(arguments: [1, 2, 3, 7, 50, 1000])
    func anySplitGivesTheSameHead(step: Int) throws {
        let whole = try Self.head(Self.segmentGET)
        let outcomes = Self.feed(Self.segmentGET, step: step)
        #expect(outcomes == [.head(whole, consumed: Self.segmentGET.utf8.count)])
    }

    @Test(arguments: [1, 5, 4096])
    func pipelinedRequestsComeOutInOrder(step: Int) {
        let text = "GET /a HTTP/1.1\r\nHost: x\r\n\r\nHEAD /b HTTP/1.1\r\nHost: x\r\n\r\nGET /c HTTP/1.0\r\n\r\n"
        let paths = Self.feed(text, step: step).compactMap { outcome -> String? in
            if case .head(let head, _) = outcome { return "\(head.method) \(head.path) \(head.keepAlive)" }
            return nil
        }
        #expect(paths == ["GET /a true", "HEAD /b true", "GET /c false"])
    }

    @Test func bareLineFeedsAndLeadingEmptyLinesAreAccepted() throws {
        let head = try Self.head("\r\n\nGET /x HTTP/1.1\nHost: a\nConnection: keep-alive, close\n\n")
        #expect(head.path == "/x" && head.headers["host"] == "a" && !head.keepAlive)
    }

    @Test func keepAliveFollowsTheVersionAndConnection() throws {
        #expect(try Self.head("GET / HTTP/1.0\r\n\r\n").keepAlive == false)
        #expect(try Self.head("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n").keepAlive == true)
        #expect(try Self.head("GET / HTTP/1.1\r\nHost: a\r\n\r\n").keepAlive == true)
        #expect(try Self.head("GET / HTTP/1.1\r\nHost: a\r\nConnection: Close\r\n\r\n").keepAlive == false)
        #expect(try Self.head("GET / HTTP/1.9\r\nHost: a\r\n\r\n").minorVersion == 1)
    }

    @Test func repeatedFieldsAreJoinedAndNamesLowercased() throws {
        let head = try Self.head("GET / HTTP/1.1\r\nHOST: a\r\nAccept: x\r\naccept:  y \t\r\n\r\n")
        #expect(head.headers == ["host": "a", "accept": "x, y"])
    }

    @Test func bodyFraming() throws {
        #expect(try Self.head("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 12\r\n\r\n").body == .length(12))
        #expect(try Self.head("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 5\r\n\r\n").body == .length(5))
        #expect(try Self.head("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n").body == .none)
        #expect(try Self.head("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, Chunked\r\n\r\n").body == .chunked)
    }

    @Test func targetForms() throws {
        let absolute = try Self.head("GET http://gw:8080/channels.json?a=1 HTTP/1.1\r\nHost: gw\r\n\r\n")
        #expect(absolute.path == "/channels.json" && absolute.query == ["a": "1"])
        #expect(try Self.head("GET http://gw HTTP/1.1\r\nHost: gw\r\n\r\n").path == "/")
        #expect(try Self.head("OPTIONS * HTTP/1.1\r\nHost: gw\r\n\r\n").path == "*")
        #expect(try Self.head("GET /a%20b/%C3%A9?q&=z&k=%26 HTTP/1.1\r\nHost: gw\r\n\r\n").path == "/a b/é")
        #expect(try Self.head("GET /a?q&=z&k=%26 HTTP/1.1\r\nHost: gw\r\n\r\n").query == ["q": "", "k": "&"])
    }

    static let bad: [(String, HTTP1ParseError)] = [
        ("GET\r\n\r\n", .badRequestLine),
        ("GET /\r\n\r\n", .badRequestLine),
        ("GET  / HTTP/1.1\r\nHost: a\r\n\r\n", .badRequestLine),
        ("G(T / HTTP/1.1\r\nHost: a\r\n\r\n", .badRequestLine),
        ("GET /a\u{01}b HTTP/1.1\r\nHost: a\r\n\r\n", .badRequestLine),
        ("GET / HTTP/1.1 \r\nHost: a\r\n\r\n", .badRequestLine),
        ("GET / HTTX/1.1\r\nHost: a\r\n\r\n", .badVersion),
        ("GET / HTTP/11\r\nHost: a\r\n\r\n", .badVersion),
        ("GET / HTTP/2.0\r\nHost: a\r\n\r\n", .unsupportedVersion),
        ("GET / HTTP/0.9\r\n\r\n", .unsupportedVersion),
        ("GET / HTTP/1.1\r\n\r\n", .missingHost),
        ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", .missingHost),
        ("GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n", .obsoleteLineFolding),
        ("GET / HTTP/1.1\r\nHost : a\r\n\r\n", .badHeaderField),
        ("GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n", .badHeaderField),
        ("GET / HTTP/1.1\r\nHost: a\r\n: empty\r\n\r\n", .badHeaderField),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: a\rb\r\n\r\n", .badHeaderField),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: a\u{00}b\r\n\r\n", .badHeaderField),
        ("GET /../etc/passwd HTTP/1.1\r\nHost: a\r\n\r\n", .badTarget),
        ("GET /a/%2e%2e/b HTTP/1.1\r\nHost: a\r\n\r\n", .badTarget),
        ("GET /a/..%2fb HTTP/1.1\r\nHost: a\r\n\r\n", .badTarget),
        ("GET /a%00.jpg HTTP/1.1\r\nHost: a\r\n\r\n", .badTarget),
        ("GET /a%zz HTTP/1.1\r\nHost: a\r\n\r\n", .badTarget),
        ("GET /a%2 HTTP/1.1\r\nHost: a\r\n\r\n", .badTarget),
        ("GET /a%ff HTTP/1.1\r\nHost: a\r\n\r\n", .badTarget),
        ("GET /a?x=%00 HTTP/1.1\r\nHost: a\r\n\r\n", .badTarget),
        ("GET /a#frag HTTP/1.1\r\nHost: a\r\n\r\n", .badTarget),
        ("GET * HTTP/1.1\r\nHost: a\r\n\r\n", .badTarget),
        ("GET a/b HTTP/1.1\r\nHost: a\r\n\r\n", .badTarget),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", .badContentLength),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1, 2\r\n\r\n", .badContentLength),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999\r\n\r\n", .badContentLength),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", .badContentLength),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", .badTransferEncoding),
        ("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", .badTransferEncoding),
    ]

    @Test(arguments: bad)
    func badHeadsAreRefusedWithTheirError(text: String, expected: HTTP1ParseError) {
        var parser = HTTP1RequestParser()
        #expect(parser.parse(Array(text.utf8)) == .failure(expected), "\(text.debugDescription)")
        // The same byte by byte.
        #expect(Self.feed(text, step: 1).last == .failure(expected), "\(text.debugDescription)")
    }

    @Test func statusesOfTheErrors() {
        #expect(HTTP1ParseError.badRequestLine.status == 400)
        #expect(HTTP1ParseError.targetTooLong.status == 414)
        #expect(HTTP1ParseError.headersTooLarge.status == 431)
        #expect(HTTP1ParseError.unsupportedVersion.status == 505)
        #expect(HTTP1ParseError.badTransferEncoding.status == 501)
    }

    @Test func limitsGive414And431EvenBeforeTheHeadEnds() {
        var limits = HTTP1RequestParser.Limits()
        limits.maxHeadBytes = 4096
        limits.maxTargetBytes = 1024
        let longTarget = "GET /" + String(repeating: "a", count: 2000) + " HTTP/1.1\r\nHost: a\r\n\r\n"
        #expect(Self.feed(longTarget, step: 4096, limits: limits).last == .failure(.targetTooLong))
        // Still no line end: refused once past the limit, not after the whole head.
        var parser = HTTP1RequestParser(limits: limits)
        #expect(parser.parse(Array(("GET /" + String(repeating: "a", count: 1100)).utf8)) == .failure(.targetTooLong))
        let bigHeaders = "GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "b", count: 5000) + "\r\n\r\n"
        #expect(Self.feed(bigHeaders, step: 4096, limits: limits).last == .failure(.headersTooLarge))
        var endless = HTTP1RequestParser(limits: limits)
        let noEnd = "GET / HTTP/1.1\r\n" + String(repeating: "X-A: b\r\n", count: 600)
        #expect(endless.parse(Array(noEnd.utf8)) == .failure(.headersTooLarge))
        // A target just under the limit is fine.
        let fits = "GET /" + String(repeating: "a", count: 1000) + " HTTP/1.1\r\nHost: a\r\n\r\n"
        #expect(Self.feed(fits, step: 100, limits: limits).count == 1)
    }

    @Test func anIncompleteHeadAsksForMore() {
        var parser = HTTP1RequestParser()
        #expect(parser.parse(Array("GET / HTTP/1.1\r\nHost: a\r\n".utf8)) == .incomplete)
        #expect(parser.parse(Array("GET / HTTP/1.1\r\nHost: a\r\n\r".utf8)) == .incomplete)
        #expect(parser.parse([]) == .incomplete)
        #expect(parser.parse(Array("\r\n\r\n".utf8)) == .incomplete)
    }
}
