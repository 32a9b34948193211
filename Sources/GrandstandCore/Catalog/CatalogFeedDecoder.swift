/// Decodes a catalog feed: `{"fixtures":[…]}` or a bare array of fixture objects. A bad fixture
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
        let object = JSONObjectView(path: path, value: value)
        let id = reader.string(object["id"], at: object.path("id"), required: true)
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
        fixture.competition = reader.string(object["competition"], at: object.path("competition"))
        fixture.stadium = reader.string(object["stadium"], at: object.path("stadium"))
        if let season = object["season"] {
            if case .number(let number) = season { fixture.season = number } else {
                reader.report(object.path("season"), "expected a number, got \(season.typeName)")
            }
        }
        fixture.teams = strings(object, "teams", objectKey: "name", &reader)
        fixture.thumbnails = strings(object, "thumbnails", objectKey: "url", &reader)
        fixture.featured = reader.bool(object["featured"], at: object.path("featured")) ?? false
        for (itemPath, item) in reader.array(object["media"], at: object.path("media")) ?? [] {
            guard let entry = reader.object(item, at: itemPath, known: ["id", "type", "liveUrl", "liveURL", "channelId", "channelName", "title"]) else { continue }
            let url = reader.string(entry["liveURL"], at: entry.path("liveURL")) ?? reader.string(entry["liveUrl"], at: entry.path("liveUrl"))
            fixture.media.append(Fixture.Media(type: reader.string(entry["type"], at: entry.path("type")), liveURL: url,
                                               channelId: reader.string(entry["channelId"], at: entry.path("channelId")),
                                               channelName: reader.string(entry["channelName"], at: entry.path("channelName"))))
        }
        if let ids = object["externalIds"] {
            if case .object(let members) = ids {
                for member in members {
                    switch member.value {
                    case .string(let text): fixture.externalIds[member.key] = text
                    case .number: fixture.externalIds[member.key] = member.value.encoded
                    default: reader.report(object.path("externalIds").appending(member.key), "expected a string or number, got \(member.value.typeName)")
                    }
                }
            } else {
                reader.report(object.path("externalIds"), "expected an object of ids, got \(ids.typeName)")
            }
        }
        return fixture
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
