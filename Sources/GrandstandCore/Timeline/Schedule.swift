/// Where a clip's media comes from: a cached item's media playlist (or its root playlist, the
/// first variant of a master), with the optional rough cut (docs/inserts.md "Clips").
public struct ClipSource: Sendable, Equatable {
    /// A content-cache item id (an origin item, or `file-channel-ID` for a file channel's files);
    /// empty for a recording's clip.
    public var item: String
    /// A playlist path inside the item; nil: the item's root playlist.
    public var playlist: String?
    public var begin: Double?
    public var end: Double?
    /// A finished recording's name (`/records/NAME.ts` byte ranges) instead of a cache item.
    public var record: String?
    /// An http(s) URL (an HLS playlist or an MP4) fetched through the cache as item
    /// `CacheItem.urlItemID(url)`, which `item` then names (docs/inserts.md "Clips from any URL").
    public var url: String?

    public init(item: String, playlist: String? = nil, begin: Double? = nil, end: Double? = nil) {
        self.item = item
        self.playlist = playlist
        self.begin = begin
        self.end = end
    }

    /// A clip of the media at `url`, fetched through the cache.
    public init(url: String, begin: Double? = nil, end: Double? = nil) {
        self.init(item: CacheItem.urlItemID(url), begin: begin, end: end)
        self.url = url
    }

    /// A clip of recording `record` (docs/records.md "Clips").
    public init(record: String, begin: Double? = nil, end: Double? = nil) {
        self.init(item: "", begin: begin, end: end)
        self.record = record
    }
}

/// A clip as scheduled: its source and the segments it resolved to when it was scheduled (the
/// URIs the fan listener serves: `/items/ID/…` or origin URLs), so a restart needs no re-resolution.
public struct ScheduledClip: Sendable, Equatable {
    /// Whether the clip's segments are known: a URL clip waits `pending` until its item is
    /// cached, then is resolved (`ready`) or `failed` with the problem at the clip's JSON path.
    public enum State: Sendable, Equatable {
        case ready
        case pending
        case failed(JSONIssue)

        public var name: String {
            switch self {
            case .ready: "ready"
            case .pending: "pending"
            case .failed: "failed"
            }
        }
    }

    public var source: ClipSource
    public var segments: [VODSegment]
    public var state: State

    public init(source: ClipSource, segments: [VODSegment], state: State = .ready) {
        self.source = source
        self.segments = segments
        self.state = state
    }

    public var clip: Timeline.Clip { Timeline.Clip(segments: segments, begin: source.begin, end: source.end) }
}

/// A main-content timeline as stored: an id and its clips in order.
public struct TimelineRecord: Sendable, Equatable {
    public var id: String
    public var clips: [ScheduledClip]

    public init(id: String, clips: [ScheduledClip]) {
        self.id = id
        self.clips = clips
    }
}

/// An insert as stored: which timeline (VOD) or live channel it belongs to, where, and its clip.
public struct InsertRecord: Sendable, Equatable {
    public enum Target: Sendable, Equatable, Hashable {
        case timeline(String)
        case channel(String)
    }

    public var id: String
    public var target: Target
    public var position: Timeline.Position
    public var playOnce: Bool
    public var clip: ScheduledClip

    public init(id: String, target: Target, position: Timeline.Position, playOnce: Bool, clip: ScheduledClip) {
        self.id = id
        self.target = target
        self.position = position
        self.playOnce = playOnce
        self.clip = clip
    }

    public var insert: Timeline.Insert { Timeline.Insert(id: id, clip: clip.clip, position: position, playOnce: playOnce) }
}

/// A timeline's readiness: the clips still waiting for their URL's item, and those that failed.
public struct TimelineStatus: Sendable, Equatable {
    public struct Waiting: Sendable, Equatable {
        public var path: String
        public var item: String
    }

    public var waiting: [Waiting] = []
    public var failed: [JSONIssue] = []

    public init() {}

    /// `ready`, `pending` or `failed` (the API's `state`).
    public var name: String { !failed.isEmpty ? "failed" : !waiting.isEmpty ? "pending" : "ready" }
}

/// Problems with a request or clip, each with its JSON path.
public struct ScheduleIssues: Error, Sendable, Equatable {
    public var issues: [JSONIssue]

    public init(_ issues: [JSONIssue]) { self.issues = issues }
}

/// Why a schedule change was refused (the management API answers 404 / 409 / 400 with it).
public enum ScheduleError: Error, Sendable, Equatable, CustomStringConvertible {
    case duplicate(String)
    case unknownTimeline(String)
    case unknownInsert(String)
    /// A field's value does not fit the rest of the schedule (JSON path and reason).
    case invalid(JSONIssue)

    public var description: String {
        switch self {
        case .duplicate(let id): "\(id) already exists"
        case .unknownTimeline(let id): "no timeline \(id)"
        case .unknownInsert(let id): "no insert \(id)"
        case .invalid(let issue): issue.description
        }
    }
}

/// Every timeline and insert of the gateway: the state the management API changes, persisted as
/// one JSON document (`encoded` / `decode`), and the source of per-session playlists.
public struct Schedule: Sendable, Equatable {
    public private(set) var timelines: [TimelineRecord] = []
    public private(set) var inserts: [InsertRecord] = []

    public init(timelines: [TimelineRecord] = [], inserts: [InsertRecord] = []) {
        self.timelines = timelines
        self.inserts = inserts
    }

    public func timelineRecord(_ id: String) -> TimelineRecord? { timelines.first { $0.id == id } }

    /// The stitchable timeline `id` with its inserts, nil when unknown. Inserts whose clip is not
    /// ready (waiting for, or failed to get, their URL) are left out.
    public func timeline(_ id: String) -> Timeline? {
        guard let record = timelineRecord(id) else { return nil }
        return Timeline(main: record.clips.map(\.clip),
                        inserts: inserts.filter { $0.target == .timeline(id) && $0.clip.state == .ready }.map(\.insert))
    }

    /// Where timeline `id` stands (docs/inserts.md "Scheduling before the URL is cached"):
    /// `failed` when a main clip failed; else `pending` while a main clip or one of its inserts
    /// waits for its URL; else `ready`. The waiting and failed clips come with their JSON paths
    /// (`$.clips[N]`, `$.inserts.ID.clip`) and item ids.
    public func status(_ id: String) -> TimelineStatus {
        var status = TimelineStatus()
        guard let record = timelineRecord(id) else { return status }
        for (index, clip) in record.clips.enumerated() {
            let path = "$.clips[\(index)]"
            switch clip.state {
            case .ready: break
            case .pending: status.waiting.append(.init(path: path, item: clip.source.item))
            case .failed(let issue): status.failed.append(issue)
            }
        }
        for insert in inserts where insert.target == .timeline(id) && insert.clip.state == .pending {
            status.waiting.append(.init(path: "$.inserts.\(insert.id).clip", item: insert.clip.source.item))
        }
        return status
    }

    /// The inserts of one target whose clip is ready (not waiting for or failed to get its URL), in scheduling order.
    public func inserts(for target: InsertRecord.Target) -> [InsertRecord] { inserts.filter { $0.target == target && $0.clip.state == .ready } }

    public mutating func add(_ timeline: TimelineRecord) throws(ScheduleError) {
        guard timelineRecord(timeline.id) == nil else { throw .duplicate("timeline \(timeline.id)") }
        timelines.append(timeline)
    }

    /// Removes a timeline and its inserts.
    public mutating func removeTimeline(_ id: String) throws(ScheduleError) {
        guard timelineRecord(id) != nil else { throw .unknownTimeline(id) }
        timelines.removeAll { $0.id == id }
        inserts.removeAll { $0.target == .timeline(id) }
    }

    /// Adds an insert: ids are unique across the gateway; a pod's anchor is an insert of the same
    /// target; a VOD timeline takes no wall-clock position and a live channel only wall-clock or pods.
    public mutating func add(_ insert: InsertRecord) throws(ScheduleError) {
        guard !inserts.contains(where: { $0.id == insert.id }) else { throw .duplicate("insert \(insert.id)") }
        if case .timeline(let id) = insert.target, timelineRecord(id) == nil { throw .unknownTimeline(id) }
        switch (insert.target, insert.position) {
        case (.timeline, .wallClock):
            throw .invalid(JSONIssue(path: "$.at", reason: "a wall-clock time is for live channels; a timeline's mid-roll takes main-timeline seconds"))
        case (.channel, .preRoll), (.channel, .postRoll), (.channel, .midRoll):
            throw .invalid(JSONIssue(path: "$.position", reason: "a live channel takes wallClock inserts and pods after them"))
        case (_, .after(let anchor)):
            guard inserts.contains(where: { $0.id == anchor && $0.target == insert.target }) else {
                throw .invalid(JSONIssue(path: "$.after", reason: "no insert \(anchor) on the same timeline or channel"))
            }
        default:
            break
        }
        inserts.append(insert)
    }

    /// Replaces clip `index` of timeline `id` with its outcome while it is still pending with the
    /// same source (a URL clip whose item was cached or failed); false when nothing changed.
    public mutating func settle(timeline id: String, clip index: Int, _ clip: ScheduledClip) -> Bool {
        guard let at = timelines.firstIndex(where: { $0.id == id }), timelines[at].clips.indices.contains(index),
              timelines[at].clips[index].state == .pending, timelines[at].clips[index].source == clip.source else { return false }
        timelines[at].clips[index] = clip
        return true
    }

    /// The same for insert `id`'s clip.
    public mutating func settle(insert id: String, _ clip: ScheduledClip) -> Bool {
        guard let at = inserts.firstIndex(where: { $0.id == id }), inserts[at].clip.state == .pending,
              inserts[at].clip.source == clip.source else { return false }
        inserts[at].clip = clip
        return true
    }

    /// Removes an insert and the pods chained after it (they would lose their break).
    public mutating func removeInsert(_ id: String) throws(ScheduleError) {
        guard inserts.contains(where: { $0.id == id }) else { throw .unknownInsert(id) }
        var gone: Set<String> = [id]
        var grew = true
        while grew {
            grew = false
            for insert in inserts where !gone.contains(insert.id) {
                if case .after(let anchor) = insert.position, gone.contains(anchor) { gone.insert(insert.id); grew = true }
            }
        }
        inserts.removeAll { gone.contains($0.id) }
    }
}
