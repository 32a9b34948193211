import CurlHTTP
import Foundation
import GrandstandRuntime
import TestSupport
import Testing

/// The libcurl adapter against a real HTTPS origin: Debian's nginx in a network namespace with
/// a CA made by openssl for the test (`HTTPSOrigin`).
@Suite(.serialized) struct OriginTLSTests {
    static let small = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
    static let big = (0..<600_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ ($0 >> 9)) }

    func origin() throws -> HTTPSOrigin {
        let origin = try HTTPSOrigin()
        try origin.file("files/small.bin", Self.small)
        try origin.file("files/big.bin", Self.big)
        return origin
    }

    func client(_ origin: HTTPSOrigin, _ change: (inout CurlOptions) -> Void = { _ in }) -> CurlClient {
        var options = CurlOptions()
        options.caFile = origin.caFile
        options.connectTimeoutSeconds = 10
        options.idleTimeoutSeconds = 10
        change(&options)
        return CurlClient(options)
    }

    @Test func fetchesOverHTTPSWithTheConfiguredCA() throws {
        let origin = try origin()
        let response = try origin.enter { try client(origin).perform(CurlRequest(url: origin.url("files/small.bin"))) }
        #expect(response.status == 200)
        #expect(response.body == Self.small)
        #expect(response.headers["content-length"] == "\(Self.small.count)")
        #expect(response.head.validator != nil, "nginx sends an ETag")
    }

    @Test func theSystemStoreDoesNotTrustTheTestCA() throws {
        let origin = try origin()
        let error = try #require(thrownError(CurlError.self) { try origin.enter { try client(origin) { $0.caFile = nil }.perform(CurlRequest(url: origin.url("files/small.bin"))) } })
        #expect(error.kind == .certificateUntrusted, "\(error)")
        #expect(error.description.contains("not signed by a trusted CA"), "\(error)")
    }

    @Test func anExpiredCertificateIsRefusedWithAClearError() throws {
        let origin = try origin()
        let error = try #require(thrownError(CurlError.self) {
            try origin.enter { try client(origin).perform(CurlRequest(url: origin.url("files/small.bin", port: HTTPSOrigin.expiredPort))) }
        })
        #expect(error.kind == .certificateExpired, "\(error)")
        #expect(error.code == 60)
        #expect(error.description.contains("the origin's certificate has expired"), "\(error)")
        #expect(error.description.contains("GET https://127.0.0.1:\(HTTPSOrigin.expiredPort)/files/small.bin"), "\(error)")
    }

    @Test func aCertificateForAnotherHostIsRefusedWithAClearError() throws {
        let origin = try origin()
        let error = try #require(thrownError(CurlError.self) {
            try origin.enter { try client(origin).perform(CurlRequest(url: origin.url("files/small.bin", port: HTTPSOrigin.wrongHostPort))) }
        })
        #expect(error.kind == .certificateWrongHost, "\(error)")
        #expect(error.description.contains("certificate is for another host name"), "\(error)")
    }

    @Test func aPinnedPublicKeyMustMatch() throws {
        let origin = try origin()
        let pin = try origin.authority.publicKeyPin(origin.certificate)
        let ok = try origin.enter { try client(origin) { $0.pinnedPublicKey = pin }.perform(CurlRequest(url: origin.url("files/small.bin"))) }
        #expect(ok.body == Self.small)
        let other = try origin.authority.publicKeyPin(origin.authority.caFile)
        let error = try #require(thrownError(CurlError.self) {
            try origin.enter { try client(origin) { $0.pinnedPublicKey = other }.perform(CurlRequest(url: origin.url("files/small.bin"))) }
        })
        #expect(error.kind == .pinnedKeyMismatch, "\(error)")
        #expect(error.code == 90)
    }

    @Test func redirectsAreFollowedUpToTheLimit() throws {
        let origin = try origin()
        let followed = try origin.enter { try client(origin).perform(CurlRequest(url: origin.url("hop1"))) }
        #expect(followed.status == 200)
        #expect(followed.body == Self.small)
        #expect(followed.head.redirects == 3)
        #expect(followed.head.url.hasSuffix("/files/small.bin"))

        let limited = try #require(thrownError(CurlError.self) {
            try origin.enter { try client(origin) { $0.maxRedirects = 2 }.perform(CurlRequest(url: origin.url("hop1"))) }
        })
        #expect(limited.kind == .tooManyRedirects, "\(limited)")

        let endless = try #require(thrownError(CurlError.self) { try origin.enter { try client(origin).perform(CurlRequest(url: origin.url("loop"))) } })
        #expect(endless.kind == .tooManyRedirects, "\(endless)")
        #expect(endless.description.contains("too many redirects"), "\(endless)")

        // An https request is never handed to plain http by a redirect.
        let downgrade = thrownError(CurlError.self) { try origin.enter { try client(origin).perform(CurlRequest(url: origin.url("to-http"))) } }
        #expect(downgrade != nil)
        #expect(!origin.accessLog.contains { $0.contains("\"GET /files/small.bin") && $0.contains("HTTP/1.1\" 200") && $0.contains("plain") })
    }

    @Test func http2IsNegotiatedWhenTheOriginOffersIt() throws {
        let origin = try origin()
        let (offered, notOffered, declined) = try origin.enter {
            (try client(origin).perform(CurlRequest(url: origin.url("files/small.bin"))),
             try client(origin).perform(CurlRequest(url: origin.url("files/small.bin", port: HTTPSOrigin.http1Port))),
             try client(origin) { $0.http2 = false }.perform(CurlRequest(url: origin.url("files/small.bin"))))
        }
        #expect(CurlClient.supportsHTTP2)
        #expect(offered.head.httpVersion == "2")
        #expect(notOffered.head.httpVersion == "1.1")
        #expect(declined.head.httpVersion == "1.1")
        #expect(offered.body == Self.small && notOffered.body == Self.small && declined.body == Self.small)
        #expect(origin.accessLog.contains { $0.contains("HTTP/2.0\" 200") }, "\(origin.accessLog)")
    }

    /// A download ended after part of the body resumes with Range + If-Range: 206 and the rest,
    /// identical bytes; a stale validator makes the origin send the whole file again (200).
    @Test func aResumeWithRangeAndIfRangeGivesIdenticalBytes() throws {
        let origin = try origin()
        var first: [UInt8] = []
        let client = client(origin)
        let partial = try origin.enter {
            try client.stream(CurlRequest(url: origin.url("slow/big.bin")), head: { $0.status == 200 }) { chunk in
                first.append(contentsOf: chunk)
                return first.count < 100_000
            }
        }
        #expect(!partial.complete)
        #expect(first.count >= 100_000 && first.count < Self.big.count)
        let validator = try #require(partial.head.validator)
        var resume = CurlRequest(url: origin.url("files/big.bin"))
        resume.resumeFrom = first.count
        resume.ifRange = validator
        let rest = try origin.enter { try client.perform(resume) }
        #expect(rest.status == 206)
        #expect(rest.headers["content-range"] == "bytes \(first.count)-\(Self.big.count - 1)/\(Self.big.count)")
        #expect(first + rest.body == Self.big)

        resume.ifRange = "\"stale\""
        let whole = try origin.enter { try client.perform(resume) }
        #expect(whole.status == 200)
        #expect(whole.body == Self.big)
    }

    /// A raised stop signal ends a running transfer within a poll (0.1 s), as a `stopped` error.
    @Test func aStopEndsARunningTransferPromptly() throws {
        let origin = try origin()
        let stop = StopSignal()
        var raisedAt: Int64 = 0
        let error = try #require(thrownError(CurlError.self) {
            try origin.enter {
                try client(origin).stream(CurlRequest(url: origin.url("slow/big.bin")), stop: stop, head: { _ in true }) { _ in
                    if !stop.isRaised { stop.raise(); raisedAt = SystemClock().monotonicNanoseconds() }
                    return true
                }
            }
        })
        let elapsed = SystemClock().monotonicNanoseconds() - raisedAt
        #expect(error.kind == .stopped, "\(error)")
        #expect(elapsed < 1_000_000_000, "stopped \(elapsed / 1_000_000) ms after the signal")
    }

    @Test func refusedAndUnresolvedOriginsSayWhy() throws {
        let origin = try origin()
        let refused = try #require(thrownError(CurlError.self) { try origin.enter { try client(origin).perform(CurlRequest(url: "https://127.0.0.1:9/x")) } })
        #expect(refused.kind == .connectionRefused, "\(refused)")
        #expect(refused.errno == ECONNREFUSED)
        let bad = try #require(thrownError(CurlError.self) { try client(origin).perform(CurlRequest(url: "ftp://127.0.0.1/x")) })
        #expect(bad.kind == .badURL)
    }
}

@Suite struct BackoffTests {
    @Test func delaysDoubleUpToTheCap() {
        let backoff = Backoff(initialNanoseconds: 500_000_000, maxNanoseconds: 4_000_000_000)
        #expect((1...6).map { backoff.delay(afterAttempt: $0) } == [500_000_000, 1_000_000_000, 2_000_000_000, 4_000_000_000, 4_000_000_000, 4_000_000_000])
        #expect(Backoff().delay(afterAttempt: 40) == 30_000_000_000)
    }

    @Test func aRaisedStopEndsTheWaitAtOnce() {
        let stop = StopSignal()
        stop.raise()
        let clock = SystemClock()
        let start = clock.monotonicNanoseconds()
        #expect(Backoff().wait(afterAttempt: 10, clock: clock, stop: stop))
        #expect(clock.monotonicNanoseconds() - start < 100_000_000)
    }
}

/// The configured proxy carries origin requests (HTTPS through CONNECT); a proxy that is not
/// there fails the request as a proxy problem, and the environment's proxy is never used.
@Suite(.serialized) struct OriginProxyTests {
    @Test func httpsGoesThroughTheConfiguredProxyWithCONNECT() throws {
        let origin = try HTTPSOrigin()
        try origin.file("files/small.bin", OriginTLSTests.small)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("tools/cache-origin/connect-proxy.py").path
        let portFile = origin.directory + "/proxy.port", log = origin.directory + "/proxy.log"
        let proxy = Process()
        proxy.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        proxy.arguments = ["ip", "netns", "exec", origin.namespace.name, "python3", script, portFile, log]
        try proxy.run()
        defer { kill(proxy.processIdentifier, SIGKILL); proxy.waitUntilExit() }
        var port: Int?
        try waitFor("the proxy's port file", timeout: 30) {
            port = (try? String(contentsOfFile: portFile, encoding: .utf8)).flatMap { Int($0) }
            return port != nil || !proxy.isRunning
        }
        let proxyPort = try #require(port)
        var options = CurlOptions()
        options.caFile = origin.caFile
        options.proxy = "http://127.0.0.1:\(proxyPort)"
        let response = try origin.enter { try CurlClient(options).perform(CurlRequest(url: origin.url("files/small.bin"))) }
        #expect(response.body == OriginTLSTests.small)
        let lines = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(lines.contains("CONNECT 127.0.0.1:\(HTTPSOrigin.port) HTTP/1.1"), "\(lines)")

        options.proxy = "http://127.0.0.1:9"
        let error = try #require(thrownError(CurlError.self) {
            try origin.enter { try CurlClient(options).perform(CurlRequest(url: origin.url("files/small.bin"))) }
        })
        #expect([.proxy, .connectionRefused].contains(error.kind), "\(error)")
    }
}

@Suite struct HeadTimeoutTests {
    /// A peer that accepts the connection and never answers: `headTimeoutSeconds` ends the wait
    /// (a log follow has no idle timeout, but its head must come).
    @Test func aPeerThatNeverAnswersTimesOutOnTheHead() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(0x7f00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 4) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        #expect(bound)
        var options = CurlOptions()
        options.idleTimeoutSeconds = nil
        options.headTimeoutSeconds = 0.5
        let start = SystemClock().monotonicNanoseconds()
        let error = try #require(thrownError(CurlError.self) {
            try CurlClient(options).stream(CurlRequest(url: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))/follow"),
                                           head: { _ in true }) { _ in true }
        })
        #expect(error.kind == .timeout, "\(error)")
        #expect(SystemClock().monotonicNanoseconds() - start < 5_000_000_000)
    }
}
