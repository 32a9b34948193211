import Foundation
import GrandstandCore
import HTTPServer
import TestSupport
import Testing
@testable import GrandstandServices

/// Download-to-go against a local origin (tools/cache-origin/origin.py): states, Range resume,
/// hash checks, the token hook, and every origin failure mapped to its documented error code.
@Suite(.serialized) struct CachePrefetchTests {
    @Test func aProgressiveFileResumesWithRangeAndVerifies() throws {
        let origin = try CacheOrigin()
        defer { origin.stop() }
        let clip = cacheTestBytes(300_000)
        try origin.media("clip.bin", clip)
        try origin.metadata("goal-1", """
            {"category":"replay","files":[{"url":"cut/clip.bin","path":"clip.bin","size":\(clip.count),"sha256":"\(SHA256.hex(clip))"}]}
            """)
        var config = origin.cacheConfig()
        config.origin?.headers = ["X-Token": "venue-secret"]
        config.origin?.query = "sig=abc"
        let cache = try ContentCache(config)
        defer { cache.stop(); cache.removeDirectory() }
        try cache.start()
        _ = try cache.add(.init(id: "goal-1", query: "item=1"))
        let item = try cache.waitForItem("goal-1", [.cached, .failed])
        #expect(item.state == .cached, "\(item.errorDetail ?? "")")
        #expect(item.category == "replay")
        #expect(item.expectedBytes == clip.count)
        let (_, file, path) = try #require(cache.file("goal-1", path: "clip.bin"))
        #expect(file.sha256 == SHA256.hex(clip))
        #expect(FileManager.default.contents(atPath: path).map(Array.init) == clip)
        let media = origin.requests.filter { $0.hasPrefix("/media/cut/clip.bin") }
        #expect(media.count == 2)
        #expect(media.last?.contains("bytes=150000-") == true, "\(media)")
        #expect(origin.requests.count == 3)
        #expect(origin.requests.allSatisfy { $0.contains(" venue-secret ") && $0.contains(" sig=abc&item=1 ") }, "\(origin.requests)")
        #expect(cache.policyStatus()["downloadedTodayBytes"] == .number(Double(clip.count)))
    }

    /// One origin failure per case, with the code docs/cache.md promises for it.
    enum Failure: String, CaseIterable, Sendable {
        case unknownContentID, metadata500, media404, media500, truncated, silent, wrongHash, nobodyListening
    }

    @Test(arguments: Failure.allCases)
    func originFailuresMapToTheirErrorCodes(_ failure: Failure) throws {
        let origin = try CacheOrigin()
        defer { origin.stop() }
        let clip = cacheTestBytes(20_000)
        try origin.media("clip.bin", clip)
        let id = failure == .metadata500 ? "boom" : "item-\(failure.rawValue)"
        func files(_ url: String, sha: String = SHA256.hex(clip)) throws {
            try origin.metadata(id, "{\"files\":[{\"url\":\"\(url)\",\"sha256\":\"\(sha)\"}]}")
        }
        let expected: CacheErrorCode
        var config = origin.cacheConfig(timeout: 1, attempts: 2)
        switch failure {
        case .unknownContentID: expected = .contentIDDoesNotExist
        case .metadata500: expected = .httpError
        case .media404: expected = .httpError; try files("nothing-here.bin")
        case .media500: expected = .httpError; try files("err500/clip.bin")
        case .truncated: expected = .itemCorrupted; try files("trunc/clip.bin")
        case .silent: expected = .timeout; try files("slow/clip.bin")
        case .wrongHash: expected = .itemCorrupted; try files("clip.bin", sha: String(repeating: "0", count: 64))
        case .nobodyListening:
            expected = .noNetwork
            config.origin?.metadataURL = "http://127.0.0.1:1/meta"
        }
        let cache = try ContentCache(config)
        defer { cache.stop(); cache.removeDirectory() }
        try cache.start()
        _ = try cache.add(.init(id: id))
        // An unknown content id is not a failed download: it stays metadata-not-received with its code.
        let unknown = failure == .unknownContentID
        if unknown { try waitFor("the unknown id's code", timeout: 60) { cache.item(id)?.error != nil } }
        let item = unknown ? try #require(cache.item(id)) : try cache.waitForItem(id, [.cached, .failed])
        #expect(item.state == (unknown ? .metadataNotReceived : .failed))
        #expect(item.error == expected, "\(item.errorDetail ?? "")")
        #expect(cache.file(id, path: "clip.bin") == nil)
        if failure == .media500 || failure == .metadata500 {
            // Retried with backoff before giving up (attempts: 2).
            #expect(origin.requests.filter { $0.contains("err500") || $0.contains("boom") }.count == 2)
        }
    }

    @Test func aFlaky503IsRetried() throws {
        let origin = try CacheOrigin()
        defer { origin.stop() }
        let clip = cacheTestBytes(5000)
        try origin.media("clip.bin", clip)
        try origin.metadata("flaky", "{\"files\":[{\"url\":\"flaky/clip.bin\",\"size\":5000}]}")
        let cache = try ContentCache(origin.cacheConfig())
        defer { cache.stop(); cache.removeDirectory() }
        try cache.start()
        _ = try cache.add(.init(id: "flaky"))
        #expect(try cache.waitForItem("flaky", [.cached, .failed]).state == .cached)
        #expect(origin.requests.filter { $0.hasPrefix("/media/flaky/clip.bin") }.count == 2)
    }

    @Test func pauseResumeAndCancel() throws {
        let origin = try CacheOrigin()
        defer { origin.stop() }
        try origin.media("clip.bin", cacheTestBytes(5000))
        try origin.metadata("held", "{\"files\":[{\"url\":\"slow/clip.bin\"}]}")
        let cache = try ContentCache(origin.cacheConfig(timeout: 4, attempts: 1))
        defer { cache.stop(); cache.removeDirectory() }
        try cache.start()
        _ = try cache.add(.init(id: "held"))
        _ = try cache.waitForItem("held", [.downloading])
        #expect(try cache.pause("held")?.state == .paused)
        #expect(try cache.resume("held")?.state == .queued)
        _ = try cache.waitForItem("held", [.downloading])
        let cancelled = try cache.cancel("held")
        #expect(cancelled?.state == .failed)
        #expect(cancelled?.error == .cancelled)
        #expect(thrownError(IllegalCacheTransition.self) { try cache.pause("held") }?.to == .paused)
    }

    @Test func outsidePermittedHoursItemsWaitIdle() throws {
        let origin = try CacheOrigin()
        defer { origin.stop() }
        try origin.media("clip.bin", cacheTestBytes(100))
        try origin.metadata("night", "{\"files\":[{\"url\":\"clip.bin\"}]}")
        var config = origin.cacheConfig()
        let hour = Int(Date().timeIntervalSince1970) / 3600 % 24
        let later = (hour + 2) % 24, after = (hour + 3) % 24
        config.policy.permittedHours = [try #require(.init(String(format: "%02d:00-%02d:00", later, after)))]
        let cache = try ContentCache(config)
        defer { cache.stop(); cache.removeDirectory() }
        try cache.start()
        _ = try cache.add(.init(id: "night"))
        let item = try cache.waitForItem("night", [.idle])
        #expect(item.state == .idle)
        #expect(cache.policyStatus()["blocked"] == .array([.string("outside-permitted-hours")]))
        #expect(cache.file("night", path: "clip.bin") == nil)
    }
}
