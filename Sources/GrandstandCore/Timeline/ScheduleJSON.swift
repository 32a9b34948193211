/// The JSON of timelines and inserts: the management API's request bodies (every bad field
/// reported with its JSON path) and the persisted schedule, which is the same objects with each
/// clip's resolved `segments` (docs/inserts.md "API").
public enum ScheduleJSON {
    /// A timeline request: `{"id", "clips": [{"item", "playlist"?, "begin"?, "end"?}, …]}`; a clip
    /// of a recording is `{"record", "begin"?, "end"?}`.
    public struct TimelineRequest: Sendable, Equatable {
        public var id: String
        public var clips: [ClipSource]
    }

    /// An insert request: `{"id", "timeline"|"channel", "position", "at"?, "after"?, "playOnce"?, "clip"}`.
    public struct InsertRequest: Sendable, Equatable {
        public var id: String
        public var target: InsertRecord.Target
        public var position: Timeline.Position
        public var playOnce: Bool
        public var clip: ClipSource
    }

    /// Ids of timelines and inserts: 1–64 of `A-Z a-z 0-9 . _ -`, starting with a letter or digit
    /// (they appear in URLs: `/timelines/ID.m3u8`).
    public static func idProblem(_ id: String) -> String? {
        guard (1...64).contains(id.utf8.count), id.utf8.first.map(isAlphanumeric) == true,
              id.utf8.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }),
              !id.contains("..") else {
            return "expected 1 to 64 of A-Z a-z 0-9 . _ - starting with a letter or digit"
        }
        return nil
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    // MARK: Requests

    public static func timelineRequest(_ value: JSONValue) -> Result<TimelineRequest, ScheduleIssues> {
        var reader = JSONReader()
        let request = timeline(value, at: .root, &reader, stored: false)
        guard let request, reader.issues.isEmpty else { return .failure(ScheduleIssues(reader.issues.isEmpty ? [JSONIssue(path: .root, reason: "expected a timeline object")] : reader.issues)) }
        return .success(request.0)
    }

    public static func insertRequest(_ value: JSONValue) -> Result<InsertRequest, ScheduleIssues> {
        var reader = JSONReader()
        let request = insert(value, at: .root, &reader, stored: false)
        guard let request, reader.issues.isEmpty else { return .failure(ScheduleIssues(reader.issues.isEmpty ? [JSONIssue(path: .root, reason: "expected an insert object")] : reader.issues)) }
        return .success(request.0)
    }

    private static func id(_ object: JSONObjectView, _ key: String, _ reader: inout JSONReader) -> String? {
        guard let id = reader.string(object[key], at: object.path(key), required: true) else { return nil }
        if let problem = idProblem(id) { reader.report(object.path(key), problem); return nil }
        return id
    }

    private static func seconds(_ value: JSONValue?, at path: JSONPath, _ reader: inout JSONReader) -> Double? {
        guard let value else { return nil }
        guard case .number(let number) = value, number.isFinite, number >= 0 else {
            reader.report(path, "expected a number of seconds >= 0, got \(value.typeName)")
            return nil
        }
        return number
    }

    private static func timeline(_ value: JSONValue, at path: JSONPath, _ reader: inout JSONReader,
                                 stored: Bool) -> (TimelineRequest, [ScheduledClip])? {
        guard let object = reader.object(value, at: path, known: ["id", "clips"]) else {
            return nil
        }
        let id = id(object, "id", &reader)
        var clips: [ClipSource] = [], segments: [ScheduledClip] = []
        if let list = reader.array(object["clips"], at: object.path("clips")) {
            if list.isEmpty { reader.report(object.path("clips"), "a timeline needs at least one clip") }
            for (clipPath, clipValue) in list {
                if let (clip, resolved, state) = clip(clipValue, at: clipPath, &reader, stored: stored) {
                    clips.append(clip)
                    segments.append(ScheduledClip(source: clip, segments: resolved, state: state))
                }
            }
        } else if object["clips"] == nil {
            reader.report(object.path("clips"), "required array is missing")
        }
        guard let id else { return nil }
        return (TimelineRequest(id: id, clips: clips), segments)
    }

    private static func clip(_ value: JSONValue, at path: JSONPath, _ reader: inout JSONReader,
                             stored: Bool) -> (ClipSource, [VODSegment], ScheduledClip.State)? {
        let sources: Set<String> = ["item", "record", "url", "playlist", "begin", "end"]
        guard let object = reader.object(value, at: path, known: stored ? sources.union(["segments", "state", "error"]) : sources) else { return nil }
        // The stored form of a URL clip names its item too (as the API shows it).
        let given = ["item", "record", "url"].filter { object[$0] != nil && !(stored && $0 == "item" && object["url"] != nil) }
        if given.count > 1 { reader.report(object.path(given[1]), "give one of \"item\", \"record\" or \"url\"") }
        // A recording's clip: `{"record": NAME, "begin"?, "end"?}` instead of a cache item.
        var record: String?
        if object["record"] != nil {
            record = reader.string(object["record"], at: object.path("record"))
            if let name = record, let problem = RecordName.problem(name) { reader.report(object.path("record"), problem); record = nil }
            if object["playlist"] != nil { reader.report(object.path("playlist"), "a recording's clip has no playlist") }
        }
        // A URL's clip: `{"url": "http(s)://…", "begin"?, "end"?}`, fetched through the cache.
        var url: String?
        if object["url"] != nil, object["record"] == nil {
            url = reader.string(object["url"], at: object.path("url"))
            if let text = url, let problem = CacheItem.urlProblem(text) { reader.report(object.path("url"), problem); url = nil }
            if object["playlist"] != nil { reader.report(object.path("playlist"), "a URL clip plays the URL itself (no playlist)") }
        }
        let item = object["record"] != nil || object["url"] != nil ? "" : reader.string(object["item"], at: object.path("item"), required: true)
        let playlist = reader.string(object["playlist"], at: object.path("playlist"))
        if let playlist, playlist.hasPrefix("/") || playlist.split(separator: "/").contains("..") {
            reader.report(object.path("playlist"), "expected a relative path inside the item (no leading /, no ..)")
        }
        let begin = seconds(object["begin"], at: object.path("begin"), &reader)
        let end = seconds(object["end"], at: object.path("end"), &reader)
        if let begin, let end, end <= begin { reader.report(object.path("end"), "end (\(end)) must be after begin (\(begin))") }
        var segments: [VODSegment] = []
        if stored, let list = reader.array(object["segments"], at: object.path("segments")) {
            for (segmentPath, segmentValue) in list {
                if let segment = segment(segmentValue, at: segmentPath, &reader) { segments.append(segment) }
            }
        }
        var state = ScheduledClip.State.ready
        if stored {
            switch reader.string(object["state"], at: object.path("state")) {
            case nil, "ready": break
            case "pending": state = .pending
            case "failed":
                let issue = object["error"]
                if case .string(let at)? = issue?["path"], case .string(let reason)? = issue?["reason"] {
                    state = .failed(JSONIssue(path: JSONPath(stringLiteral: at), reason: reason))
                } else {
                    reader.report(object.path("error"), "a failed clip needs {\"path\",\"reason\"}")
                }
            case let other?: reader.report(object.path("state"), "unknown clip state \"\(other)\" (ready, pending, failed)")
            }
        }
        guard let item else { return nil }
        if object["record"] != nil {
            guard let record else { return nil }
            return (ClipSource(record: record, begin: begin, end: end), segments, state)
        }
        if object["url"] != nil {
            guard let url else { return nil }
            return (ClipSource(url: url, begin: begin, end: end), segments, state)
        }
        return (ClipSource(item: item, playlist: playlist, begin: begin, end: end), segments, state)
    }

    private static func segment(_ value: JSONValue, at path: JSONPath, _ reader: inout JSONReader) -> VODSegment? {
        guard let object = reader.object(value, at: path, known: ["uri", "duration", "offset", "length"]) else { return nil }
        let uri = reader.string(object["uri"], at: object.path("uri"), required: true)
        let duration = seconds(object["duration"], at: object.path("duration"), &reader)
        let offset = reader.integer(object["offset"], at: object.path("offset"), in: 0...Int(Int32.max) * 1024)
        let length = reader.integer(object["length"], at: object.path("length"), in: 0...Int(Int32.max) * 1024)
        guard let uri, let duration else { return nil }
        return VODSegment(uri: uri, durationSeconds: duration, byteRange: offset.flatMap { start in length.map { start..<start + $0 } })
    }

    private static func insert(_ value: JSONValue, at path: JSONPath, _ reader: inout JSONReader,
                               stored: Bool) -> (InsertRequest, ScheduledClip)? {
        guard let object = reader.object(value, at: path, known: ["id", "timeline", "channel", "position", "at", "after", "playOnce", "clip"]) else {
            return nil
        }
        let id = id(object, "id", &reader)
        var target: InsertRecord.Target?
        switch (object["timeline"], object["channel"]) {
        case (nil, nil): reader.report(object.path("timeline"), "give \"timeline\" (VOD) or \"channel\" (live)")
        case (_?, _?): reader.report(object.path("channel"), "give \"timeline\" or \"channel\", not both")
        case (_?, nil): target = self.id(object, "timeline", &reader).map(InsertRecord.Target.timeline)
        case (nil, _?): target = self.id(object, "channel", &reader).map(InsertRecord.Target.channel)
        }
        let position = position(object, &reader)
        let playOnce = reader.bool(object["playOnce"], at: object.path("playOnce")) ?? false
        var clip: (ClipSource, [VODSegment], ScheduledClip.State)?
        if let clipValue = object["clip"] {
            clip = self.clip(clipValue, at: object.path("clip"), &reader, stored: stored)
        } else {
            reader.report(object.path("clip"), "required object is missing")
        }
        guard let id, let target, let position, let clip else { return nil }
        return (InsertRequest(id: id, target: target, position: position, playOnce: playOnce, clip: clip.0),
                ScheduledClip(source: clip.0, segments: clip.1, state: clip.2))
    }

    private static let positions = ["preRoll", "midRoll", "wallClock", "postRoll", "pod"]

    private static func position(_ object: JSONObjectView, _ reader: inout JSONReader) -> Timeline.Position? {
        guard let name = reader.string(object["position"], at: object.path("position"), required: true) else { return nil }
        let needsAt = name == "midRoll" || name == "wallClock"
        if !needsAt && object["at"] != nil { reader.report(object.path("at"), "only midRoll and wallClock take \"at\"") }
        if name != "pod" && object["after"] != nil { reader.report(object.path("after"), "only a pod takes \"after\"") }
        switch name {
        case "preRoll": return .preRoll
        case "postRoll": return .postRoll
        case "midRoll":
            guard object["at"] != nil else { reader.report(object.path("at"), "a midRoll needs \"at\": main-timeline seconds"); return nil }
            return seconds(object["at"], at: object.path("at"), &reader).map { .midRoll(seconds: $0) }
        case "wallClock":
            switch object["at"] {
            case .number(let unix)? where unix.isFinite && unix > 0: return .wallClock(unixSeconds: unix)
            case .string(let text)?:
                if let date = CatalogDate.parse(text), !date.wholeDay { return .wallClock(unixSeconds: date.seconds) }
                reader.report(object.path("at"), "expected an RFC 3339 date-time (2026-11-21T15:00:00Z) or Unix seconds")
            default:
                reader.report(object.path("at"), "a wallClock insert needs \"at\": an RFC 3339 date-time or Unix seconds")
            }
            return nil
        case "pod":
            guard let anchor = reader.string(object["after"], at: object.path("after"), required: true) else { return nil }
            return .after(insertID: anchor)
        default:
            reader.report(object.path("position"), "unknown position \"\(name)\" (expected one of: \(positions.joined(separator: ", ")))")
            return nil
        }
    }

    // MARK: Encoding and the stored document

    public static func json(_ record: TimelineRecord, mainDuration: Double? = nil, withSegments: Bool) -> JSONValue {
        var members: [(String, JSONValue)] = [("id", .string(record.id)), ("clips", .array(record.clips.map { json($0, withSegments: withSegments) }))]
        if let mainDuration { members.append(("mainDurationSeconds", .number(mainDuration))) }
        if !withSegments { members.append(("playlist", .string("/timelines/\(record.id).m3u8"))) }
        return .object(members)
    }

    public static func json(_ insert: InsertRecord, withSegments: Bool) -> JSONValue {
        var members: [(String, JSONValue)] = [("id", .string(insert.id))]
        switch insert.target {
        case .timeline(let id): members.append(("timeline", .string(id)))
        case .channel(let id): members.append(("channel", .string(id)))
        }
        switch insert.position {
        case .preRoll: members.append(("position", .string("preRoll")))
        case .postRoll: members.append(("position", .string("postRoll")))
        case .midRoll(let seconds): members += [("position", .string("midRoll")), ("at", .number(seconds))]
        case .wallClock(let unix): members += [("position", .string("wallClock")), ("at", .number(unix))]
        case .after(let anchor): members += [("position", .string("pod")), ("after", .string(anchor))]
        }
        members.append(("playOnce", .bool(insert.playOnce)))
        members.append(("clip", json(insert.clip, withSegments: withSegments)))
        return .object(members)
    }

    static func json(_ clip: ScheduledClip, withSegments: Bool) -> JSONValue {
        var members: [(String, JSONValue)] = clip.source.record.map { [("record", .string($0))] }
            ?? clip.source.url.map { [("url", .string($0)), ("item", .string(clip.source.item))] } ?? [("item", .string(clip.source.item))]
        if let playlist = clip.source.playlist { members.append(("playlist", .string(playlist))) }
        if clip.state != .ready || (!withSegments && clip.source.url != nil) { members.append(("state", .string(clip.state.name))) }
        if case .failed(let issue) = clip.state {
            members.append(("error", .object([("path", .string(issue.path.description)), ("reason", .string(issue.reason))])))
        }
        if let begin = clip.source.begin { members.append(("begin", .number(begin))) }
        if let end = clip.source.end { members.append(("end", .number(end))) }
        // Where the segment-accurate cut landed (docs/inserts.md "Clips and the rough cut").
        if !withSegments, let kept = clip.clip.kept {
            members.append(("kept", .object([("begin", .number(kept.begin)), ("end", .number(kept.end))])))
        }
        if withSegments {
            members.append(("segments", .array(clip.segments.map { segment in
                var fields: [(String, JSONValue)] = [("uri", .string(segment.uri)), ("duration", .number(segment.durationSeconds))]
                if let range = segment.byteRange {
                    fields += [("offset", .number(Double(range.lowerBound))), ("length", .number(Double(range.count)))]
                }
                return .object(fields)
            })))
        } else {
            members.append(("durationSeconds", .number(clip.clip.cut.reduce(0) { $0 + $1.durationSeconds })))
        }
        return .object(members)
    }

    /// The persisted document: `{"version":1,"timelines":[…],"inserts":[…]}` with segments.
    public static func encode(_ schedule: Schedule) -> String {
        JSONValue.object([
            ("version", .number(1)),
            ("timelines", .array(schedule.timelines.map { json($0, withSegments: true) })),
            ("inserts", .array(schedule.inserts.map { json($0, withSegments: true) })),
        ]).encoded + "\n"
    }

    /// Reads a persisted document; the issues name anything left out.
    public static func decode(_ value: JSONValue) -> (Schedule, [JSONIssue]) {
        var reader = JSONReader()
        var schedule = Schedule()
        guard let root = reader.object(value, at: .root, known: ["version", "timelines", "inserts"]) else { return (schedule, reader.issues) }
        for (path, item) in reader.array(root["timelines"], at: root.path("timelines")) ?? [] {
            guard let (request, segments) = timeline(item, at: path, &reader, stored: true),
                  request.clips.count == segments.count else { continue }
            let clips = segments
            do { try schedule.add(TimelineRecord(id: request.id, clips: clips)) } catch { reader.report(path, "\(error)") }
        }
        for (path, item) in reader.array(root["inserts"], at: root.path("inserts")) ?? [] {
            guard let (request, scheduled) = insert(item, at: path, &reader, stored: true) else { continue }
            let record = InsertRecord(id: request.id, target: request.target, position: request.position, playOnce: request.playOnce,
                                      clip: scheduled)
            do { try schedule.add(record) } catch { reader.report(path, "\(error)") }
        }
        return (schedule, reader.issues)
    }
}
