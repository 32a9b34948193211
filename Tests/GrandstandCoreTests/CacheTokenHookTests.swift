import Testing
@testable import GrandstandCore

/// The token hook by header, cookie and query, for all requests and per file type: which token a
/// request gets, how the item's layers over the origin's, the journal's form, and bad values
/// refused with their JSON path (config and API).
@Suite struct CacheTokenHookTests {
    static func decode(_ section: String) throws -> GatewayConfig {
        try GatewayConfig.decode(Array(("{\"license\":{\"venueName\":\"V\",\"contentOwner\":\"O\",\"appDeveloper\":\"D\"}," +
                                        "\"cache\":{\"origin\":{\"metadataURL\":\"http://o.example/meta\"," + section + "}}}").utf8))
    }

    @Test func aFileTypeEntryReplacesTheTokenForAllAndTheItemsLayersOverTheOrigins() throws {
        let config = try Self.decode("""
            "headers":{"X-Venue":"v"},"cookies":{"all":"1"},"query":"sig=a",
            "perType":{"m3u8":{"cookies":{"pl":"p"}},"metadata":{"headers":{"X-Meta-Token":"m"}}}
            """)
        let origin = try #require(config.cache?.origin?.token)
        #expect(origin.token(for: "ts") == OriginToken(headers: ["X-Venue": "v"], cookies: ["all": "1"], query: "sig=a"))
        #expect(origin.token(for: "m3u8") == OriginToken(cookies: ["pl": "p"]))
        #expect(origin.token(for: "metadata").headers == ["X-Meta-Token": "m"])
        var item = OriginTokenHook(all: OriginToken(cookies: ["all": "2", "user": "u"], query: "item=9"))
        item.perType["ts"] = OriginToken(query: "seg=s")
        let ts = origin.token(for: "ts").layered(under: item.token(for: "ts"))
        #expect(ts.query == "sig=a&seg=s" && ts.cookies == ["all": "1"])
        let mp4 = origin.token(for: "mp4").layered(under: item.token(for: "mp4"))
        #expect(mp4.cookies == ["all": "2", "user": "u"] && mp4.query == "sig=a&item=9")
        #expect(mp4.requestHeaders.map { $0.0 + ": " + $0.1 } == ["X-Venue: v", "Cookie: all=2; user=u"])
        let withCookieHeader = OriginToken(headers: ["cookie": "a=1"], cookies: ["b": "2"])
        #expect(withCookieHeader.requestHeaders.map { $0.0 + ": " + $0.1 } == ["Cookie: a=1; b=2"])
    }

    static let types: [(String, String)] = [
        ("http://c.example/v/seg1.TS?x=1", "ts"), ("https://c.example/a/master.m3u8", "m3u8"), ("http://c.example/k/key", ""),
        ("http://c.example/p.d/clip.mp4#t=1", "mp4"), ("http://c.example/", ""),
    ]

    @Test(arguments: types)
    func theFileTypeIsTheURLsExtension(_ url: String, _ type: String) {
        #expect(OriginTokenHook.fileType(of: url) == type)
    }

    @Test func theJournalKeepsCookiesAndPerTypeTokens() throws {
        var item = CacheItem(id: "a", source: .origin, state: .queued, now: 5)
        item.originToken = OriginTokenHook(all: OriginToken(headers: ["X-Item-Token": "t"], cookies: ["c": "1"], query: "q=1"),
                                           perType: ["ts": OriginToken(query: "seg=2"), "key": OriginToken(headers: ["X-Key": "k"])])
        #expect(item.json["token"] == nil)
        let back = try #require(CacheItem(json: item.journalJSON))
        #expect(back.originToken == item.originToken)
        // The form journals written before cookies and file types had still reads.
        let old = JSONValue.object([("headers", .object([("X-Item-Token", .string("t-1"))])), ("query", .string("item=1"))])
        #expect(OriginTokenHook(journal: old) == OriginTokenHook(all: OriginToken(headers: ["X-Item-Token": "t-1"], query: "item=1")))
        // What an older, laxer version accepted is kept as written, not dropped at replay.
        #expect(OriginTokenHook(journal: .object([("query", .string("a b"))])).all.query == "a b")
    }

    static let bad: [(String, String)] = [
        (#""cookies":{"a":"b;c"}"#, "$.cache.origin.cookies.a: expected a cookie name"),
        (#""cookies":{"a b":"c"}"#, "$.cache.origin.cookies[\"a b\"]: expected a cookie name"),
        (#""cookies":"a=b""#, "$.cache.origin.cookies: expected an object"),
        (#""headers":{"X-T":"a\r\nb"}"#, "$.cache.origin.headers[\"X-T\"]: expected a header name"),
        (#""query":"a b""#, "$.cache.origin.query: \"a b\" is not a query string"),
        (#""perType":{"M3U8":{}}"#, "$.cache.origin.perType.M3U8: \"M3U8\" is not a file type"),
        (#""perType":{"ts":{"cookie":{}}}"#, "$.cache.origin.perType.ts.cookie: unknown key"),
        (#""perType":{"ts":{"query":7}}"#, "$.cache.origin.perType.ts.query: expected a string"),
        (#""perType":[]"#, "$.cache.origin.perType: expected an object"),
    ]

    @Test(arguments: bad)
    func badTokenValuesNameTheirPath(_ section: String, _ expected: String) {
        var text = "no error"
        do { _ = try Self.decode(section) } catch { text = "\(error)" }
        #expect(text.contains(expected), "\(section): \(text)")
    }

    @Test func theAPIFormReportsTheFirstBadValueAtTheRoot() throws {
        var reader = JSONReader()
        let body = try JSONParser.parse(Array(#"{"id":"x","perType":{"ts":{"cookies":{"s":"a,b"}}}}"#.utf8))
        _ = OriginTokenHook.decode(document: body, &reader)
        #expect(reader.issues.first?.description.hasPrefix("$.perType.ts.cookies.s: expected a cookie name") == true)
    }
}
