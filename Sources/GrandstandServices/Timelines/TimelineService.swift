import GrandstandCore
import GrandstandRuntime
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import GrandstandOperations

/// The gateway's timelines and inserts (docs/inserts.md): the schedule, persisted in
/// `stateDirectory/timelines.json` on every change (crash-safe replace), the play-once memory of
/// fan sessions (bounded, in memory) and the live breaks' anchors (in memory: a restarted
/// channel starts a new numbering anyway).
final class TimelineService: Sendable {
    private struct State {
        var schedule = Schedule()
        var sessions: SessionSeen
        var anchors: [String: [String: LiveSplice.Anchor]] = [:]
        var resolver: ClipResolver?
        /// Finished recordings by name (clips `{"record": NAME}`).
        var recordings: (@Sendable (String) -> Recording?)?
    }
    private let state: Mutex<State>
    let path: String
    /// What loading the stored schedule left out (shown by `GET /api/v1/timelines`).
    let loadIssues: [JSONIssue]

    /// A refused request: the HTTP status and the problems with their JSON paths.
    struct Refusal: Error {
        var status: Int
        var issues: [JSONIssue]

        init(_ status: Int, _ issues: [JSONIssue]) {
            self.status = status
            self.issues = issues
        }

        init(_ error: ScheduleError) {
            switch error {
            case .duplicate: self.init(409, [JSONIssue(path: "$.id", reason: error.description)])
            case .unknownTimeline: self.init(404, [JSONIssue(path: "$.timeline", reason: error.description)])
            case .unknownInsert: self.init(404, [JSONIssue(path: "$.id", reason: error.description)])
            case .invalid(let issue): self.init(400, [issue])
            }
        }
    }

    init(stateDirectory: String, sessions: SessionSeen = SessionSeen()) {
        let path = stateDirectory + "/timelines.json"
        self.path = path
        var schedule = Schedule(), issues: [JSONIssue] = []
        do {
            if let bytes = try AtomicFile.read(path, limit: 64 << 20) {
                let document = try JSONParser.parse(bytes)
                (schedule, issues) = ScheduleJSON.decode(document)
            }
        } catch {
            issues = [JSONIssue(path: .root, reason: "\(path): \(error)")]
        }
        loadIssues = issues
        state = Mutex(State(schedule: schedule, sessions: sessions))
    }

    /// Clips come from the content cache; without one, scheduling is refused (503). Setting it
    /// follows the cache's item changes: clips waiting for a URL's item are settled when it is
    /// cached or fails (and at once, for items that were cached while the daemon was down).
    var cache: ContentCache? {
        get { state.withLock { $0.resolver?.cache } }
        set {
            state.withLock { $0.resolver = newValue.map(ClipResolver.init) }
            newValue?.events.observe { [weak self] event in
                guard [.downloaded, .failed, .deleted, .evicted].contains(event.kind) else { return }
                self?.settlePending()
            }
            settlePending()
        }
    }

    /// Where clips of recordings come from (the recorder).
    var recordings: (@Sendable (String) -> Recording?)? {
        get { state.withLock { $0.recordings } }
        set { state.withLock { $0.recordings = newValue } }
    }

    var current: Schedule { state.withLock { $0.schedule } }

    /// A clip's segments: a recording's byte ranges, or a cache item's (503 without a cache).
    private func resolve(_ source: ClipSource, at path: JSONPath) throws(Refusal) -> Result<[VODSegment], ScheduleIssues> {
        guard let name = source.record else { return try resolver().resolve(source, at: path) }
        guard let record = state.withLock({ $0.recordings })?(name) else {
            return .failure(ScheduleIssues([JSONIssue(path: path.appending("record"), reason: "no recording \(name)")]))
        }
        guard record.state != .recording else {
            return .failure(ScheduleIssues([JSONIssue(path: path.appending("record"), reason: "recording \(name) is still running; stop it first")]))
        }
        let segments = record.segments.map { segment in
            VODSegment(uri: "/records/\(name).ts", durationSeconds: segment.durationSeconds, byteRange: segment.byteRange,
                       discontinuity: segment.discontinuity)
        }
        guard !Timeline.Clip(segments: segments, begin: source.begin, end: source.end).cut.isEmpty else {
            return .failure(ScheduleIssues([JSONIssue(path: path.appending("begin"), reason: "the cut keeps no segment (the recording lasts \(record.durationSeconds) s)")]))
        }
        return .success(segments)
    }

    // MARK: Changes

    /// A clip as scheduled: a URL clip's item is asked for and the clip is `pending` until it is
    /// cached (resolved now when it already is); other clips are resolved now.
    private func scheduled(_ source: ClipSource, at path: JSONPath) throws(Refusal) -> Result<ScheduledClip, ScheduleIssues> {
        guard source.url != nil else { return try resolve(source, at: path).map { ScheduledClip(source: source, segments: $0) } }
        let resolver = try resolver()
        if let problem = resolver.request(source, at: path) { return .failure(problem) }
        switch resolver.resolveURL(source, at: path) {
        case .ready(let segments): return .success(ScheduledClip(source: source, segments: segments))
        case .pending: return .success(ScheduledClip(source: source, segments: [], state: .pending))
        case .failed(let problem): return .failure(problem)
        }
    }

    /// Settles every pending URL clip whose item has been cached (resolved) or has failed (with
    /// the item's error at the clip's JSON path), and persists the outcome.
    func settlePending() {
        guard let resolver = state.withLock({ $0.resolver }) else { return }
        let schedule = current
        var timelines: [(String, Int, ScheduledClip)] = [], inserts: [(String, ScheduledClip)] = []
        func outcome(_ clip: ScheduledClip, _ path: JSONPath) -> ScheduledClip? {
            switch resolver.resolveURL(clip.source, at: path) {
            case .pending: return nil
            case .ready(let segments): return ScheduledClip(source: clip.source, segments: segments)
            case .failed(let problem):
                return ScheduledClip(source: clip.source, segments: [], state: .failed(problem.issues.first ?? JSONIssue(path: path, reason: "failed")))
            }
        }
        for record in schedule.timelines {
            for (index, clip) in record.clips.enumerated() where clip.state == .pending {
                if let next = outcome(clip, JSONPath.root.appending("clips").appending(index: index)) { timelines.append((record.id, index, next)) }
            }
        }
        for insert in schedule.inserts where insert.clip.state == .pending {
            if let next = outcome(insert.clip, JSONPath.root.appending("clip")) { inserts.append((insert.id, next)) }
        }
        guard !timelines.isEmpty || !inserts.isEmpty else { return }
        // A failed write leaves the clips pending: the next item change or start settles them again.
        try? change { (schedule: inout Schedule) throws(ScheduleError) in
            for (id, index, clip) in timelines { _ = schedule.settle(timeline: id, clip: index, clip) }
            for (id, clip) in inserts { _ = schedule.settle(insert: id, clip) }
        }
    }

    func createTimeline(_ body: JSONValue) throws(Refusal) -> TimelineRecord {
        let request: ScheduleJSON.TimelineRequest
        switch ScheduleJSON.timelineRequest(body) {
        case .success(let value): request = value
        case .failure(let problem): throw Refusal(400, problem.issues)
        }
        var clips: [ScheduledClip] = [], issues: [JSONIssue] = []
        for (index, source) in request.clips.enumerated() {
            switch try scheduled(source, at: JSONPath.root.appending("clips").appending(index: index)) {
            case .success(let clip): clips.append(clip)
            case .failure(let problem): issues += problem.issues
            }
        }
        guard issues.isEmpty else { throw Refusal(400, issues) }
        let record = TimelineRecord(id: request.id, clips: clips)
        try change { (schedule: inout Schedule) throws(ScheduleError) in try schedule.add(record) }
        // An item cached between the resolution above and the change: settled now.
        if clips.contains(where: { $0.state == .pending }) { settlePending() }
        return current.timelineRecord(record.id) ?? record
    }

    func deleteTimeline(_ id: String) throws(Refusal) {
        try change { (schedule: inout Schedule) throws(ScheduleError) in try schedule.removeTimeline(id) }
        state.withLock { $0.sessions.forget { $0.hasPrefix(id + "\n") } }
    }

    func addInsert(_ body: JSONValue) throws(Refusal) -> InsertRecord {
        let request: ScheduleJSON.InsertRequest
        switch ScheduleJSON.insertRequest(body) {
        case .success(let value): request = value
        case .failure(let problem): throw Refusal(400, problem.issues)
        }
        let clip: ScheduledClip
        switch try scheduled(request.clip, at: JSONPath.root.appending("clip")) {
        case .success(let value): clip = value
        case .failure(let problem): throw Refusal(400, problem.issues)
        }
        let record = InsertRecord(id: request.id, target: request.target, position: request.position, playOnce: request.playOnce,
                                  clip: clip)
        try change { (schedule: inout Schedule) throws(ScheduleError) in try schedule.add(record) }
        if clip.state == .pending { settlePending() }
        return current.inserts.first { $0.id == record.id } ?? record
    }

    func deleteInsert(_ id: String) throws(Refusal) {
        try change { (schedule: inout Schedule) throws(ScheduleError) in try schedule.removeInsert(id) }
    }

    private func resolver() throws(Refusal) -> ClipResolver {
        guard let resolver = state.withLock({ $0.resolver }) else {
            throw Refusal(503, [JSONIssue(path: .root, reason: "no content cache configured: clips come from cached items")])
        }
        return resolver
    }

    /// Applies `body` to a copy, persists it, then makes it current (a failed write changes nothing).
    private func change(_ body: (inout Schedule) throws(ScheduleError) -> Void) throws(Refusal) {
        let failure = state.withLock { state -> Refusal? in
            var next = state.schedule
            do throws(ScheduleError) { try body(&next) } catch { return Refusal(error) }
            let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
            if !directory.isEmpty, mkdir(directory, 0o755) != 0, errno != EEXIST {
                return Refusal(500, [JSONIssue(path: .root, reason: "saving the schedule: mkdir \(directory): \(String(cString: strerror(errno)))")])
            }
            do {
                try AtomicFile.write(Array(ScheduleJSON.encode(next).utf8), to: path, mode: 0o644)
            } catch {
                return Refusal(500, [JSONIssue(path: .root, reason: "saving the schedule: \(error)")])
            }
            state.schedule = next
            return nil
        }
        if let failure { throw failure }
    }

    // MARK: Playlists

    /// Timeline `id`'s playlist for `session` (nil: no session memory, every insert shown),
    /// remembering the play-once inserts it showed. Nil for an unknown timeline.
    func playlist(_ id: String, session: String?, now: Int64) -> String? {
        state.withLock { state in
            guard let timeline = state.schedule.timeline(id) else { return nil }
            let key = session.map { id + "\n" + $0 }
            let seen = key.map { state.sessions.seen($0, now: now) } ?? []
            let (text, shown) = timeline.playlist(seen: seen)
            if let key, !shown.isEmpty { state.sessions.add(shown, to: key, now: now) }
            return text
        }
    }

    var sessionCount: Int { state.withLock { $0.sessions.count } }

    /// Channel `id`'s live inserts: none, some spliced already (an anchor is known), or one due
    /// (its wall-clock time has come: the next splice may anchor it) — else pending.
    enum LiveState { case none, pending, due, spliced }

    func liveState(_ id: String, nowNanoseconds: Int64) -> LiveState {
        state.withLock { state in
            let inserts = state.schedule.inserts(for: .channel(id))
            guard !inserts.isEmpty else { return .none }
            if !(state.anchors[id] ?? [:]).isEmpty { return .spliced }
            let now = Double(nowNanoseconds) / 1e9
            return inserts.contains { if case .wallClock(let at) = $0.position { return at <= now } else { return false } } ? .due : .pending
        }
    }

    /// Channel `id`'s wall-clock breaks: each wallClock insert with its pods, in schedule order.
    func liveBreaks(_ id: String) -> [LiveSplice.Break] {
        state.withLock { Self.breaks(id, $0.schedule) }
    }

    private static func breaks(_ id: String, _ schedule: Schedule) -> [LiveSplice.Break] {
        let timeline = Timeline(main: [], inserts: schedule.inserts(for: .channel(id)).map(\.insert))
        return timeline.inserts.compactMap { insert in
            guard case .wallClock(let at) = insert.position else { return nil }
            return LiveSplice.Break(id: insert.id, unixSeconds: at, segments: timeline.breakSegments(anchoredAt: insert.id),
                                    playOnce: insert.playOnce)
        }
    }

    /// Channel `id`'s live playlist text with its wall-clock breaks spliced in (LiveSplice).
    func spliceLive(_ id: String, _ text: String) -> String {
        state.withLock { state in
            let breaks = Self.breaks(id, state.schedule)
            var known = state.anchors[id] ?? [:]
            let out = LiveSplice.splice(text, breaks: breaks, anchors: &known)
            // Anchors of inserts since deleted are dropped.
            state.anchors[id] = known.filter { entry in breaks.contains { $0.id == entry.key } }
            return out
        }
    }
}
