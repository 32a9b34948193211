import Testing
@testable import GrandstandCore

/// A window built from segmenter events: `complete` segments of 5 × 0.4 s parts (2 s), then an
/// open segment with `openParts` parts; PDT starts at the test epoch.
func window(complete: Int, openParts: Int, configuration: WindowConfiguration = WindowConfiguration()) -> MediaWindow {
    var w = MediaWindow(configuration: configuration)
    func start(_ n: Int) {
        w.apply(.segmentStarted(SegmentStart(mediaSequence: n, discontinuity: nil,
                                             programDateTimeNanoseconds: TSFixture.epoch + Int64(n) * 2_000_000_000,
                                             independent: true, startTicks: Int64(n) * 180_000)))
    }
    func part(_ n: Int, _ i: Int) {
        w.apply(.part(PartOutput(mediaSequence: n, index: i, durationTicks: 36_000, independent: i == 0,
                                 bytes: [UInt8](repeating: UInt8(i), count: 188))))
    }
    for n in 0..<complete {
        start(n)
        for i in 0..<5 { part(n, i) }
        w.apply(.segmentCompleted(mediaSequence: n, durationTicks: 180_000))
    }
    start(complete)
    for i in 0..<openParts { part(complete, i) }
    return w
}

struct ReloadCase: Sendable, CustomStringConvertible {
    var msn: Int?
    var part: Int?
    var expected: String
    var description: String { "msn=\(msn.map(String.init) ?? "-") part=\(part.map(String.init) ?? "-") → \(expected)" }
}

func label(_ d: ReloadDecision) -> String {
    switch d {
    case .respondNow: "now"
    case .wait: "wait"
    case .badRequest: "400"
    }
}

@Suite struct PlaylistBlockingReloadTests {
    // Segments 0–2 complete, segment 3 open with parts 3.0 and 3.1. PART-TARGET 0.4 s →
    // Advance Part Limit 3 / 0.4 = 7 parts.
    static let cases: [ReloadCase] = [
        ReloadCase(msn: nil, part: nil, expected: "now"),
        ReloadCase(msn: nil, part: 0, expected: "400"),      // _HLS_part needs _HLS_msn
        ReloadCase(msn: -1, part: nil, expected: "400"),
        ReloadCase(msn: 0, part: nil, expected: "now"),
        ReloadCase(msn: 2, part: nil, expected: "now"),
        ReloadCase(msn: 3, part: nil, expected: "wait"),     // segment 3 is not complete yet
        ReloadCase(msn: 4, part: nil, expected: "wait"),     // last + 2 is allowed
        ReloadCase(msn: 5, part: nil, expected: "400"),      // more than last + 2
        ReloadCase(msn: 2, part: 4, expected: "now"),
        ReloadCase(msn: 2, part: 7, expected: "now"),        // past segment 2's end: a later part exists
        ReloadCase(msn: 3, part: 0, expected: "now"),
        ReloadCase(msn: 3, part: 1, expected: "now"),
        ReloadCase(msn: 3, part: 2, expected: "wait"),       // the preload hint
        ReloadCase(msn: 3, part: 8, expected: "wait"),       // 7 ahead: the limit
        ReloadCase(msn: 3, part: 9, expected: "400"),        // 8 ahead
        ReloadCase(msn: 4, part: 0, expected: "wait"),
        ReloadCase(msn: 4, part: 3, expected: "wait"),       // 7 ahead (3 left in 3, then 4 of 4)
        ReloadCase(msn: 4, part: 4, expected: "400"),
    ]

    @Test(arguments: cases)
    func decision(c: ReloadCase) {
        let w = window(complete: 3, openParts: 2)
        #expect(label(w.reloadDecision(msn: c.msn, part: c.part)) == c.expected)
    }

    @Test func aWaitingRequestIsAnsweredOnceThePartIsPublished() {
        var w = window(complete: 3, openParts: 2)
        #expect(w.reloadDecision(msn: 3, part: 2) == .wait)
        #expect(w.resource(named: "seg3.2.ts") == .notYetAvailable)
        w.apply(.part(PartOutput(mediaSequence: 3, index: 2, durationTicks: 36_000, independent: false, bytes: [7])))
        #expect(w.reloadDecision(msn: 3, part: 2) == .respondNow)
        #expect(w.resource(named: "seg3.2.ts") == .media([7]))
        #expect(w.reloadDecision(msn: 3, part: 3) == .wait)
        #expect(w.maximumBlockNanoseconds == 6_000_000_000)
    }

    @Test func beforeTheFirstSegmentCompletes() {
        let w = window(complete: 0, openParts: 1)
        #expect(w.reloadDecision(msn: 0, part: nil) == .wait)
        #expect(w.reloadDecision(msn: 0, part: 0) == .respondNow)
        #expect(w.reloadDecision(msn: 0, part: 1) == .wait)
        #expect(w.reloadDecision(msn: 1, part: nil) == .wait)
        #expect(label(w.reloadDecision(msn: 2, part: nil)) == "400")
        #expect(w.playlist().hasSuffix("#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"seg0.1.ts\"\n"))
    }

    @Test func anEndedPlaylistNeverBlocks() {
        var w = window(complete: 3, openParts: 0)
        w.finish()
        #expect(w.reloadDecision(msn: 4, part: 0) == .respondNow)
        #expect(w.playlist().hasSuffix("#EXT-X-ENDLIST\n"))
        #expect(!w.playlist().contains("PRELOAD-HINT"))
    }

    @Test func queryDirectivesParse() {
        #expect(ReloadRequest.parse(query: "_HLS_msn=12&_HLS_part=3") == .success(ReloadRequest(msn: 12, part: 3)))
        #expect(ReloadRequest.parse(query: "foo=1&_HLS_msn=4&_HLS_skip=YES") == .success(ReloadRequest(msn: 4, skip: "YES")))
        #expect(ReloadRequest.parse(query: "") == .success(ReloadRequest()))
        for bad in ["_HLS_msn=-1", "_HLS_msn=", "_HLS_msn=1x", "_HLS_part=99999999999", "_HLS_msn=+3", "_HLS_skip=NO", "_HLS_skip="] {
            #expect(ReloadRequest.parse(query: Substring(bad)) == .failure(.badValue(String(bad.prefix { $0 != "=" }))))
        }
    }
}

@Suite struct PlaylistRewindTests {
    /// 25 segments of 2 s through a 30 s window: 15 stay (msn 10–24), live edge at 50 s.
    static func full() -> MediaWindow { window(complete: 25, openParts: 1) }

    @Test func windowKeepsThirtySeconds() {
        let w = Self.full()
        #expect(w.completeSegments.map(\.mediaSequence) == Array(10...24))
        #expect(w.durationTicks == 30 * 90_000)
    }

    struct RewindCase: Sendable, CustomStringConvertible {
        var offset: Double
        var first: Int
        var offsetMillis: Int64
        var behindMillis: Int64
        var description: String { "offset=\(offset)" }
    }

    static let offsets: [RewindCase] = [
        RewindCase(offset: -20, first: 15, offsetMillis: 0, behindMillis: 20_000),
        RewindCase(offset: -21, first: 14, offsetMillis: 1000, behindMillis: 21_000),
        RewindCase(offset: -29.5, first: 10, offsetMillis: 500, behindMillis: 29_500),
        RewindCase(offset: -30, first: 10, offsetMillis: 0, behindMillis: 30_000),
        RewindCase(offset: -1000, first: 10, offsetMillis: 0, behindMillis: 30_000),  // clamped to the window
        RewindCase(offset: -2, first: 22, offsetMillis: 0, behindMillis: 6_000),      // clamped to HOLD-BACK
        RewindCase(offset: 0, first: 22, offsetMillis: 0, behindMillis: 6_000),
        RewindCase(offset: 15, first: 22, offsetMillis: 0, behindMillis: 6_000),
    ]

    @Test(arguments: offsets)
    func offsetsClampToTheWindow(c: RewindCase) throws {
        let start = try #require(Self.full().rewindStart(.offset(seconds: c.offset)))
        #expect(start.firstSequence == c.first)
        #expect(start.offsetTicks == c.offsetMillis * 90)
        #expect(start.behindLiveTicks == c.behindMillis * 90)
    }

    @Test func absoluteTimesMatchProgramDateTime() throws {
        let w = Self.full()
        let at = TSFixture.epoch + 20 * 2_000_000_000 + 500_000_000  // 0.5 s into segment 20
        let start = try #require(w.rewindStart(.programDateTime(nanoseconds: at)))
        #expect(start.firstSequence == 20 && start.offsetTicks == 45_000)
        let before = try #require(w.rewindStart(.programDateTime(nanoseconds: TSFixture.epoch)))
        #expect(before.firstSequence == 10 && before.offsetTicks == 0)
    }

    @Test func rewindPlaylistIsClassicAndStartsPrecisely() throws {
        let text = Self.full().rewindPlaylist(.offset(seconds: -21))
        try expectGolden(text, "rewind-21s.m3u8")
        let parsed = ParsedPlaylist(text)
        #expect(parsed.entries.first?.sequence == 14 && parsed.entries.last?.sequence == 24)
        #expect(parsed.parts.isEmpty && !text.contains("PRELOAD-HINT") && !text.contains("SERVER-CONTROL"))
        #expect(text.contains("#EXT-X-START:TIME-OFFSET=1.000,PRECISE=YES\n"))
    }

    @Test func beforeTheFirstSegmentTheRewindPlaylistIsEmptyButValid() {
        let w = window(complete: 0, openParts: 2)
        #expect(w.rewindStart(.offset(seconds: -20)) == nil)
        let parsed = ParsedPlaylist(w.rewindPlaylist(.offset(seconds: -20)))
        #expect(parsed.entries.isEmpty && parsed.targetDuration == 2)
    }

    @Test func queryParses() {
        #expect(RewindPosition.parse(query: "offset=-20") == .offset(seconds: -20))
        #expect(RewindPosition.parse(query: "x=1&offset=-2.5") == .offset(seconds: -2.5))
        #expect(RewindPosition.parse(query: "at=1795230000000") == .programDateTime(nanoseconds: TSFixture.epoch))
        #expect(RewindPosition.parse(query: "offset=abc") == nil)
        #expect(RewindPosition.parse(query: "offset=nan") == nil)
        #expect(RewindPosition.parse(query: "") == nil)
    }
}

@Suite struct PlaylistBlockedRequestsTests {
    @Test func heldRequestsAreReleasedByPublicationOrByTheirDeadline() {
        var w = window(complete: 3, openParts: 2)
        var held = BlockedRequests<Int>()
        held.add(1, .playlist(msn: 3, part: 2), window: w, nowNanoseconds: 0)
        held.add(2, .resource(name: "seg3.2.ts"), window: w, nowNanoseconds: 0)
        held.add(3, .playlist(msn: 4, part: nil), window: w, nowNanoseconds: 1_000_000_000)
        #expect(w.resource(named: "seg3.3.ts") == .notFound)  // only the hinted part is held
        #expect(held.resolve(window: w).isEmpty)
        #expect(held.nextDeadline == 6_000_000_000)

        w.apply(.part(PartOutput(mediaSequence: 3, index: 2, durationTicks: 36_000, independent: false, bytes: [1])))
        let ready = held.resolve(window: w).sorted { $0.0 < $1.0 }
        #expect(ready.map(\.0) == [1, 2] && ready.allSatisfy { $0.1 == .ready })
        #expect(held.count == 1)

        held.add(4, .resource(name: "seg3.3.ts"), window: w, nowNanoseconds: 0)
        #expect(held.resolve(window: w).isEmpty)
        // Segment 3 ends with three parts: the request for part 3.3 can never be served.
        w.apply(.segmentCompleted(mediaSequence: 3, durationTicks: 108_000))
        let gone = held.resolve(window: w)
        #expect(gone.map(\.0) == [4] && gone.first?.1 == .notFound)

        #expect(held.expire(nowNanoseconds: 6_999_999_999).isEmpty)
        #expect(held.expire(nowNanoseconds: 7_000_000_000) == [3])
        #expect(held.count == 0 && held.nextDeadline == nil)
    }

    /// A Playlist Delta Update (RFC 8216bis §6.2.5.1): with 15 complete 2 s segments and a 12 s
    /// Skip Boundary, the 9 segments that end ≥ 12 s before the end become one EXT-X-SKIP; the
    /// rest is the full playlist's tail, line for line.
    @Test func deltaUpdateSkipsWhatIsOlderThanTheSkipBoundary() {
        let w = window(complete: 15, openParts: 2)
        let full = w.playlist()
        #expect(full.contains("#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=12.0,"))
        #expect(full.contains("#EXT-X-VERSION:6\n") && !full.contains("EXT-X-SKIP:"))
        let delta = w.playlist(MediaWindow.PlaylistOptions(delta: true))
        #expect(delta.contains("#EXT-X-VERSION:9\n") && delta.contains("#EXT-X-SKIP:SKIPPED-SEGMENTS=9\n"))
        #expect(delta.contains("#EXT-X-MEDIA-SEQUENCE:0\n") && !delta.contains("seg8.ts\n") && delta.contains("seg9.ts\n"))
        let tail = full.components(separatedBy: "#EXT-X-PROGRAM-DATE-TIME").dropFirst(10).joined(separator: "#EXT-X-PROGRAM-DATE-TIME")
        #expect(delta.hasSuffix(tail))
        // A window shorter than the boundary skips nothing (and stays version 6).
        let short = window(complete: 5, openParts: 1)
        #expect(short.playlist(MediaWindow.PlaylistOptions(delta: true)) == short.playlist())
    }
}
