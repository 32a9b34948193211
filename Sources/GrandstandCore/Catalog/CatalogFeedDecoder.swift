/// Decodes a catalog feed: `{"fixtures":[…]}` (a StreamPlay answer with `total/limit/offset`
/// too) or a bare array of fixture objects, in the gateway's shape or StreamPlay's. A bad fixture
/// is left out with its problems reported by JSON path; the others load, so one typo at the
/// origin does not empty the catalog. Unknown keys are kept (re-encoded in answers), not errors.
public enum CatalogFeedDecoder {
    public struct Result: Sendable {
        public var fixtures: [Fixture]
        public var issues: [JSONIssue]
    }

    /// The feed could not be read at all (not JSON, or no fixture list).
    public struct FeedError: Error, Sendable, Equatable, CustomStringConvertible {
        public let path: JSONPath
        public let reason: String
        public var description: String { "\(path): \(reason)" }
    }

    public static func decode(_ bytes: [UInt8]) throws(FeedError) -> Result {
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            throw FeedError(path: .root, reason: "not JSON: \(error)")
        }
        let list: [JSONValue], listPath: JSONPath
        switch document {
        case .array(let items): list = items; listPath = .root
        case .object:
            guard case .array(let items)? = document["fixtures"] else {
                throw FeedError(path: JSONPath.root.appending("fixtures"), reason: "expected an array of fixtures")
            }
            list = items; listPath = JSONPath.root.appending("fixtures")
        default:
            throw FeedError(path: .root, reason: "expected an object with \"fixtures\" or an array, got \(document.typeName)")
        }
        var result = Result(fixtures: [], issues: [])
        var seen = Set<String>()
        for (index, item) in list.enumerated() {
            let path = listPath.appending(index: index)
            var reader = JSONReader()
            guard let fixture = fixture(item, at: path, &reader), reader.issues.isEmpty else {
                result.issues += reader.issues
                continue
            }
            guard seen.insert(fixture.id).inserted else {
                result.issues.append(JSONIssue(path: path.appending("id"), reason: "duplicate id \"\(fixture.id)\" (first one kept)"))
                continue
            }
            result.fixtures.append(fixture)
        }
        return result
    }

    static func fixture(_ value: JSONValue, at path: JSONPath, _ reader: inout JSONReader) -> Fixture? {
        guard case .object = value else {
            reader.report(path, "expected a fixture object, got \(value.typeName)")
            return nil
        }
        // A JSON null is an absent member: StreamPlay sends `"stadium": null` and the like.
        let object = JSONObjectView(path: path, value: Self.withoutNulls(value))
        let id = identifier(object["id"], at: object.path("id"), required: true, &reader)
        let name = reader.string(object["name"], at: object.path("name"), required: true)
        let start = date(object, "startDate", required: true, &reader)
        guard let id, let name, let start else { return nil }
        var fixture = Fixture(id: id, name: name, startDate: start, source: value)
        fixture.type = reader.string(object["type"], at: object.path("type"))
        fixture.description = reader.string(object["description"], at: object.path("description"), nonEmpty: false)
        fixture.endDate = date(object, "endDate", required: false, &reader)
        if let end = fixture.endDate, end.seconds < start.seconds {
            reader.report(object.path("endDate"), "\(end) is before startDate \(start)")
        }
        // competition, stadium: a name, or a StreamPlay detail object {id, name, logo, …}.
        if let competition = detail(object, "competition", &reader) {
            fixture.competition = competition.name
            fixture.competitionId = competition.id
        }
        if let stadium = detail(object, "stadium", &reader) {
            fixture.stadium = stadium.name
            fixture.stadiumId = stadium.id
        }
        fixture.location = detail(object, "location", &reader)
        // season: a number (2025), or a StreamPlay detail object.
        switch object["season"] {
        case nil: break
        case .number(let number)?: fixture.season = number
        case .object?: fixture.seasonDetail = detail(object, "season", &reader)
        case let other?: reader.report(object.path("season"), "expected a number or a season object {\"id\", \"name\"}, got \(other.typeName)")
        }
        fixture.teams = strings(object, "teams", objectKey: "name", &reader)
        fixture.homeTeam = detail(object, "homeTeam", &reader)
        fixture.awayTeam = detail(object, "awayTeam", &reader)
        fixture.teams += [fixture.homeTeam?.name, fixture.awayTeam?.name].compactMap { $0 }
        fixture.eventType = reader.string(object["eventType"], at: object.path("eventType"))
        fixture.partnerId = identifier(object["partnerId"], at: object.path("partnerId"), required: false, &reader)
        fixture.sport = detail(object, "sport", &reader)?.name
        fixture.thumbnails = strings(object, "thumbnails", objectKey: "url", &reader)
        if let thumbnail = reader.string(object["thumbnail"], at: object.path("thumbnail")) { fixture.thumbnails.append(thumbnail) }
        fixture.featured = reader.bool(object["featured"], at: object.path("featured")) ?? false
        for (itemPath, item) in reader.array(object["media"], at: object.path("media")) ?? [] {
            guard let entry = reader.object(item, at: itemPath, known: ["id", "type", "liveUrl", "liveURL", "channelId", "channelName", "title"]) else { continue }
            let url = reader.string(entry["liveURL"], at: entry.path("liveURL")) ?? reader.string(entry["liveUrl"], at: entry.path("liveUrl"))
            fixture.media.append(Fixture.Media(type: reader.string(entry["type"], at: entry.path("type")), liveURL: url,
                                               channelId: reader.string(entry["channelId"], at: entry.path("channelId")),
                                               channelName: reader.string(entry["channelName"], at: entry.path("channelName")),
                                               entryId: reader.string(entry["id"], at: entry.path("id"))))
        }
        // StreamPlay's ScheduleMediaDataModel entries; other members are kept, not errors.
        for (itemPath, item) in reader.array(object["mediaData"], at: object.path("mediaData")) ?? [] {
            guard case .object = item else {
                reader.report(itemPath, "expected a media object {\"mediaType\", \"entryId\", \"isLiveUrl\", …}, got \(item.typeName)")
                continue
            }
            let entry = JSONObjectView(path: itemPath, value: Self.withoutNulls(item))
            if let time = entry["isLiveTime"], time.typeName != JSONValue.number(0).typeName {
                reader.report(entry.path("isLiveTime"), "expected a number (milliseconds), got \(time.typeName)")
            }
            fixture.media.append(Fixture.Media(type: reader.string(entry["mediaType"], at: entry.path("mediaType")),
                                               liveURL: reader.string(entry["isLiveUrl"], at: entry.path("isLiveUrl")),
                                               channelId: reader.string(entry["channelId"], at: entry.path("channelId")),
                                               channelName: reader.string(entry["channelName"], at: entry.path("channelName")),
                                               entryId: reader.string(entry["entryId"], at: entry.path("entryId")),
                                               drm: reader.bool(entry["drm"], at: entry.path("drm"))))
        }
        if let ids = object["externalIds"] {
            if case .object(let members) = ids {
                for member in members {
                    switch member.value {
                    case .string(let text): fixture.externalIds[member.key] = text
                    case .number: fixture.externalIds[member.key] = member.value.encoded
                    case .null: break
                    default: reader.report(object.path("externalIds").appending(member.key), "expected a string or number, got \(member.value.typeName)")
                    }
                }
            } else {
                reader.report(object.path("externalIds"), "expected an object of ids, got \(ids.typeName)")
            }
        }
        return fixture
    }

    /// An object's members without those whose value is null.
    private static func withoutNulls(_ value: JSONValue) -> JSONValue {
        guard case .object(let members) = value else { return value }
        return .object(members.filter { if case .null = $0.value { false } else { true } })
    }

    /// An id: a non-empty string, or an integer (StreamPlay's ids) written in decimal.
    private static func identifier(_ value: JSONValue?, at path: JSONPath, required: Bool, _ reader: inout JSONReader) -> String? {
        switch value {
        case nil:
            if required { reader.report(path, "required id is missing (a string or an integer)") }
            return nil
        case .number(let number)?:
            guard number == number.rounded(), abs(number) < 9e15 else {
                reader.report(path, "expected an integer or a string id, got \(JSONValue.number(number).encoded)")
                return nil
            }
            return String(Int64(number))
        case .string(let text)?:
            guard !text.isEmpty else { reader.report(path, "must not be empty"); return nil }
            return text
        case let other?:
            reader.report(path, "expected a string or an integer id, got \(other.typeName)")
            return nil
        }
    }

    /// A detail member: a plain name (string), or a StreamPlay detail object with an optional
    /// integer/string `id` and string `name` (logos and the rest stay in `source`).
    private static func detail(_ object: JSONObjectView, _ key: String, _ reader: inout JSONReader) -> Fixture.Detail? {
        switch object[key] {
        case nil: return nil
        case .string(let text)?:
            guard !text.isEmpty else { reader.report(object.path(key), "must not be empty"); return nil }
            return Fixture.Detail(name: text)
        case .object?:
            let detail = JSONObjectView(path: object.path(key), value: withoutNulls(object[key]!))
            let id = identifier(detail["id"], at: detail.path("id"), required: false, &reader)
            let name = reader.string(detail["name"], at: detail.path("name"))
            return Fixture.Detail(id: id, name: name)
        case let other?:
            reader.report(object.path(key), "expected a name or an object {\"id\", \"name\"}, got \(other.typeName)")
            return nil
        }
    }

    private static func date(_ object: JSONObjectView, _ key: String, required: Bool, _ reader: inout JSONReader) -> CatalogDate? {
        guard let text = reader.string(object[key], at: object.path(key), required: required) else { return nil }
        guard let date = CatalogDate.parse(text) else {
            reader.report(object.path(key), "\"\(text)\" is not an ISO 8601 date (2025-08-01 or 2025-08-01T19:45:00Z)")
            return nil
        }
        return date
    }

    /// An array of strings, or of objects whose `objectKey` member is the string.
    private static func strings(_ object: JSONObjectView, _ key: String, objectKey: String, _ reader: inout JSONReader) -> [String] {
        var out: [String] = []
        for (itemPath, item) in reader.array(object[key], at: object.path(key)) ?? [] {
            switch item {
            case .string(let text): out.append(text)
            case .object:
                if let text = reader.string(item[objectKey], at: itemPath.appending(objectKey), required: true) { out.append(text) }
            default: reader.report(itemPath, "expected a string or an object with \"\(objectKey)\", got \(item.typeName)")
            }
        }
        return out
    }
}
