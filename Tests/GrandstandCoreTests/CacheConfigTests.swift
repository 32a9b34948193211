import GrandstandCore
import Testing

@Suite struct CacheConfigTests {
    static func decode(_ cache: String) throws -> GatewayConfig {
        try GatewayConfig.decode(Array("""
        {"license":{"venueName":"V","contentOwner":"O","appDeveloper":"D"},"stateDirectory":"/var/lib/gs","cache":\(cache)}
        """.utf8))
    }

    @Test func aFullSectionDecodes() throws {
        let config = try Self.decode("""
            {"directory":"/srv/cache","sizeBytes":2000000000,"maxFileBytes":50000000,"maxConcurrentDownloads":3,
             "dailyDownloadBytes":9000000000,"permittedHours":["22:00-06:00"],"diskFloorBytes":1000000,
             "origin":{"metadataURL":"http://origin.example/meta","mediaBaseURL":"http://cdn.example/media/",
                       "headers":{"X-Token":"t"},"query":"sig=1","timeoutSeconds":5,"attempts":4}}
            """)
        let cache = try #require(config.cache)
        #expect(cache.directory == "/srv/cache")
        #expect(cache.policy.sizeBytes == 2_000_000_000)
        #expect(cache.policy.maxFileBytes == 50_000_000)
        #expect(cache.policy.maxConcurrentDownloads == 3)
        #expect(cache.policy.dailyDownloadBytes == 9_000_000_000)
        #expect(cache.policy.permittedHours.map(\.description) == ["22:00-06:00"])
        #expect(cache.policy.diskFloorBytes == 1_000_000)
        #expect(cache.origin?.headers == ["X-Token": "t"])
        #expect(cache.origin?.query == "sig=1")
        #expect(cache.origin?.timeoutSeconds == 5)
        #expect(cache.origin?.attempts == 4)
    }

    @Test func defaultsAndAbsence() throws {
        let config = try Self.decode("{}")
        #expect(config.cache?.directory == "/var/lib/gs/cache")
        #expect(config.cache?.policy == CachePolicy())
        #expect(config.cache?.origin == nil)
        let none = try GatewayConfig.decode(Array("{\"license\":{\"venueName\":\"V\",\"contentOwner\":\"O\",\"appDeveloper\":\"D\"}}".utf8))
        #expect(none.cache == nil)
    }

    @Test func problemsAreReportedWithTheirJSONPaths() throws {
        let error = thrownConfigError {
            _ = try Self.decode("""
                {"sizeBytes":10,"permittedHours":["9-5"],"color":1,"origin":{"metadataURL":"ftp://x","headers":[]}}
                """)
        }
        let text = "\(error.map { "\($0)" } ?? "no error")"
        #expect(text.contains("$.cache.sizeBytes"))
        #expect(text.contains("$.cache.permittedHours[0]"))
        #expect(text.contains("$.cache.color"))
        #expect(text.contains("$.cache.origin.metadataURL"))
    }

    @Test func originTransportOptionsDecode() throws {
        let pin = "sha256//" + String(repeating: "A", count: 43) + "="
        let config = try Self.decode("""
            {"origin":{"metadataURL":"https://origin.example/meta","mediaBaseURL":"https://cdn.example/media/",
                       "caFile":"/etc/grandstand/origin-ca.pem","pinnedPublicKey":"\(pin);\(pin)","proxy":"http://proxy.venue:3128",
                       "maxRedirects":2,"connectTimeoutSeconds":4,"totalTimeoutSeconds":3600}}
            """)
        let origin = try #require(config.cache?.origin)
        #expect(origin.metadataURL == "https://origin.example/meta")
        #expect(origin.mediaBaseURL == "https://cdn.example/media/")
        #expect(origin.caFile == "/etc/grandstand/origin-ca.pem")
        #expect(origin.pinnedPublicKey == pin + ";" + pin)
        #expect(origin.proxy == "http://proxy.venue:3128")
        #expect(origin.maxRedirects == 2)
        #expect(origin.connectTimeoutSeconds == 4)
        #expect(origin.totalTimeoutSeconds == 3600)
        let defaults = try #require(try Self.decode("{\"origin\":{\"metadataURL\":\"http://o/m\"}}").cache?.origin)
        #expect(defaults.caFile == nil && defaults.pinnedPublicKey == nil && defaults.proxy == nil)
        #expect(defaults.maxRedirects == 5 && defaults.connectTimeoutSeconds == 10 && defaults.totalTimeoutSeconds == nil)
    }

    @Test func badOriginTransportOptionsAreReportedWithTheirJSONPaths() throws {
        let error = thrownConfigError {
            _ = try Self.decode("""
                {"origin":{"metadataURL":"https://o/m","mediaBaseURL":"gopher://x","caFile":"ca.pem","pinnedPublicKey":"md5//abc",
                           "proxy":"ftp://p:21","maxRedirects":99,"connectTimeoutSeconds":0,"totalTimeoutSeconds":"long"}}
                """)
        }
        let text = "\(error.map { "\($0)" } ?? "no error")"
        for path in ["mediaBaseURL", "caFile", "pinnedPublicKey", "proxy", "maxRedirects", "connectTimeoutSeconds", "totalTimeoutSeconds"] {
            #expect(text.contains("$.cache.origin.\(path)"), "\(path): \(text)")
        }
        #expect(text.contains("not an absolute path"), "\(text)")
        #expect(text.contains("sha256//"), "\(text)")
        #expect(!text.contains("$.cache.origin.metadataURL"), "https is accepted: \(text)")
    }

    /// The SDK's download policies by name; a bad one names its path and the choices.
    @Test func downloadPoliciesDecode() throws {
        let config = try Self.decode(#"{"itemDownloadBehavior":"ThumbnailOnly","autoPurge":false,"maxConcurrentDownloads":64}"#)
        #expect(config.cache?.policy.itemDownloadBehavior == .thumbnailOnly)
        #expect(config.cache?.policy.autoPurge == false && config.cache?.policy.maxConcurrentDownloads == 64)
        let defaults = try #require(try Self.decode("{}").cache?.policy)
        #expect(defaults.itemDownloadBehavior == .fullAuto && defaults.autoPurge && defaults.maxConcurrentDownloads == nil)
        let cases = [(#"{"itemDownloadBehavior":"fullauto"}"#, "$.cache.itemDownloadBehavior: \"fullauto\" is not one of FullAuto, ThumbnailOnly, None"),
                     (#"{"autoPurge":"yes"}"#, "$.cache.autoPurge"),
                     (#"{"maxConcurrentDownloads":0}"#, "$.cache.maxConcurrentDownloads")]
        for (section, expected) in cases {
            let text = "\(thrownConfigError { _ = try Self.decode(section) }.map { "\($0)" } ?? "no error")"
            #expect(text.contains(expected), "\(section): \(text)")
        }
    }

    /// `cache.fans`: the categories fans may request and the per-client allowance; bad values by path.
    @Test func fanRequestsDecodeAndBadOnesNameTheirPath() throws {
        let config = try Self.decode(#"{"fans":{"categories":["highlights","interviews"],"perClientPerHour":6}}"#)
        #expect(config.cache?.fans?.categories == ["highlights", "interviews"] && config.cache?.fans?.perClientPerHour == 6)
        #expect(try Self.decode(#"{"fans":{"categories":["highlights"]}}"#).cache?.fans?.perClientPerHour == 10)
        #expect(try Self.decode("{}").cache?.fans == nil)
        let cases = [(#"{"fans":{}}"#, "$.cache.fans.categories: required array is missing"),
                     (#"{"fans":{"categories":[]}}"#, "$.cache.fans.categories: list at least one category"),
                     (#"{"fans":{"categories":["a",""]}}"#, "$.cache.fans.categories[1]: must not be empty"),
                     (#"{"fans":{"categories":["a"],"perClientPerHour":0}}"#, "$.cache.fans.perClientPerHour"),
                     (#"{"fans":{"categories":["a"],"rate":1}}"#, "$.cache.fans.rate: unknown key")]
        for (section, expected) in cases {
            let text = "\(thrownConfigError { _ = try Self.decode(section) }.map { "\($0)" } ?? "no error")"
            #expect(text.contains(expected), "\(section): \(text)")
        }
    }

    func thrownConfigError(_ body: () throws -> Void) -> Error? {
        do { try body() } catch { return error }
        return nil
    }
}

@Suite struct CachePlaylistTests {
    static let media = """
        #EXTM3U
        #EXT-X-TARGETDURATION:2
        #EXT-X-MAP:URI="init.mp4"
        #EXTINF:2.0,
        seg0.m4s
        #EXTINF:2.0,
        ../other/seg1.m4s?x=1
        #EXTINF:1.5,
        http://cdn.example/abs/seg2.m4s
        #EXT-X-ENDLIST
        """

    @Test func mediaPlaylistReferencesAndPrefix() throws {
        let playlist = try #require(VODPlaylist(Self.media))
        #expect(playlist.kind == .media)
        #expect(playlist.references.map(\.uri) == ["init.mp4", "seg0.m4s", "../other/seg1.m4s?x=1", "http://cdn.example/abs/seg2.m4s"])
        #expect(playlist.references.map(\.start) == [0, 0, 2, 4])
        #expect(playlist.prefix(seconds: 2).map(\.uri) == ["init.mp4", "seg0.m4s"])
        #expect(playlist.prefix(seconds: 2.1).count == 3)
        let rewritten = playlist.rewritten { "X/" + $0 }
        #expect(rewritten.contains("#EXT-X-MAP:URI=\"X/init.mp4\""))
        #expect(rewritten.contains("\nX/seg0.m4s\n"))
        #expect(VODPlaylist("not a playlist") == nil)
        #expect(VODPlaylist("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv/index.m3u8\n")?.kind == .master)
    }

    @Test func urlsResolveAndMapToLocalPaths() {
        let master = "http://o.example/vod/a/master.m3u8?tok=1"
        #expect(OriginURL.resolve("v0/index.m3u8", against: master) == "http://o.example/vod/a/v0/index.m3u8")
        #expect(OriginURL.resolve("../b/x.ts", against: "http://o.example/vod/a/v0/index.m3u8") == "http://o.example/vod/a/b/x.ts")
        #expect(OriginURL.resolve("/root.ts", against: master) == "http://o.example/root.ts")
        #expect(OriginURL.resolve("seg.ts?s=2", against: master) == "http://o.example/vod/a/seg.ts?s=2")
        #expect(OriginURL.resolve("http://x/y", against: master) == "http://x/y")
        #expect(OriginURL.localPath("http://o.example/vod/a/v0/seg0.ts", root: "http://o.example/vod/a/master.m3u8") == "v0/seg0.ts")
        let outside = OriginURL.localPath("http://cdn.example/abs/seg2.m4s", root: "http://o.example/vod/a/master.m3u8")
        #expect(outside.hasPrefix("ext/") && outside.hasSuffix("/seg2.m4s") && !outside.contains(".."))
        #expect(OriginURL.appending(query: "a=1", to: "http://x/y?b=2") == "http://x/y?b=2&a=1")
        #expect(OriginURL.appending(query: nil, to: "http://x/y") == "http://x/y")
    }
}
