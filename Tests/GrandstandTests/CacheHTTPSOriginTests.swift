import Foundation
import GrandstandCore
import TestSupport
import Testing
@testable import GrandstandServices

/// Download-to-go from real HTTPS origins in a network namespace, through libcurl: Debian's nginx
/// (HTTP/2, a CA made by openssl for the test) and tools/cache-origin/origin.py over TLS where
/// the origin must misbehave (a connection cut mid-file). The cache's threads start inside the
/// namespace, so every request they make goes there.
@Suite(.serialized) struct CacheHTTPSOriginTests {
    static let clip = cacheTestBytes(400_000, seed: 9)

    func config(metadataURL: String, caFile: String) -> GatewayConfig.Cache {
        var cache = GatewayConfig.Cache(directory: NSTemporaryDirectory() + "gs-cache-\(UUID().uuidString)")
        var origin = GatewayConfig.Origin(metadataURL: metadataURL)
        origin.caFile = caFile
        origin.timeoutSeconds = 5
        origin.attempts = 3
        cache.origin = origin
        return cache
    }

    @Test func prefetchesFromAnNginxOriginOverHTTPSAndHTTP2() throws {
        let origin = try HTTPSOrigin()
        defer { origin.stop() }
        try origin.file("media/clip.bin", Self.clip)
        try origin.file("meta/https-1", Array("""
            {"category":"replay","files":[{"url":"/media/clip.bin","path":"clip.bin","size":\(Self.clip.count),"sha256":"\(SHA256.hex(Self.clip))"}]}
            """.utf8))
        var config = config(metadataURL: origin.url("meta"), caFile: origin.caFile)
        config.origin?.pinnedPublicKey = try origin.authority.publicKeyPin(origin.certificate)
        config.origin?.headers = ["X-Token": "venue-secret"]
        let cache = try ContentCache(config)
        defer { cache.stop(); cache.removeDirectory() }
        try origin.enter {
            try cache.start()
            _ = try cache.add(.init(id: "https-1", query: "item=1"))
        }
        let item = try cache.waitForItem("https-1", [.cached, .failed])
        #expect(item.state == .cached, "\(item.error?.rawValue ?? "") \(item.errorDetail ?? "")")
        let (_, file, path) = try #require(cache.file("https-1", path: "clip.bin"))
        #expect(file.sha256 == SHA256.hex(Self.clip))
        #expect(FileManager.default.contents(atPath: path).map(Array.init) == Self.clip)
        let log = origin.accessLog
        #expect(log.contains { $0.contains("GET /meta/https-1?item=1 HTTP/2.0\" 200") }, "\(log)")
        #expect(log.contains { $0.contains("GET /media/clip.bin?item=1 HTTP/2.0\" 200") }, "\(log)")
    }

    @Test(arguments: [(HTTPSOrigin.expiredPort, "the origin's certificate has expired"),
                      (HTTPSOrigin.wrongHostPort, "the origin's certificate is for another host name")])
    func aBadOriginCertificateFailsTheItemAtOnceWithAClearError(port: Int, words: String) throws {
        let origin = try HTTPSOrigin()
        defer { origin.stop() }
        try origin.file("meta/bad-cert", Array("{\"files\":[{\"url\":\"/media/x.bin\"}]}".utf8))
        var config = config(metadataURL: origin.url("meta", port: port), caFile: origin.caFile)
        config.origin?.attempts = 10   // not retried: 9 backoffs would take over 4 minutes
        let cache = try ContentCache(config)
        defer { cache.stop(); cache.removeDirectory() }
        try origin.enter {
            try cache.start()
            _ = try cache.add(.init(id: "bad-cert"))
        }
        let item = try cache.waitForItem("bad-cert", [.cached, .failed], timeout: 30)
        #expect(item.state == .failed)
        #expect(item.error == .networkError)
        #expect(item.errorDetail?.contains(words) == true, "\(item.errorDetail ?? "")")
        #expect(item.errorDetail?.contains("curl 60") == true, "\(item.errorDetail ?? "")")
    }

    @Test func anEndlessRedirectFailsTheItem() throws {
        let origin = try HTTPSOrigin()
        defer { origin.stop() }
        let cache = try ContentCache(config(metadataURL: origin.url("loop"), caFile: origin.caFile))
        defer { cache.stop(); cache.removeDirectory() }
        try origin.enter {
            try cache.start()
            _ = try cache.add(.init(id: "x"))
        }
        let item = try cache.waitForItem("x", [.cached, .failed], timeout: 30)
        #expect(item.state == .failed)
        #expect(item.error == .httpError)
        #expect(item.errorDetail?.contains("too many redirects") == true, "\(item.errorDetail ?? "")")
    }

    /// The origin sends half of the file and cuts the TLS connection; the next attempt asks for
    /// the rest with Range and the stored file is byte-identical.
    @Test func anOriginThatDropsMidFileIsResumedWithRangeAndIdenticalBytes() throws {
        let namespace = try NetworkNamespace(prefix: "gs-cut")
        let authority = try TestCertificateAuthority()
        let origin = try CacheOrigin(tls: try authority.issue("origin", subjectAltNames: ["IP:127.0.0.1"]), namespace: namespace)
        defer { origin.stop() }
        try origin.media("clip.bin", Self.clip)
        try origin.metadata("cut-1", """
            {"files":[{"url":"cut/clip.bin","path":"clip.bin","size":\(Self.clip.count),"sha256":"\(SHA256.hex(Self.clip))"}]}
            """)
        var config = origin.cacheConfig(timeout: 5, attempts: 3)
        config.origin?.caFile = authority.caFile
        let cache = try ContentCache(config)
        defer { cache.stop(); cache.removeDirectory() }
        try namespace.enter {
            try cache.start()
            _ = try cache.add(.init(id: "cut-1"))
        }
        let item = try cache.waitForItem("cut-1", [.cached, .failed])
        #expect(item.state == .cached, "\(item.error?.rawValue ?? "") \(item.errorDetail ?? "")")
        let (_, file, path) = try #require(cache.file("cut-1", path: "clip.bin"))
        #expect(file.sha256 == SHA256.hex(Self.clip))
        #expect(FileManager.default.contents(atPath: path).map(Array.init) == Self.clip)
        let media = origin.requests.filter { $0.hasPrefix("/media/cut/clip.bin") }
        #expect(media.count == 2, "\(media)")
        #expect(media.first?.contains(" - ") == true, "the first request asks for the whole file: \(media)")
        #expect(media.last?.contains("bytes=\(Self.clip.count / 2)-") == true, "resumed with Range: \(media)")
    }
}
