/// The JSON form of an item: the journal payload and the management API's item (one shape).
/// Nanosecond times are strings (JSON numbers are doubles and would round them).
extension CacheItem {
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("id", .string(id)), ("source", .string(source.description)), ("category", .string(category)),
            ("state", .string(state.rawValue)),
        ]
        if let error { members.append(("error", .string(error.rawValue))) }
        if let errorDetail { members.append(("errorDetail", .string(errorDetail))) }
        if let expectedBytes { members.append(("expectedBytes", .number(Double(expectedBytes)))) }
        if let originURL { members.append(("originURL", .string(originURL))) }
        if let prepositionSeconds { members.append(("prepositionSeconds", .number(prepositionSeconds))) }
        if let quality { members.append(("quality", quality.json)) }
        if let title { members.append(("title", .string(title))) }
        if let type { members.append(("type", .string(type))) }
        if let thumbnail { members.append(("thumbnail", .string(thumbnail))) }
        if let firstServedNanoseconds { members.append(("firstServed", .string(String(firstServedNanoseconds)))) }
        members += [
            ("storedBytes", .number(Double(storedBytes))), ("locked", .bool(locked)),
            ("created", .string(String(createdNanoseconds))), ("lastAccess", .string(String(lastAccessNanoseconds))),
            ("files", .array(files.map { file in
                var entry: [(String, JSONValue)] = [("path", .string(file.path)), ("size", .number(Double(file.size))),
                                                    ("sha256", .string(file.sha256)), ("stored", .string(String(file.storedNanoseconds)))]
                if let type = file.contentType { entry.append(("contentType", .string(type))) }
                return .object(entry)
            })),
            ("consumption", .array(consumption.map { record in
                .object([("startPosition", .number(record.startPosition)), ("endPosition", .number(record.endPosition)),
                         ("recorded", .string(String(record.recordedNanoseconds)))])
            })),
        ]
        return .object(members)
    }

    /// The journal's form: `json` plus the per-item token hook (`token`), which the API never shows.
    public var journalJSON: JSONValue {
        guard !originToken.isEmpty, case .object(var members) = json else { return json }
        members.append(("token", originToken.json))
        return .object(members)
    }

    /// Parses `json` (either form); nil when a required member is missing or of the wrong type.
    public init?(json: JSONValue) {
        guard case .string(let id)? = json["id"], case .string(let sourceText)? = json["source"],
              let source = CacheItemSource(sourceText), case .string(let stateText)? = json["state"],
              let state = CacheItemState(rawValue: stateText), let created = Self.int64(json["created"]),
              let access = Self.int64(json["lastAccess"]) else { return nil }
        self.init(id: id, source: source, state: state, now: created)
        lastAccessNanoseconds = access
        if case .string(let category)? = json["category"] { self.category = category }
        if case .string(let code)? = json["error"] { error = CacheErrorCode(rawValue: code) }
        if case .string(let detail)? = json["errorDetail"] { errorDetail = detail }
        if case .number(let bytes)? = json["expectedBytes"] { expectedBytes = Int(bytes) }
        if case .bool(let value)? = json["locked"] { locked = value }
        if case .string(let url)? = json["originURL"] { originURL = url }
        if case .number(let seconds)? = json["prepositionSeconds"] { prepositionSeconds = seconds }
        if let choice = json["quality"] { quality = VariantChoice.parse(choice) }
        if let token = json["token"] { originToken = OriginTokenHook(journal: token) }
        if case .string(let text)? = json["title"] { title = text }
        if case .string(let text)? = json["type"] { type = text }
        if case .string(let text)? = json["thumbnail"] { thumbnail = text }
        firstServedNanoseconds = Self.int64(json["firstServed"])
        if case .array(let list)? = json["files"] {
            for entry in list {
                guard case .string(let path)? = entry["path"], case .number(let size)? = entry["size"],
                      case .string(let sha)? = entry["sha256"], let stored = Self.int64(entry["stored"]) else { return nil }
                var type: String?
                if case .string(let text)? = entry["contentType"] { type = text }
                files.append(CacheFile(path: path, size: Int(size), sha256: sha, contentType: type, storedNanoseconds: stored))
            }
        }
        if case .array(let list)? = json["consumption"] {
            for entry in list {
                guard case .number(let start)? = entry["startPosition"], case .number(let end)? = entry["endPosition"],
                      let at = Self.int64(entry["recorded"]) else { return nil }
                consumption.append(ConsumptionRecord(startPosition: start, endPosition: end, recordedNanoseconds: at))
            }
        }
    }

    private static func int64(_ value: JSONValue?) -> Int64? {
        guard case .string(let text)? = value else { return nil }
        return Int64(text)
    }
}
