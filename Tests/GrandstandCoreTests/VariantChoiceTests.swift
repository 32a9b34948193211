import Testing
import TestSupport
@testable import GrandstandCore

/// HLS items as CDNs publish them (Tests/Fixtures/cache/renditions): every URI of a master and a
/// media playlist found with its role (variants with their attributes, EXT-X-MEDIA renditions,
/// EXT-X-KEY keys), masters cut down to the chosen variants, and the quality choice itself.
@Suite struct VariantChoiceTests {
    static func master() throws -> VODPlaylist {
        try #require(VODPlaylist(String(decoding: try Fixtures.bytes("cache/renditions/master.m3u8"), as: UTF8.self)))
    }

    @Test func everyURIOfTheMasterIsFoundWithItsRole() throws {
        let master = try Self.master()
        #expect(master.kind == .master)
        #expect(master.references.map(\.role) == [.rendition, .rendition, .variant, .variant])
        #expect(master.variants.map(\.uri) == ["v0/index.m3u8", "v1/index.m3u8"])
        #expect(master.variants.map(\.bandwidth) == [60_000, 120_000] && master.variants.map(\.height) == [90, 180])
        #expect(master.variants[0].attributes["CODECS"] == "avc1.64000b,mp4a.40.2" && master.variants[0].attributes["AUDIO"] == "aud")
        #expect(master.references[1].attributes["GROUP-ID"] == "subs" && master.references[1].attributes["TYPE"] == "SUBTITLES")
    }

    @Test func aKeyIsAReferenceAndIsRewritten() throws {
        let media = try #require(VODPlaylist(String(decoding: try Fixtures.bytes("cache/renditions/v1/index.m3u8"), as: UTF8.self)))
        #expect(media.kind == .media)
        #expect(media.references.map(\.role) == [.key, .segment, .segment])
        #expect(media.prefix(seconds: 0.5).map(\.uri) == ["../keys/k1.key", "seg0.ts"])
        let text = media.rewritten { "/x/" + $0 }
        #expect(text.contains("#EXT-X-KEY:METHOD=AES-128,URI=\"/x/../keys/k1.key\",IV=0x000102030405060708090a0b0c0d0e0f"))
        #expect(text.contains("\n/x/seg0.ts\n"))
        let none = try #require(VODPlaylist("#EXTM3U\n#EXT-X-KEY:METHOD=NONE\n#EXTINF:1,\na.ts\n"))
        #expect(none.references.map(\.role) == [.segment])
    }

    @Test func aMasterKeepsTheChosenVariantsAndTheirGroups() throws {
        let master = try Self.master()
        let kept = try #require(master.master { $0.uri == "v1/index.m3u8" })
        let again = try #require(VODPlaylist(kept))
        #expect(again.variants.map(\.uri) == ["v1/index.m3u8"])
        #expect(again.references.filter { $0.role == .rendition }.map(\.uri) == ["audio/index.m3u8", "subs/index.m3u8"])
        // A variant without groups keeps no renditions.
        let bare = try #require(VODPlaylist("#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"x\",URI=\"a.m3u8\"\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n"))
        #expect(bare.master { _ in true }.flatMap(VODPlaylist.init)?.references.map(\.uri) == ["v.m3u8"])
        let media = try #require(VODPlaylist("#EXTM3U\n#EXTINF:1,\na.ts\n"))
        #expect(media.master { _ in true } == nil)
    }

    @Test(arguments: [(VariantChoice.all, ["a", "b", "c"]), (.highest, ["c"]), (.lowest, ["b"]),
                      (.within(maxBandwidth: 150, maxHeight: nil), ["a"]), (.within(maxBandwidth: nil, maxHeight: 480), ["a"]),
                      (.within(maxBandwidth: 10, maxHeight: nil), ["b"]), (.within(maxBandwidth: 1_000, maxHeight: 1_080), ["c"])])
    func theChoiceTakesTheBestWithinItsLimits(choice: VariantChoice, expected: [String]) {
        let variants = [("a", 100, 480), ("b", 50, 240), ("c", 300, 1080)].map { uri, bandwidth, height in
            VODPlaylist.Reference(uri: uri, duration: nil, start: 0, role: .variant,
                                  attributes: ["BANDWIDTH": String(bandwidth), "RESOLUTION": "\(height * 16 / 9)x\(height)"])
        }
        #expect(choice.choose(variants).map(\.uri) == expected)
        #expect(VariantChoice.parse(choice.json) == choice)
    }

    @Test(arguments: [#""best""#, "{}", #"{"maxHeight":0}"#, #"{"maxHeight":1.5}"#, #"{"width":100}"#, "3", "null"])
    func badChoicesAreRefused(text: String) throws {
        #expect(VariantChoice.parse(try JSONParser.parse(Array(text.utf8))) == nil)
    }

    @Test func anItemKeepsItsChoiceInTheJournal() throws {
        var item = CacheItem(id: "x", source: .origin, category: "", state: .cached, now: 1)
        item.quality = .within(maxBandwidth: 2_000_000, maxHeight: nil)
        #expect(CacheItem(json: item.journalJSON)?.quality == item.quality)
    }

    @Test(arguments: [("skd://key-id", true), ("data:text/plain;base64,AAEC", true), ("https://a/b", false), ("http://a", false),
                      ("../keys/k1.key", false), ("/k.key", false), ("k:1.key", true), ("1:x", false)])
    func foreignSchemesAreKeptAsWritten(uri: String, foreign: Bool) {
        #expect(OriginURL.isForeign(uri) == foreign)
    }
}
