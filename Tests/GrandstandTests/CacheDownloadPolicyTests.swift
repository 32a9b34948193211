import Foundation
import GrandstandCore
import TestSupport
import Testing
@testable import GrandstandIngest
@testable import GrandstandServices

/// The download-to-go SDK's download policies against a local origin: `itemDownloadBehavior`
/// None (discovered, nothing fetched until asked) and ThumbnailOnly (only the thumbnail), a
/// request that downloads whatever the behavior, and auto-purge off (no eviction: refused).
@Suite(.serialized) struct CacheDownloadPolicyTests {
    static func origin() throws -> (CacheOrigin, [UInt8]) {
        let origin = try CacheOrigin()
        let clip = cacheTestBytes(50_000), thumbnail = cacheTestBytes(2_000, seed: 9)
        try origin.media("clip.bin", clip)
        try origin.media("thumbs/clip.jpg", thumbnail)
        try origin.metadata("clip", #"{"thumbnail":"thumbs/clip.jpg?w=320","files":[{"url":"clip.bin","path":"clip.bin","size":50000}]}"#)
        return (origin, thumbnail)
    }

    @Test(arguments: [CachePolicy.DownloadBehavior.none, .thumbnailOnly])
    func aDiscoveredItemWaitsUntilAskedToDownload(_ behavior: CachePolicy.DownloadBehavior) throws {
        let (origin, thumbnail) = try Self.origin()
        defer { origin.stop() }
        var config = origin.cacheConfig()
        config.policy.itemDownloadBehavior = behavior
        let cache = try ContentCache(config)
        defer { cache.stop(); cache.removeDirectory() }
        _ = try cache.add(.init(id: "clip"))
        _ = try cache.waitForItem("clip", [.discovered, .failed])
        cache.waitForDownloads()
        let waiting = try #require(cache.item("clip"))
        #expect(waiting.state == .discovered, "\(waiting.errorDetail ?? "")")
        let media = origin.requests.filter { $0.hasPrefix("/media/") }
        if behavior == .thumbnailOnly {
            #expect(waiting.file("thumbnail/clip.jpg")?.size == thumbnail.count)
            #expect(media.count == 1 && media.first?.hasPrefix("/media/thumbs/clip.jpg") == true, "\(media)")
            // The API shows where fans get it; nothing plays yet, so no play URL.
            #expect(CacheItemView.api(waiting)["thumbnail"] == .string("/items/clip/thumbnail/clip.jpg"))
            #expect(CacheItemView.api(waiting)["play"] == .null)
        } else {
            #expect(CacheItemView.api(waiting)["thumbnail"] == .null, "named by the metadata, not stored")
            #expect(media.isEmpty && waiting.files.map(\.path) == ["metadata.json"], "\(media)")
        }
        // Asked (the `download` action): the whole item, its thumbnail included.
        _ = try cache.resume("clip")
        let cached = try cache.waitForItem("clip", [.cached, .failed])
        #expect(cached.state == .cached && Set(cached.files.map(\.path)) == ["metadata.json", "thumbnail/clip.jpg", "clip.bin"])
    }

    /// A fan's request (or a POST with `download`) is the app's "download this": it downloads
    /// under None, and it starts an item already waiting discovered.
    @Test func aRequestDownloadsWhateverTheBehavior() throws {
        let (origin, _) = try Self.origin()
        defer { origin.stop() }
        try origin.metadata("other", #"{"files":[{"url":"clip.bin","path":"clip.bin"}]}"#)
        var config = origin.cacheConfig()
        config.policy.itemDownloadBehavior = .none
        let cache = try ContentCache(config)
        defer { cache.stop(); cache.removeDirectory() }
        var asked = ContentCache.AddRequest(id: "clip")
        asked.download = true
        _ = try cache.add(asked)
        #expect(try cache.waitForItem("clip", [.cached, .failed]).state == .cached)
        _ = try cache.add(.init(id: "other"))
        _ = try cache.waitForItem("other", [.discovered, .failed])
        cache.waitForDownloads()
        var again = ContentCache.AddRequest(id: "other")
        again.download = true
        _ = try cache.add(again)
        #expect(try cache.waitForItem("other", [.cached, .failed]).state == .cached)
    }

    /// Auto-purge off: a write that does not fit is refused and nothing is evicted.
    @Test func withoutAutoPurgeNothingIsEvicted() throws {
        var config = GatewayConfig.Cache(directory: NSTemporaryDirectory() + "gs-cache-\(UUID().uuidString)")
        config.policy.sizeBytes = 1 << 20
        config.policy.autoPurge = false
        let cache = try ContentCache(config)
        defer { cache.removeDirectory() }
        let third = [UInt8](repeating: 7, count: 300_000)
        for (index, channel) in ["a", "b", "c"].enumerated() {
            _ = try cache.store(CacheRoutesTests.received(channel, "f", third + [UInt8(index)]))
        }
        let refused = thrownError(CacheRefusal.self) {
            _ = try cache.store(CacheRoutesTests.received("d", "f", third))
        }
        #expect(refused?.reason.contains("autoPurge is off") == true)
        #expect(["a", "b", "c"].allSatisfy { cache.lookup(channelID: $0, path: "f") != nil })
        #expect(cache.policyStatus()["autoPurge"] == .bool(false) && cache.policyStatus()["maxConcurrentDownloads"] == .null)
    }
}
