import Testing
@testable import GrandstandCore

/// A CMAF channel's LL-HLS playlist with a live break in place (LiveBreakPlaylist): the break's
/// segments and parts under `break/ID/`, the header switched there and back, the channel's
/// numbering, hint and discontinuity sequence kept coherent as the window slides.
@Suite struct LiveBreakPlaylistTests {
    static let header = """
        #EXTM3U
        #EXT-X-VERSION:6
        #EXT-X-TARGETDURATION:2
        #EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=12.0,PART-HOLD-BACK=3.000,HOLD-BACK=6.000
        #EXT-X-PART-INF:PART-TARGET=1.000

        """

    /// Segments `first…` (the last one open, `openParts` parts) as the channel's renderer writes them.
    static func playlist(first: Int, complete: Int, openParts: Int, discontinuitySequence: Int = 3) -> String {
        var out = header + "#EXT-X-MEDIA-SEQUENCE:\(first)\n#EXT-X-DISCONTINUITY-SEQUENCE:\(discontinuitySequence)\n#EXT-X-MAP:URI=\"init0.mp4\"\n"
        for n in first..<(first + complete) {
            out += "#EXT-X-PROGRAM-DATE-TIME:2026-11-27T00:00:\(10 + 2 * (n - first)).000Z\n"
            out += "#EXT-X-PART:DURATION=1.000,URI=\"seg\(n).0.m4s\",INDEPENDENT=YES\n#EXT-X-PART:DURATION=1.000,URI=\"seg\(n).1.m4s\"\n"
            out += "#EXTINF:2.000,\nseg\(n).m4s\n"
        }
        let open = first + complete
        out += "#EXT-X-PROGRAM-DATE-TIME:2026-11-27T00:00:\(10 + 2 * complete).000Z\n"
        for p in 0..<openParts { out += "#EXT-X-PART:DURATION=1.000,URI=\"seg\(open).\(p).m4s\"\(p == 0 ? ",INDEPENDENT=YES" : "")\n" }
        out += "#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"seg\(open).\(openParts).m4s\"\n"
        return out
    }

    /// Break parts: the first independent, the second of segment 12 past the insert's end.
    static func describe(_ placed: LiveBreakPlaylist.Placed, _ sequence: Int, _ part: Int) -> (empty: Bool, independent: Bool)? {
        (empty: sequence == 12 && part == 1, independent: sequence == placed.anchor && part == 0)
    }

    static func body(_ text: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#EXT-X-PROGRAM-DATE-TIME") }.dropFirst(5).map { $0 }
    }

    @Test func theBreakReplacesItsSegmentsAndSwitchesHeadersThereAndBack() {
        let text = LiveBreakPlaylist.rewrite(Self.playlist(first: 10, complete: 3, openParts: 1),
                                             breaks: [LiveBreakPlaylist.Placed(id: "ad", anchor: 11, resume: 13, seconds: 3.5)], describe: Self.describe)
        #expect(Self.body(text) == [
            "#EXT-X-MEDIA-SEQUENCE:10", "#EXT-X-DISCONTINUITY-SEQUENCE:3",
            "#EXT-X-MAP:URI=\"init0.mp4\"",
            "#EXT-X-PART:DURATION=1.000,URI=\"seg10.0.m4s\",INDEPENDENT=YES", "#EXT-X-PART:DURATION=1.000,URI=\"seg10.1.m4s\"",
            "#EXTINF:2.000,", "seg10.m4s",
            "#EXT-X-DISCONTINUITY", "#EXT-X-MAP:URI=\"break/ad/init.mp4\"",
            "#EXT-X-DATERANGE:ID=\"ad\",CLASS=\"net.grandstand.break\",START-DATE=\"2026-11-27T00:00:12.000Z\",DURATION=3.5,X-PLAY-ONCE=\"NO\"",
            "#EXT-X-PART:DURATION=1.000,URI=\"break/ad/seg11.0.m4s\",INDEPENDENT=YES", "#EXT-X-PART:DURATION=1.000,URI=\"break/ad/seg11.1.m4s\"",
            "#EXTINF:2.000,", "break/ad/seg11.m4s",
            "#EXT-X-PART:DURATION=1.000,URI=\"break/ad/seg12.0.m4s\"", "#EXT-X-PART:DURATION=1.000,URI=\"break/ad/seg12.1.m4s\",GAP=YES",
            "#EXTINF:2.000,", "break/ad/seg12.m4s",
            "#EXT-X-DISCONTINUITY", "#EXT-X-MAP:URI=\"init0.mp4\"",
            "#EXT-X-PART:DURATION=1.000,URI=\"seg13.0.m4s\",INDEPENDENT=YES",
            "#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"seg13.1.m4s\"",
        ])
        // Every line the channel wrote about dates stays (one per segment).
        #expect(text.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-PROGRAM-DATE-TIME") }.count == 4)
    }

    /// A rewind playlist (complete segments, no parts) gets the break the same way, its date
    /// range saying it is play-once; once the anchor has left the window no date range is left.
    @Test func aRewindPlaylistCarriesTheBreakAndItsDateRange() {
        var rewind = "#EXTM3U\n#EXT-X-VERSION:6\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:10\n#EXT-X-DISCONTINUITY-SEQUENCE:3\n"
            + "#EXT-X-START:TIME-OFFSET=1.000,PRECISE=YES\n#EXT-X-MAP:URI=\"init0.mp4\"\n"
        for n in 10..<14 { rewind += "#EXT-X-PROGRAM-DATE-TIME:2026-11-27T00:00:\(10 + 2 * (n - 10)).000Z\n#EXTINF:2.000,\nseg\(n).m4s\n" }
        let placed = LiveBreakPlaylist.Placed(id: "ad", anchor: 11, resume: 13, seconds: 4, playOnce: true)
        let text = LiveBreakPlaylist.rewrite(rewind, breaks: [placed], describe: Self.describe)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.hasSuffix(".m4s") } == ["seg10.m4s", "break/ad/seg11.m4s", "break/ad/seg12.m4s", "seg13.m4s"])
        #expect(lines.contains("#EXT-X-DATERANGE:ID=\"ad\",CLASS=\"net.grandstand.break\",START-DATE=\"2026-11-27T00:00:12.000Z\",DURATION=4.0,X-PLAY-ONCE=\"YES\""))
        #expect(lines.contains("#EXT-X-START:TIME-OFFSET=1.000,PRECISE=YES"))
        #expect(lines.filter { $0 == "#EXT-X-DISCONTINUITY" }.count == 2)
        let later = LiveBreakPlaylist.rewrite(Self.playlist(first: 12, complete: 2, openParts: 1), breaks: [placed], describe: Self.describe)
        #expect(later.contains("break/ad/seg12.m4s") && !later.contains("#EXT-X-DATERANGE"))
    }

    @Test func anOpenBreakSegmentHintsItsNextPartUnderTheBreak() {
        let text = LiveBreakPlaylist.rewrite(Self.playlist(first: 10, complete: 1, openParts: 1),
                                             breaks: [LiveBreakPlaylist.Placed(id: "ad", anchor: 11)], describe: Self.describe)
        #expect(text.contains("#EXT-X-PART:DURATION=1.000,URI=\"break/ad/seg11.0.m4s\",INDEPENDENT=YES\n"))
        #expect(text.hasSuffix("#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"break/ad/seg11.1.m4s\"\n"))
        // Before any part of the anchor exists, its first part is hinted under the break.
        let before = LiveBreakPlaylist.rewrite(Self.playlist(first: 10, complete: 1, openParts: 0),
                                               breaks: [LiveBreakPlaylist.Placed(id: "ad", anchor: 11)], describe: Self.describe)
        #expect(before.hasSuffix("#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"break/ad/seg11.0.m4s\"\n"))
    }

    /// As the window slides past the switch points, their discontinuities count in the sequence
    /// and a window starting inside the break opens with the break's header.
    @Test(arguments: [(10, 3), (11, 4), (12, 4), (13, 5), (14, 5)])
    func theDiscontinuitySequenceCountsSwitchPointsThatLeft(first: Int, sequence: Int) {
        let text = LiveBreakPlaylist.rewrite(Self.playlist(first: first, complete: 3, openParts: 1),
                                             breaks: [LiveBreakPlaylist.Placed(id: "ad", anchor: 11, resume: 13)], describe: Self.describe)
        #expect(text.contains("#EXT-X-DISCONTINUITY-SEQUENCE:\(sequence)\n"))
        let maps = text.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-MAP") }
        #expect(maps.first == (first == 11 || first == 12 ? "#EXT-X-MAP:URI=\"break/ad/init.mp4\"" : "#EXT-X-MAP:URI=\"init0.mp4\""))
        // Never a discontinuity tag on the first listed segment (folded into the sequence).
        let lines = text.split(separator: "\n")
        let firstSegment = lines.firstIndex { $0.hasPrefix("#EXT-X-PROGRAM-DATE-TIME") }!
        #expect(!lines[..<firstSegment].contains("#EXT-X-DISCONTINUITY"))
    }

    @Test func withoutBreaksThePlaylistIsUnchanged() {
        let plain = Self.playlist(first: 10, complete: 3, openParts: 1)
        #expect(LiveBreakPlaylist.rewrite(plain, breaks: [], describe: Self.describe) == plain)
        #expect(LiveBreakPlaylist.rewrite(plain, breaks: [LiveBreakPlaylist.Placed(id: "ad", anchor: 30)], describe: Self.describe) == plain)
    }

    @Test func attributesAreReadWithQuotedCommas() {
        let line: Substring = #"#EXT-X-PART:DURATION=1.000,URI="a,b.m4s",INDEPENDENT=YES"#
        #expect(LiveBreakPlaylist.attribute(line, "URI") == "a,b.m4s")
        #expect(LiveBreakPlaylist.attribute(line, "INDEPENDENT") == "YES")
        #expect(LiveBreakPlaylist.attribute(line, "GAP") == nil)
    }
}
