import Testing
@testable import GrandstandCore

/// URL clips in the schedule (docs/inserts.md "Clips from any URL"): parsed and refused with
/// their JSON paths, pending and failed clips persisted, and a timeline's state from its clips
/// and inserts; the cache's id scheme for items by URL (docs/cache.md "Items by URL").
@Suite struct ScheduleURLClipTests {
    static let url = "https://cdn.example/clips/goal.mp4?token=1"

    static func paths(_ json: String) throws -> [String] {
        switch ScheduleJSON.timelineRequest(try JSONParser.parse(Array(json.utf8))) {
        case .success: return []
        case .failure(let problem): return problem.issues.map(\.path.description)
        }
    }

    @Test func itemsByURLHaveAStableIDAndAFileName() {
        #expect(CacheItem.urlItemID(Self.url) == "url-05c2a106b7ddcb056f2c34e3aa1531ca")
        #expect(CacheItem.urlFileName(Self.url) == "goal.mp4")
        #expect(CacheItem.urlFileName("http://h/") == "file" && CacheItem.urlFileName("http://h") == "file")
        #expect(CacheItem.urlIsPlaylist("http://h/vod/master.m3u8?x=1") && !CacheItem.urlIsPlaylist(Self.url))
        #expect(CacheItem.urlProblem(Self.url) == nil)
        #expect(CacheItem.urlProblem("ftp://h/x") != nil && CacheItem.urlProblem("http:///x") != nil)
        #expect(CacheItem.urlProblem("http://h/a b") != nil)
        #expect(CacheItemSource("url") == .url && CacheItemSource.url.description == "url")
    }

    @Test func urlClipsParseAndAreRefusedWithTheirPaths() throws {
        let request = ScheduleJSON.timelineRequest(try JSONParser.parse(Array(#"{"id":"t","clips":[{"url":"\#(Self.url)","begin":1}]}"#.utf8)))
        guard case .success(let timeline) = request else { Issue.record("refused: \(request)"); return }
        #expect(timeline.clips == [ClipSource(url: Self.url, begin: 1)])
        #expect(timeline.clips[0].item == CacheItem.urlItemID(Self.url))
        #expect(try Self.paths(#"{"id":"t","clips":[{"url":"ftp://x/y"}]}"#) == ["$.clips[0].url"])
        #expect(try Self.paths(#"{"id":"t","clips":[{"url":"http://x/y.m3u8","playlist":"a.m3u8"}]}"#) == ["$.clips[0].playlist"])
        #expect(try Self.paths(#"{"id":"t","clips":[{"item":"a","url":"http://x/y.mp4"}]}"#) == ["$.clips[0].url"])
        #expect(try Self.paths(#"{"id":"t","clips":[{"url":7}]}"#) == ["$.clips[0].url"])
    }

    static func schedule() throws -> Schedule {
        let ready = ScheduledClip(source: ClipSource(item: "vod"), segments: [VODSegment(uri: "/items/vod/a.ts", durationSeconds: 2)])
        let waiting = ScheduledClip(source: ClipSource(url: url), segments: [], state: .pending)
        var schedule = Schedule()
        try schedule.add(TimelineRecord(id: "t", clips: [waiting, ready]))
        try schedule.add(InsertRecord(id: "ad", target: .timeline("t"), position: .preRoll, playOnce: false, clip: waiting))
        return schedule
    }

    @Test func aTimelineIsPendingWhileAClipOrInsertWaitsAndFailedWhenAClipFails() throws {
        var schedule = try Self.schedule()
        #expect(schedule.status("t").name == "pending")
        #expect(schedule.status("t").waiting.map(\.path) == ["$.clips[0]", "$.inserts.ad.clip"])
        #expect(schedule.timeline("t")?.inserts.isEmpty == true)
        // Persisted as they are, and read back the same.
        let (decoded, issues) = ScheduleJSON.decode(try JSONParser.parse(Array(ScheduleJSON.encode(schedule).utf8)))
        #expect(issues.isEmpty && decoded == schedule)

        let resolved = ScheduledClip(source: ClipSource(url: Self.url), segments: [VODSegment(uri: "/items/u/hls/seg0.ts", durationSeconds: 2)])
        let settled1 = schedule.settle(timeline: "t", clip: 0, resolved)
        #expect(settled1)
        let settled2 = schedule.settle(timeline: "t", clip: 0, resolved)
        #expect(!settled2)   // no longer pending
        let settled3 = schedule.settle(insert: "ad", ScheduledClip(source: ClipSource(url: "http://other/x.mp4"), segments: []))
        #expect(!settled3)
        #expect(schedule.status("t").name == "pending")
        let settled4 = schedule.settle(insert: "ad", resolved)
        #expect(settled4)
        #expect(schedule.status("t").name == "ready")
        #expect(schedule.timeline("t")?.inserts.map(\.id) == ["ad"])
        #expect(schedule.timeline("t")?.mainDurationSeconds == 4)

        var failing = try Self.schedule()
        let issue = JSONIssue(path: "$.clips[0].url", reason: "fetching failed: http-error")
        let settled5 = failing.settle(timeline: "t", clip: 0, ScheduledClip(source: ClipSource(url: Self.url), segments: [], state: .failed(issue)))
        #expect(settled5)
        #expect(failing.status("t").name == "failed" && failing.status("t").failed == [issue])
        let (again, _) = ScheduleJSON.decode(try JSONParser.parse(Array(ScheduleJSON.encode(failing).utf8)))
        #expect(again == failing)
    }
}
