import Foundation
import Testing
@testable import GrandstandCore

/// The schedule of timelines and inserts: request bodies with JSON-path errors, the rules of
/// adding and removing, the persisted document, the bounded session memory, and live breaks.
@Suite struct ScheduleTests {
    static func parse(_ text: String) throws -> JSONValue { try JSONParser.parse(Array(text.utf8)) }

    static func issues<T>(_ result: Result<T, ScheduleIssues>) -> [String] {
        if case .failure(let problem) = result { return problem.issues.map(\.description) }
        return []
    }

    static func segments(_ prefix: String, _ count: Int, seconds: Double = 2) -> [VODSegment] {
        (0..<count).map { VODSegment(uri: "\(prefix)\($0).ts", durationSeconds: seconds) }
    }

    static func clip(_ prefix: String, _ count: Int) -> ScheduledClip {
        ScheduledClip(source: ClipSource(item: prefix), segments: segments(prefix, count))
    }

    @Test func timelineRequestsReportEveryBadFieldWithItsPath() throws {
        let good = ScheduleJSON.timelineRequest(try Self.parse(#"{"id":"match","clips":[{"item":"vod","begin":1,"end":3},{"item":"b","playlist":"v0/index.m3u8"}]}"#))
        guard case .success(let request) = good else { Issue.record("refused: \(good)"); return }
        #expect(request.id == "match")
        #expect(request.clips == [ClipSource(item: "vod", begin: 1, end: 3), ClipSource(item: "b", playlist: "v0/index.m3u8")])

        let bad = Self.issues(ScheduleJSON.timelineRequest(try Self.parse(
            #"{"id":"../x","clips":[{"item":"vod","begin":3,"end":1},{"playlist":"/etc/passwd","extra":1},{"item":"c","begin":"x"}]}"#)))
        #expect(bad.contains { $0.hasPrefix("$.id:") })
        #expect(bad.contains { $0.hasPrefix("$.clips[0].end: end (1.0) must be after begin") })
        #expect(bad.contains { $0.hasPrefix("$.clips[1].item: required") })
        #expect(bad.contains { $0.hasPrefix("$.clips[1].playlist:") })
        #expect(bad.contains { $0.hasPrefix("$.clips[1].extra: unknown key") })
        #expect(bad.contains { $0.hasPrefix("$.clips[2].begin: expected a number") })
        #expect(Self.issues(ScheduleJSON.timelineRequest(try Self.parse(#"{"id":"a","clips":[]}"#))) == ["$.clips: a timeline needs at least one clip"])
        #expect(Self.issues(ScheduleJSON.timelineRequest(try Self.parse(#"{"id":"a"}"#))) == ["$.clips: required array is missing"])
    }

    @Test func insertRequestsNameTheirPositionAndTarget() throws {
        let cases: [(String, Timeline.Position?, String?)] = [
            (#"{"id":"p","timeline":"t","position":"preRoll","clip":{"item":"ad"}}"#, .preRoll, nil),
            (#"{"id":"p","timeline":"t","position":"midRoll","at":12.5,"clip":{"item":"ad"}}"#, .midRoll(seconds: 12.5), nil),
            (#"{"id":"p","channel":"cam","position":"wallClock","at":"2026-11-21T15:00:00Z","clip":{"item":"ad"}}"#,
             .wallClock(unixSeconds: 1_795_273_200), nil),
            (#"{"id":"p","channel":"cam","position":"wallClock","at":1795273200.5,"clip":{"item":"ad"}}"#, .wallClock(unixSeconds: 1_795_273_200.5), nil),
            (#"{"id":"p","timeline":"t","position":"pod","after":"mid","playOnce":true,"clip":{"item":"ad"}}"#, .after(insertID: "mid"), nil),
            (#"{"id":"p","timeline":"t","position":"midRoll","clip":{"item":"ad"}}"#, nil, "$.at: a midRoll needs"),
            (#"{"id":"p","timeline":"t","position":"preRoll","at":3,"clip":{"item":"ad"}}"#, nil, "$.at: only midRoll and wallClock"),
            (#"{"id":"p","timeline":"t","position":"sideways","clip":{"item":"ad"}}"#, nil, "$.position: unknown position \"sideways\""),
            (#"{"id":"p","timeline":"t","channel":"c","position":"preRoll","clip":{"item":"ad"}}"#, nil, "$.channel: give \"timeline\" or \"channel\", not both"),
            (#"{"id":"p","position":"preRoll","clip":{"item":"ad"}}"#, nil, "$.timeline: give"),
            (#"{"id":"p","timeline":"t","position":"preRoll"}"#, nil, "$.clip: required object"),
            (#"{"id":"p","channel":"c","position":"wallClock","at":"tomorrow","clip":{"item":"ad"}}"#, nil, "$.at: expected an RFC 3339"),
            (#"{"id":"p","timeline":"t","position":"pod","clip":{"item":"ad"}}"#, nil, "$.after: required string"),
            (#"{"id":"p","timeline":"t","position":"preRoll","playOnce":"yes","clip":{"item":"ad"}}"#, nil, "$.playOnce: expected true or false"),
        ]
        for (text, position, expected) in cases {
            let result = ScheduleJSON.insertRequest(try Self.parse(text))
            switch result {
            case .success(let request):
                #expect(request.position == position, "\(text)")
                #expect(expected == nil, "\(text) was accepted")
            case .failure(let problem):
                let issues = problem.issues
                #expect(position == nil, "\(text): \(issues)")
                #expect(issues.contains { $0.description.hasPrefix(expected ?? "-") }, "\(text): \(issues)")
            }
        }
    }

    @Test func scheduleRulesAndCascadingDeletes() throws {
        var schedule = Schedule()
        try schedule.add(TimelineRecord(id: "t", clips: [Self.clip("m", 5)]))
        #expect(TestSupportLite.error { try schedule.add(TimelineRecord(id: "t", clips: [])) } == .duplicate("timeline t"))
        func insert(_ id: String, _ target: InsertRecord.Target, _ position: Timeline.Position, once: Bool = false) -> InsertRecord {
            InsertRecord(id: id, target: target, position: position, playOnce: once, clip: Self.clip(id, 1))
        }
        try schedule.add(insert("mid", .timeline("t"), .midRoll(seconds: 3)))
        try schedule.add(insert("pod", .timeline("t"), .after(insertID: "mid")))
        try schedule.add(insert("pod2", .timeline("t"), .after(insertID: "pod")))
        try schedule.add(insert("pre", .timeline("t"), .preRoll, once: true))
        #expect(TestSupportLite.error { try schedule.add(insert("mid", .timeline("t"), .preRoll)) } == .duplicate("insert mid"))
        #expect(TestSupportLite.error { try schedule.add(insert("x", .timeline("nope"), .preRoll)) } == .unknownTimeline("nope"))
        #expect(TestSupportLite.error { try schedule.add(insert("x", .timeline("t"), .wallClock(unixSeconds: 1))) }?.description.hasPrefix("$.at:") == true)
        #expect(TestSupportLite.error { try schedule.add(insert("x", .channel("c"), .preRoll)) }?.description.hasPrefix("$.position:") == true)
        #expect(TestSupportLite.error { try schedule.add(insert("x", .channel("c"), .after(insertID: "mid"))) }?.description.hasPrefix("$.after:") == true)

        let timeline = try #require(schedule.timeline("t"))
        #expect(timeline.stitched().segments.map(\.uri) == ["pre0.ts", "m0.ts", "m1.ts", "mid0.ts", "pod0.ts", "pod20.ts", "m2.ts", "m3.ts", "m4.ts"])
        #expect(timeline.mainDurationSeconds == 10)

        // The stored document reads back to the same schedule.
        let (decoded, issues) = ScheduleJSON.decode(try JSONParser.parse(Array(ScheduleJSON.encode(schedule).utf8)))
        #expect(issues.isEmpty)
        #expect(decoded == schedule)

        // Deleting an insert takes the pods chained after it; deleting a timeline, its inserts.
        try schedule.removeInsert("pod")
        #expect(schedule.inserts.map(\.id) == ["mid", "pre"])
        #expect(TestSupportLite.error { try schedule.removeInsert("pod2") } == .unknownInsert("pod2"))
        try schedule.removeTimeline("t")
        #expect(schedule.timelines.isEmpty && schedule.inserts.isEmpty)
    }

    @Test func aStoredDocumentWithBadEntriesKeepsTheGoodOnes() throws {
        let text = #"{"version":1,"timelines":[{"id":"a","clips":[{"item":"x","segments":[{"uri":"/items/x/s0.ts","duration":2,"offset":0,"length":188}]}]},{"id":"bad id","clips":[]}],"inserts":[{"id":"i","timeline":"zz","position":"preRoll","clip":{"item":"x","segments":[]}}]}"#
        let (schedule, issues) = ScheduleJSON.decode(try Self.parse(text))
        #expect(schedule.timelines.map(\.id) == ["a"])
        #expect(schedule.timelines.first?.clips.first?.segments == [VODSegment(uri: "/items/x/s0.ts", durationSeconds: 2, byteRange: 0..<188)])
        #expect(schedule.inserts.isEmpty)
        #expect(issues.map(\.path.description).contains("$.timelines[1].id"))
        #expect(issues.map(\.description).contains("$.inserts[0]: no timeline zz"))
    }

    @Test func sessionsAreBoundedByCountAndAge() {
        var sessions = SessionSeen(capacity: 10, ttlNanoseconds: 100)
        sessions.add(["pre"], to: "s", now: 0)
        #expect(sessions.seen("s", now: 50) == ["pre"])
        #expect(sessions.seen("s", now: 149) == ["pre"])     // the read at 50 renewed it
        #expect(sessions.seen("s", now: 300).isEmpty)         // idle too long: forgotten
        #expect(sessions.count == 0)
        for n in 0..<10 { sessions.add(["a"], to: "s\(n)", now: Int64(n)) }
        _ = sessions.seen("s0", now: 20)                      // the oldest, used again
        sessions.add(["a"], to: "new", now: 21)
        #expect(sessions.count == 10)
        #expect(sessions.seen("s1", now: 22).isEmpty)         // the least recently used went
        #expect(sessions.seen("s0", now: 22) == ["a"])
        #expect(sessions.seen("new", now: 22) == ["a"])
    }

    @Test func oneVODPlaylistTypeServesThePrefetcherAndTimelines() throws {
        var segments = Self.segments("s", 3)
        segments[1].byteRange = 188..<376
        segments[2].discontinuity = true
        let text = VODPlaylist.render(segments)
        let playlist = try #require(VODPlaylist(text))
        #expect(playlist.kind == .media)
        #expect(playlist.segments == segments)
        #expect(playlist.references.map(\.uri) == ["s0.ts", "s1.ts", "s2.ts"])
        #expect(playlist.prefix(seconds: 3).map(\.uri) == ["s0.ts", "s1.ts"])
        #expect(VODPlaylist.segments(playlist.rewritten { "/items/x/" + $0 })?.map(\.uri) == ["/items/x/s0.ts", "/items/x/s1.ts", "/items/x/s2.ts"])
        #expect(VODPlaylist("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv/index.m3u8\n")?.segments == nil)
        #expect(VODPlaylist("#EXTM3U\n#EXTINF:x,\ns.ts\n")?.segments == nil)
    }

    @Test func theFileChannelFeedNameIsConfigurable() throws {
        let base = #"{"license":{"venueName":"V","contentOwner":"O","appDeveloper":"D"}"#
        #expect(try GatewayConfig.decode(Array((base + "}").utf8)).catalog.feedFile == "catalog.json")
        #expect(try GatewayConfig.decode(Array((base + #","catalog":{"feedFile":"feeds/fixtures.json"}}"#).utf8)).catalog.feedFile == "feeds/fixtures.json")
        #expect(try GatewayConfig.decode(Array((base + #","catalog":{"feedFile":null}}"#).utf8)).catalog.feedFile == nil)
        var refused: String?
        do { _ = try GatewayConfig.decode(Array((base + #","catalog":{"feedFile":3}}"#).utf8)) } catch { refused = "\(error)" }
        #expect(refused?.contains("$.catalog.feedFile") == true, "\(refused ?? "accepted")")
    }

    @Test func breakSegmentsAreAnInsertAndItsPods() {
        let timeline = Timeline(main: [], inserts: [
            Timeline.Insert(id: "live", clip: Timeline.Clip(segments: Self.segments("a", 2)), position: .wallClock(unixSeconds: 10)),
            Timeline.Insert(id: "other", clip: Timeline.Clip(segments: Self.segments("o", 1)), position: .wallClock(unixSeconds: 99)),
            Timeline.Insert(id: "pod", clip: Timeline.Clip(segments: Self.segments("b", 1)), position: .after(insertID: "live")),
        ])
        let segments = timeline.breakSegments(anchoredAt: "live")
        #expect(segments.map(\.uri) == ["a0.ts", "a1.ts", "b0.ts"])
        #expect(segments.map(\.discontinuity) == [true, false, true])
        #expect(timeline.breakSegments(anchoredAt: "other").map(\.uri) == ["o0.ts"])
    }
}

/// The error a typed-throwing call threw (Swift 6.0's `#expect(throws:)` returns nothing).
enum TestSupportLite {
    static func error(_ body: () throws -> Void) -> ScheduleError? {
        do { try body(); return nil } catch { return error as? ScheduleError }
    }
}
