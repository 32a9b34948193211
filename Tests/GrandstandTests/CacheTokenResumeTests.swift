import Foundation
import GrandstandCore
import TestSupport
import Testing
@testable import GrandstandServices

/// The per-item token hook survives a restart: the journal keeps an item's headers and query,
/// so the download resumed by the next cache (a restarted daemon) still sends them. The origin's
/// `token/` path refuses requests without them (403 → http-error).
@Suite(.serialized) struct CacheTokenResumeTests {
    @Test func aResumeAfterARestartStillSendsThePerItemToken() throws {
        let origin = try CacheOrigin()
        defer { origin.stop() }
        let clip = cacheTestBytes(200_000, seed: 7)
        try origin.media("clip.bin", clip)
        try origin.metadata("tok-1", """
            {"files":[{"url":"stall/token/clip.bin","path":"clip.bin","size":\(clip.count),"sha256":"\(SHA256.hex(clip))"}]}
            """)
        let config = origin.cacheConfig(timeout: 2, attempts: 2)
        let first = try ContentCache(config)
        defer { first.removeDirectory() }
        try first.start()
        _ = try first.add(.init(id: "tok-1", headers: ["X-Item-Token": "t-42"], query: "item=42"))
        try waitFor("the origin to stall after half of the clip", timeout: 30) {
            origin.requests.contains { $0.hasPrefix("/media/stall/token/clip.bin - ") }
        }
        try waitFor("the first half in the partial file", timeout: 30) {   // counted after each write
            first.policyStatus()["downloadedTodayBytes"] == .number(Double(clip.count / 2))
        }
        first.stop()      // the daemon stops mid-download: the item stays `downloading` in the journal
        #expect(first.item("tok-1")?.state == .downloading)
        #expect(first.item("tok-1")?.json["token"] == nil, "the API form never shows the token")

        let second = try ContentCache(config)
        defer { second.stop() }
        try second.start()
        let item = try second.waitForItem("tok-1", [.cached, .failed])
        #expect(item.state == .cached, "\(item.error?.rawValue ?? "") \(item.errorDetail ?? "")")
        let (_, file, path) = try #require(second.file("tok-1", path: "clip.bin"))
        #expect(file.sha256 == SHA256.hex(clip))
        #expect(FileManager.default.contents(atPath: path).map(Array.init) == clip)
        let media = origin.requests.filter { $0.hasPrefix("/media/stall/token/clip.bin") }
        #expect(media.count == 2, "\(media)")
        #expect(media.last?.contains("bytes=100000-") == true, "resumed with Range: \(media)")
        #expect(media.allSatisfy { $0.contains(" item=42 ") && $0.contains(" t-42 ") }, "every request carried the item's token: \(media)")
    }
}
