import Foundation
import Testing
@testable import GrandstandCore

/// Wall-clock breaks spliced into a sliding live playlist: placed before the first segment at or
/// after their time, with discontinuities, LL-HLS tags dropped, and coherent media and
/// discontinuity sequence numbers as the window slides past the break.
@Suite struct LiveSpliceTests {
    static let base: Int64 = 1_795_273_200 * 1_000_000_000

    /// A live playlist as the packager renders it: 2-second segments `seg<MSN>.ts`, the segment
    /// with MSN 10 at `base`, an open segment with parts, and the LL-HLS tags.
    static func live(first: Int, count: Int, discontinuityAt: Int? = nil) -> String {
        var out = "#EXTM3U\n#EXT-X-VERSION:6\n#EXT-X-TARGETDURATION:2\n"
        out += "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=1.500,HOLD-BACK=6.000\n#EXT-X-PART-INF:PART-TARGET=0.5\n"
        out += "#EXT-X-MEDIA-SEQUENCE:\(first)\n#EXT-X-DISCONTINUITY-SEQUENCE:\(discontinuityAt.map { first >= $0 ? 1 : 0 } ?? 0)\n"
        for msn in first..<first + count {
            if msn == discontinuityAt && msn != first { out += "#EXT-X-DISCONTINUITY\n" }
            out += "#EXT-X-PROGRAM-DATE-TIME:" + RFC3339.format(nanoseconds: base + Int64(msn - 10) * 2_000_000_000, fractionDigits: 3) + "\n"
            if msn == first + count - 1 { out += "#EXT-X-PART:DURATION=0.5,URI=\"seg\(msn).0.ts\",INDEPENDENT=YES\n" }
            out += "#EXTINF:2.00000,\nseg\(msn).ts\n"
        }
        let open = first + count
        out += "#EXT-X-PROGRAM-DATE-TIME:" + RFC3339.format(nanoseconds: base + Int64(open - 10) * 2_000_000_000, fractionDigits: 3) + "\n"
        out += "#EXT-X-PART:DURATION=0.5,URI=\"seg\(open).0.ts\",INDEPENDENT=YES\n#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"seg\(open).1.ts\"\n"
        return out
    }

    static let ad = LiveSplice.Break(id: "ad", unixSeconds: 1_795_273_203, segments: [
        VODSegment(uri: "/items/ad/a0.ts", durationSeconds: 1, discontinuity: true), VODSegment(uri: "/items/ad/a1.ts", durationSeconds: 1),
    ])

    /// (URI, presented media sequence number, discontinuity sequence number) of each listed segment.
    static func numbered(_ text: String) -> [(String, Int, Int)] {
        var sequence = 0, discontinuity = 0, out: [(String, Int, Int)] = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") { sequence = Int(line.dropFirst(22))! }
            else if line.hasPrefix("#EXT-X-DISCONTINUITY-SEQUENCE:") { discontinuity = Int(line.dropFirst(30))! }
            else if line == "#EXT-X-DISCONTINUITY" { discontinuity += 1 }
            else if !line.hasPrefix("#") { out.append((String(line), sequence, discontinuity)); sequence += 1 }
        }
        return out
    }

    @Test func aBreakIsSplicedBeforeTheFirstSegmentAtItsTime() {
        var anchors: [String: LiveSplice.Anchor] = [:]
        let text = LiveSplice.splice(Self.live(first: 10, count: 4), breaks: [Self.ad], anchors: &anchors)
        #expect(anchors["ad"] == LiveSplice.Anchor(mediaSequence: 12, resumedHadDiscontinuity: false))
        let uris = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(uris == ["seg10.ts", "seg11.ts", "/items/ad/a0.ts", "/items/ad/a1.ts", "seg12.ts", "seg13.ts"])
        #expect(text.contains("seg11.ts\n#EXT-X-DISCONTINUITY\n#EXTINF:1.00000,\n/items/ad/a0.ts\n#EXTINF:1.00000,\n/items/ad/a1.ts\n#EXT-X-DISCONTINUITY\n#EXT-X-PROGRAM-DATE-TIME:2026-11-21T15:00:04.000Z\n"))
        for tag in ["#EXT-X-PART", "#EXT-X-PRELOAD-HINT", "#EXT-X-SERVER-CONTROL"] { #expect(!text.contains(tag), "\(tag)") }
        #expect(text.hasPrefix("#EXTM3U\n#EXT-X-VERSION:6\n#EXT-X-TARGETDURATION:2\n"))
        #expect(!text.contains("ENDLIST"))
    }

    @Test func numberingStaysCoherentAsTheWindowSlidesPastTheBreak() {
        var anchors: [String: LiveSplice.Anchor] = [:]
        var seen: [String: (Int, Int)] = [:]
        for first in 10...16 {
            let text = LiveSplice.splice(Self.live(first: first, count: 4, discontinuityAt: 15), breaks: [Self.ad], anchors: &anchors)
            for (uri, sequence, discontinuity) in Self.numbered(text) {
                if let earlier = seen[uri] {
                    #expect(earlier == (sequence, discontinuity), "\(uri) in the window from \(first): \(earlier) then \((sequence, discontinuity))")
                }
                seen[uri] = (sequence, discontinuity)
            }
        }
        #expect(seen["/items/ad/a0.ts"]! == (12, 1))
        #expect(seen["seg12.ts"]! == (14, 2))
        #expect(seen["seg15.ts"]! == (17, 3))   // the channel's own discontinuity after the break
        #expect(seen["seg19.ts"]! == (21, 3))
    }

    @Test func missedAndFutureBreaksLeaveThePlaylistAlone() {
        var anchors: [String: LiveSplice.Anchor] = [:]
        let playlist = Self.live(first: 10, count: 4)
        var missed = Self.ad
        missed.unixSeconds -= 60
        #expect(LiveSplice.splice(playlist, breaks: [missed], anchors: &anchors) == playlist)
        var future = Self.ad
        future.unixSeconds += 60
        #expect(LiveSplice.splice(playlist, breaks: [future], anchors: &anchors) == playlist)
        #expect(anchors.isEmpty)
        // The future break is anchored once a segment at or after its time is complete.
        let later = LiveSplice.splice(Self.live(first: 38, count: 5), breaks: [future], anchors: &anchors)
        #expect(anchors["ad"]?.mediaSequence == 42)
        #expect(later.contains("/items/ad/a1.ts\n#EXT-X-DISCONTINUITY\n#EXT-X-PROGRAM-DATE-TIME:2026-11-21T15:01:04.000Z\n#EXTINF:2.00000,\nseg42.ts"))
    }
}
