import Foundation
import GrandstandCore
import TestSupport
import Testing
@testable import GrandstandDaemon
@testable import GrandstandServices

/// The token hook per file type, end to end: items added with curl on the management API carry
/// a cookie for playlists, a query parameter for segments and a header for keys, over the
/// origin's own (a cookie for everything, a header for metadata); `origin.py`'s `typed/` paths
/// refuse a request without its type's token, so an item missing one fails.
@Suite(.serialized) struct CacheTokenHookEndToEndTests {
    @Test func tokensByCookieHeaderAndQueryPerFileTypeReachTheOrigin() throws {
        let origin = try CacheOrigin()
        defer { origin.stop() }
        let clip = cacheTestBytes(30_000, seed: 5)
        try origin.media("clip.mp4", clip)
        for id in ["typed-game", "typed-nokey"] { try origin.metadata(id, #"{"hls":"typed/renditions/master.m3u8"}"#) }
        try origin.metadata("typed-clip", #"{"files":[{"url":"typed/clip.mp4","path":"clip.mp4","size":30000}]}"#)
        let daemon = try CacheCurl.daemon(origin) { cache in
            cache.origin?.token = OriginTokenHook(all: OriginToken(cookies: ["all": "venue"]),
                                                  perType: ["metadata": OriginToken(headers: ["X-Meta-Token": "m"])])
        }
        try daemon.start()
        defer { daemon.stop(); daemon.cache?.removeDirectory() }
        let cache = try #require(daemon.cache)
        let api = try CacheCurl(daemon)

        let perType = #""perType":{"m3u8":{"cookies":{"pl":"p1"}},"ts":{"query":"seg=s1"},"key":{"headers":{"X-Key-Token":"k1"}}}"#
        #expect(try api.post("/api/v1/items", #"{"id":"typed-game","quality":"highest","#  + perType + "}").status == 202)
        #expect(try api.post("/api/v1/items", #"{"id":"typed-nokey","quality":"highest","perType":{"m3u8":{"cookies":{"pl":"p1"}},"ts":{"query":"seg=s1"}}}"#).status == 202)
        #expect(try api.post("/api/v1/items", #"{"id":"typed-clip"}"#).status == 202)
        let game = try cache.waitForItem("typed-game", [.cached, .failed])
        #expect(game.state == .cached, "\(game.errorDetail ?? "")")
        #expect(game.files.contains { $0.path == "keys/k1.key" } && game.files.contains { $0.path == "v1/seg1.ts" })
        #expect(try cache.waitForItem("typed-clip", [.cached, .failed]).state == .cached)
        // Without the key's token the origin refuses the key: the item fails with the reason.
        let nokey = try cache.waitForItem("typed-nokey", [.cached, .failed])
        #expect(nokey.state == .failed && nokey.error == .httpError && nokey.errorDetail?.contains("keys/k1.key: HTTP 403") == true,
                "\(nokey.errorDetail ?? "")")

        // Fields: PATH RANGE X-TOKEN QUERY X-ITEM-TOKEN COOKIE X-KEY-TOKEN X-META-TOKEN.
        let lines = origin.requests.map { $0.split(separator: " ").map(String.init) }.filter { $0.count == 8 }
        let typed = lines.filter { $0[0].hasPrefix("/media/typed/renditions/") }
        #expect(typed.filter { $0[0].hasSuffix(".m3u8") }.count >= 6)
        #expect(typed.filter { $0[0].hasSuffix(".m3u8") }.allSatisfy { $0[5].contains("pl=p1") && $0[5].contains("all=venue") }, "\(typed)")
        #expect(typed.filter { $0[0].hasSuffix(".ts") }.allSatisfy { $0[3] == "seg=s1" && $0[5] == "all=venue" }, "\(typed)")
        #expect(typed.filter { $0[0].hasSuffix(".vtt") }.allSatisfy { $0[5] == "all=venue" && $0[3] == "-" }, "\(typed)")
        let keys = typed.filter { $0[0].hasSuffix("/keys/k1.key") }
        #expect(keys.map { $0[6] }.sorted() == ["-", "k1"], "the key with its token, then without: \(keys)")
        #expect(lines.filter { $0[0].hasPrefix("/meta/") }.allSatisfy { $0[7] == "m" && $0[5] == "-" }, "metadata: its own token only")
        #expect(lines.contains { $0[0] == "/media/typed/clip.mp4" && $0[5] == "all=venue" })
        // The API never shows a token.
        let shown = try api.get("/api/v1/items/typed-game").body
        #expect(!shown.contains("p1") && !shown.contains("seg=s1") && !shown.contains("k1\""), "\(shown)")

        // Bad values: 400 naming the field.
        let bad = [(#"{"id":"x","cookies":{"a":"b;c"}}"#, "$.cookies.a:"), (#"{"id":"x","perType":{"M3U8":{}}}"#, "$.perType.M3U8:"),
                   (#"{"id":"x","perType":{"ts":{"headers":{"X":"a\nb"}}}}"#, "$.perType.ts.headers.X:"),
                   (#"{"id":"x","query":"a b"}"#, "$.query:")]
        for (body, field) in bad {
            let answer = try api.post("/api/v1/items", body)
            #expect(answer.status == 400 && answer.body.hasPrefix(field), "\(body): \(answer.status) \(answer.body)")
        }
        #expect(cache.item("x") == nil)
    }
}
