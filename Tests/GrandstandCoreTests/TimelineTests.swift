import Foundation
import Testing
import TestSupport
@testable import GrandstandCore

/// Timelines: segment-accurate rough cuts, insert placement (pre/mid/post-roll, pods, wall
/// clock), discontinuities around every insert, play-once vs sticky, and a real player reading
/// a stitched playlist end to end.
@Suite(.serialized) struct TimelineTests {
    /// Five 2-second segments named PREFIX0…PREFIX4.
    static func clip(_ prefix: String, count: Int = 5, seconds: Double = 2, begin: Double? = nil, end: Double? = nil) -> Timeline.Clip {
        var segments: [VODSegment] = []
        for n in 0..<count { segments.append(VODSegment(uri: "\(prefix)\(n)", durationSeconds: seconds)) }
        return Timeline.Clip(segments: segments, begin: begin, end: end)
    }

    @Test(arguments: [
        (-1.0, 99.0, ["m0", "m1", "m2", "m3", "m4"]), (3, 99, ["m1", "m2", "m3", "m4"]), (2, 99, ["m1", "m2", "m3", "m4"]),
        (0, 4, ["m0", "m1"]), (0, 4.1, ["m0", "m1", "m2"]), (3, 5, ["m1", "m2"]), (10, 99, []), (1.9, 2.1, ["m0", "m1"]),
    ])
    func roughCutIsSegmentAccurate(begin: Double, end: Double, expected: [String]) {
        let cut = Self.clip("m", begin: begin, end: end).cut
        #expect(cut.map(\.uri) == expected)
        #expect(cut.enumerated().allSatisfy { $0.element.discontinuity == ($0.offset == 0) })
    }

    /// The cut is segment-accurate and says where it landed (`kept`); a first clip cut inside a
    /// segment starts players at `begin` itself (EXT-X-START PRECISE), unless a pre-roll plays
    /// first (it is never skipped) or `begin` is a segment boundary.
    @Test(arguments: [
        (3.0, false, "#EXT-X-START:TIME-OFFSET=1.000,PRECISE=YES", 2.0, 3),
        (4.0, false, nil, 4.0, 2),
        (3.5, true, nil, 2.0, 4),
    ] as [(Double, Bool, String?, Double, Int)])
    func aCutInsideASegmentStartsPlayersAtBegin(begin: Double, preRoll: Bool, start: String?, keptBegin: Double, segments: Int) {
        let clip = Self.clip("m", begin: begin, end: 7.5)
        #expect(clip.kept?.begin == keptBegin && clip.kept?.end == 8)
        let inserts = preRoll ? [Timeline.Insert(id: "ad", clip: Self.clip("ad", count: 1), position: .preRoll)] : []
        let text = Timeline(main: [clip], inserts: inserts).playlist().text
        let line = text.split(separator: "\n").first { $0.hasPrefix("#EXT-X-START") }.map(String.init)
        #expect(line == start, "\(text)")
        #expect(VODPlaylist.segments(text)?.count == segments)
    }

    @Test func clipsAppendInOrderAndMainDurationExcludesInserts() {
        var timeline = Timeline(main: [Self.clip("a", end: 4), Self.clip("b", begin: 6)])
        #expect(timeline.mainSegments.map(\.uri) == ["a0", "a1", "b3", "b4"])
        #expect(timeline.mainDurationSeconds == 8)
        timeline.inserts = [Timeline.Insert(id: "pre", clip: Self.clip("p", count: 1), position: .preRoll)]
        #expect(timeline.mainDurationSeconds == 8)
        #expect(timeline.stitched().segments.count == 5)
    }

    @Test func insertsLandAtBoundariesWithDiscontinuities() {
        let timeline = Timeline(main: [Self.clip("m")], inserts: [
            Timeline.Insert(id: "post", clip: Self.clip("z", count: 1), position: .postRoll),
            Timeline.Insert(id: "mid", clip: Self.clip("x", count: 2), position: .midRoll(seconds: 3)),
            Timeline.Insert(id: "pre", clip: Self.clip("p", count: 1), position: .preRoll),
            Timeline.Insert(id: "pod2", clip: Self.clip("y", count: 1), position: .after(insertID: "mid")),
            Timeline.Insert(id: "pod3", clip: Self.clip("w", count: 1), position: .after(insertID: "pod2")),
        ])
        let (segments, shown) = timeline.stitched()
        #expect(segments.map(\.uri) == ["p0", "m0", "m1", "x0", "x1", "y0", "w0", "m2", "m3", "m4", "z0"])
        #expect(segments.filter(\.discontinuity).map(\.uri) == ["p0", "m0", "x0", "y0", "w0", "m2", "z0"])
        #expect(shown.isEmpty)
        let text = timeline.playlist().text
        #expect(text.components(separatedBy: "#EXT-X-DISCONTINUITY\n").count - 1 == 6)  // none before the first segment
        #expect(text.hasSuffix("#EXT-X-ENDLIST\n") && text.contains("#EXT-X-PLAYLIST-TYPE:VOD"))
    }

    @Test(arguments: [(0.0, 0), (0.5, 1), (2, 1), (9.5, 5), (50, 5)])
    func midRollsRoundUpToTheNextBoundary(seconds: Double, index: Int) {
        let timeline = Timeline(main: [Self.clip("m")], inserts: [
            Timeline.Insert(id: "i", clip: Self.clip("i", count: 1), position: .midRoll(seconds: seconds))])
        let uris = timeline.stitched().segments.map(\.uri)
        #expect(uris.firstIndex(of: "i0") == index)
    }

    @Test func wallClockInsertsNeedTheMainStart() {
        var timeline = Timeline(main: [Self.clip("m")], inserts: [
            Timeline.Insert(id: "w", clip: Self.clip("w", count: 1), position: .wallClock(unixSeconds: 1_000_004))])
        #expect(!timeline.stitched().segments.contains { $0.uri == "w0" })
        timeline.mainStartUnixSeconds = 1_000_000
        #expect(timeline.stitched().segments.map(\.uri).firstIndex(of: "w0") == 2)
    }

    @Test func playOnceInsertsVanishForTheSessionStickyStay() {
        let timeline = Timeline(main: [Self.clip("m")], inserts: [
            Timeline.Insert(id: "once", clip: Self.clip("o", count: 1), position: .preRoll, playOnce: true),
            Timeline.Insert(id: "sticky", clip: Self.clip("s", count: 1), position: .midRoll(seconds: 4)),
        ])
        let first = timeline.stitched(seen: [])
        #expect(first.shown == ["once"])
        #expect(first.segments.map(\.uri).contains("o0") && first.segments.map(\.uri).contains("s0"))
        let second = timeline.stitched(seen: Set(first.shown))
        #expect(!second.segments.map(\.uri).contains("o0"))
        #expect(second.segments.map(\.uri).contains("s0"))
        #expect(second.shown.isEmpty)
    }

    @Test func playlistsRoundTrip() throws {
        let segments = [VODSegment(uri: "r.ts", durationSeconds: 2.002, byteRange: 0..<376),
                        VODSegment(uri: "r.ts", durationSeconds: 1.5, byteRange: 376..<940, discontinuity: true),
                        VODSegment(uri: "/vod/x/seg.ts", durationSeconds: 4)]
        let parsed = try #require(VODPlaylist.segments(VODPlaylist.render(segments)))
        #expect(parsed == segments)
        #expect(VODPlaylist.segments("not a playlist") == nil)
    }

    /// A stitched playlist of real media: main 3 × 4 s, pre-roll, mid-roll at 4 s, post-roll
    /// (4 s each) → ffprobe reports 24 s and ffmpeg decodes it end to end without an error.
    @Test func aRealPlayerReadsAStitchedPlaylist() throws {
        let directory = try SegmenterDecodeTests.directory("timeline")
        defer { try? FileManager.default.removeItem(at: directory) }
        let media = Fixtures.path("media/testsrc-160x90-25fps-4s-h264.ts")
        func clip(_ count: Int) -> Timeline.Clip {
            Timeline.Clip(segments: Array(repeating: VODSegment(uri: media, durationSeconds: 4), count: count))
        }
        let timeline = Timeline(main: [clip(3)], inserts: [
            Timeline.Insert(id: "pre", clip: clip(1), position: .preRoll, playOnce: true),
            Timeline.Insert(id: "mid", clip: clip(1), position: .midRoll(seconds: 4)),
            Timeline.Insert(id: "post", clip: clip(1), position: .postRoll),
        ])
        #expect(timeline.mainDurationSeconds == 12)
        let text = timeline.playlist().text
        try text.write(to: directory.appendingPathComponent("stitched.m3u8"), atomically: true, encoding: .utf8)
        let probe = try SegmenterDecodeTests.ffmpeg(["-show_entries", "format=duration", "-of", "csv=p=0", "stitched.m3u8"],
                                                    in: directory, tool: "/usr/bin/ffprobe", timeout: 30)
        #expect(probe.status == 0, "\(probe.stderr)")
        let seconds = Double(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(seconds.map { abs($0 - 24) < 0.1 } == true, "\(probe.stdout)")
        let decode = try SegmenterDecodeTests.ffmpeg(["-allowed_extensions", "ALL", "-i", "stitched.m3u8", "-f", "null", "-"], in: directory)
        #expect(decode.status == 0, "\(decode.stderr)")
        // The second fetch of the same session has no pre-roll: 20 s.
        let again = timeline.playlist(seen: ["pre"]).text
        try again.write(to: directory.appendingPathComponent("again.m3u8"), atomically: true, encoding: .utf8)
        let probeAgain = try SegmenterDecodeTests.ffmpeg(["-show_entries", "format=duration", "-of", "csv=p=0", "again.m3u8"],
                                                         in: directory, tool: "/usr/bin/ffprobe", timeout: 30)
        let secondsAgain = Double(probeAgain.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(secondsAgain.map { abs($0 - 20) < 0.1 } == true, "\(probeAgain.stdout) \(probeAgain.stderr)")
    }
}
