import Foundation
import GrandstandCore
import GrandstandRuntime
import TestSupport
import Testing
@testable import GrandstandDaemon
@testable import GrandstandServices

/// The download-to-go error model, with curl on the daemon: an idle item carries the reason it
/// waits and downloads on its own when the policy allows; an unknown content id stays
/// `metadata-not-received` with `content-id-does-not-exist` and asks again after 300 s (or at
/// once when resumed); a failed item's stored files are never served to fans.
@Suite(.serialized) struct CacheErrorModelTests {
    @Test func idleItemsCarryTheirReasonAndUnknownIdsWaitForMetadataThenBothResumeOnTheirOwn() throws {
        let origin = try CacheOrigin()
        defer { origin.stop() }
        let clip = cacheTestBytes(20_000, seed: 6)
        try origin.media("clip.bin", clip)
        try origin.metadata("night", #"{"files":[{"url":"clip.bin","path":"clip.bin","size":20000}]}"#)
        let clock = ManualClock()   // 2026-01-01T00:00:00Z
        let daemon = try CacheCurl.daemon(origin, clock: clock) { cache in
            cache.policy.permittedHours = [CachePolicy.HourWindow("01:00-02:00")].compactMap { $0 }
        }
        try daemon.start()
        defer { daemon.stop(); daemon.cache?.removeDirectory() }
        let cache = try #require(daemon.cache)
        let api = try CacheCurl(daemon)
        #expect(try api.post("/api/v1/items", #"{"id":"night"}"#).status == 202)
        #expect(try api.post("/api/v1/items", #"{"id":"ghost"}"#).status == 202)

        // Idle with its reason; the unknown id with its code, still waiting for metadata.
        try waitFor("night idle", timeout: 30) { try api.get("/api/v1/items/night").json?["state"] == .string("idle") }
        let night = try #require(try api.get("/api/v1/items/night").json)
        #expect(night["error"] == .string("outside-permitted-hours") && night["errorDetail"] == .string("waiting: outside-permitted-hours"))
        try waitFor("ghost's error", timeout: 30) { try api.get("/api/v1/items/ghost").json?["error"] != nil }
        let ghost = try #require(try api.get("/api/v1/items/ghost").json)
        #expect(ghost["state"] == .string("metadata-not-received") && ghost["error"] == .string("content-id-does-not-exist"))
        #expect(try api.ids("state=metadata-not-received") == ["ghost"])
        #expect(try api.fanGet("/items/night/clip.bin").status == 404)

        // The origin learns the id; the item asks again only after 300 s.
        try origin.metadata("ghost", #"{"files":[{"url":"clip.bin","path":"clip.bin","size":20000}]}"#)
        let asked = { origin.requests.filter { $0.hasPrefix("/meta/ghost ") }.count }
        // The threads parked on the clock before the step are parked again after it: the
        // scheduler's round for that step is done (an event, not a pause), and asked nothing.
        let parked = clock.sleepers
        clock.advance(by: 299_000_000_000)
        #expect(clock.waitForSleepers(parked))
        #expect(asked() == 1)
        clock.advance(by: 1_000_000_000)
        try waitFor("ghost's metadata asked again", timeout: 30) { asked() == 2 }
        // Now known, it waits like any other: idle with the policy's reason.
        try waitFor("ghost idle", timeout: 30) { cache.item("ghost")?.state == .idle }
        #expect(cache.item("ghost")?.error == .outsidePermittedHours)

        // 01:00: both download on their own, their reasons gone.
        clock.advance(by: 3_300_000_000_000)
        for id in ["night", "ghost"] {
            let item = try cache.waitForItem(id, [.cached, .failed])
            #expect(item.state == .cached && item.error == nil && item.errorDetail == nil, "\(id): \(item.errorDetail ?? "")")
        }
        #expect(try api.fanGet("/items/night/clip.bin").body == String(decoding: clip, as: UTF8.self))
    }

    @Test func aFailedItemServesNothingAndAnUnknownIdResumedAsksAtOnce() throws {
        let origin = try CacheOrigin()
        defer { origin.stop() }
        let good = cacheTestBytes(5_000, seed: 2)
        try origin.media("good.bin", good)
        try origin.metadata("half", #"{"title":"Half","files":[{"url":"good.bin","path":"good.bin","size":5000},{"url":"missing.bin","path":"missing.bin"}]}"#)
        let daemon = try CacheCurl.daemon(origin)
        try daemon.start()
        defer { daemon.stop(); daemon.cache?.removeDirectory() }
        let cache = try #require(daemon.cache)
        let api = try CacheCurl(daemon)

        // The first file arrived, the second is 404: failed, its stored file kept but not served.
        #expect(try api.post("/api/v1/items", #"{"id":"half"}"#).status == 202)
        let half = try cache.waitForItem("half", [.cached, .failed])
        #expect(half.state == .failed && half.error == .httpError && half.file("good.bin") != nil, "\(half)")
        #expect(try api.fanGet("/items/half/good.bin").status == 404)
        #expect(try api.fanGet("/items/half/metadata.json").status == 404)
        #expect(try api.fanGet("/items/half").status == 404)
        let listed = try api.fanGet("/items.json").body
        #expect(!listed.contains("\"half\""), "\(listed)")

        // An unknown id stays metadata-not-received; resumed once the origin knows it, it downloads.
        #expect(try api.post("/api/v1/items", #"{"id":"later"}"#).status == 202)
        try waitFor("later's error", timeout: 30) { cache.item("later")?.error == .contentIDDoesNotExist }
        #expect(cache.item("later")?.state == .metadataNotReceived)
        try origin.metadata("later", #"{"files":[{"url":"good.bin","path":"good.bin","size":5000}]}"#)
        #expect(try api.post("/api/v1/items/later/resume", "").status == 200)
        let later = try cache.waitForItem("later", [.cached, .failed])
        #expect(later.state == .cached && later.error == nil)
        #expect(try api.fanGet("/items/later/good.bin").body == String(decoding: good, as: UTF8.self))
    }
}
