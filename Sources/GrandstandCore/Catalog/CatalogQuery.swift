/// A parsed catalog search: AND-ed conditions, a sort, a date range on the start or end date,
/// partner and sport filters and a page. Built from URL query arguments (docs/catalog.md), in
/// the gateway's syntax
/// `q=name:like:derby&q1=season:>=:2025&sort=-startDate&dateFrom=2025-08-01&dateField=start&limit=20&offset=0`
/// or as StreamAMG's StreamPlay SDK sends it (StreamPlayRequest.swift / .kt):
/// `q=(name:*derby* AND season.id:>=3)&q=(mediaData.mediaType:video)&from=2025-08-01&dateField=endDate&sort=name:asc&offset=0&limit=20`.
public struct CatalogQuery: Sendable, Equatable {
    public var conditions: [CatalogCondition] = []
    /// Groups of alternatives (StreamPlay's `(homeTeam.id:1 OR awayTeam.id:1)`): a fixture
    /// matches when, in every group, one condition holds.
    public var anyOf: [[CatalogCondition]] = []
    /// Sort keys in order; ties fall back to `id` so pages are stable.
    public var sort: [SortKey] = [SortKey(field: CatalogField.Reference("startDate")!, descending: false)]
    public var dateFrom: CatalogDate?
    public var dateTo: CatalogDate?
    /// The date `dateFrom`/`dateTo` apply to; nil is the StreamPlay SDK's default, the end date
    /// (`endDateEffective()`, "(Default)" in its README), with the start date for a fixture that
    /// has no end date.
    public var dateField: CatalogField?
    /// StreamPlay's partner filter (`/fixtures/…/p/PARTNER`, or `partner=`): any of these ids.
    public var partners: [String] = []
    /// StreamPlay's sport filter (`/fixtures/SPORT/p/…`, or `sport=football,darts`): any of these,
    /// ignoring case.
    public var sports: [String] = []
    public var limit = CatalogQuery.defaultLimit
    public var offset = 0

    public static let defaultLimit = 20
    public static let maximumLimit = 500
    public static let parameters = "q, q1…q99, sort, dateFrom (from), dateTo (to), dateField, partner, sport, limit, offset"

    public struct SortKey: Sendable, Equatable {
        public var field: CatalogField.Reference
        public var descending: Bool
    }

    public init() {}

    /// Parses query arguments in order. Conditions come from `q` (repeatable) or numbered
    /// `q1`…`q99` (for HTTP layers that keep one value per key).
    public static func parse(_ arguments: [(key: String, value: String)]) throws(CatalogQueryError) -> CatalogQuery {
        var query = CatalogQuery()
        var numbered: [(Int, String)] = []
        for (rawKey, value) in arguments {
            let key = streamPlayKey(rawKey)
            switch key {
            case "q": numbered.append((0, value))
            case "sort": query.sort = try parseSort(value)
            case "dateFrom", "from": query.dateFrom = try date(key, value)
            case "dateTo", "to": query.dateTo = try date(key, value)
            case "partner", "partnerId": query.partners += try list(key, value)
            case "sport": query.sports += try list(key, value)
            case "dateField":
                switch value {
                case "start", "startDate": query.dateField = .startDate
                case "end", "endDate": query.dateField = .endDate
                default: throw .badParameter(key, value: value, expected: "start or end")
                }
            case "limit": query.limit = try integer(key, value, in: 0...maximumLimit)
            case "offset": query.offset = try integer(key, value, in: 0...Int(Int32.max))
            default:
                guard key.hasPrefix("q"), let number = Int(key.dropFirst()), (1...99).contains(number), key.count <= 3 else {
                    throw .unknownParameter(key)
                }
                numbered.append((number, value))
            }
        }
        for (_, text) in numbered.sorted(by: { $0.0 < $1.0 }) where !text.isEmpty {
            if text.hasPrefix("(") {
                let (all, groups) = try parseStreamPlay(text)
                query.conditions += all
                query.anyOf += groups
            } else {
                query.conditions.append(try CatalogCondition.parse(text))
            }
        }
        return query
    }

    /// The Android SDK writes its extra parameters as `target:query` (StreamPlayRequest.kt
    /// `parameterString`): `:from=…`, `:dateField=endDate`, `name:sort=name:asc`. The part after
    /// the last `:` names the parameter.
    private static func streamPlayKey(_ key: String) -> String {
        guard let colon = key.lastIndex(of: ":") else { return key }
        let name = String(key[key.index(after: colon)...])
        return ["from", "to", "dateField", "sort"].contains(name) ? name : key
    }

    private static func list(_ name: String, _ value: String) throws(CatalogQueryError) -> [String] {
        let items = value.split(separator: ",").map { String(Substring($0).trimmingSpaces) }.filter { !$0.isEmpty }
        guard !items.isEmpty else { throw .badParameter(name, value: value, expected: "one or more values, comma-separated") }
        return items
    }

    /// A StreamPlay `q` value: `(term AND term AND (term OR term))`, terms as
    /// `CatalogCondition.parse(streamPlay:)` reads them.
    static func parseStreamPlay(_ text: String) throws(CatalogQueryError) -> (all: [CatalogCondition], anyOf: [[CatalogCondition]]) {
        let expected = "a StreamPlay expression (field:value AND field:>value …) in balanced parentheses"
        guard let body = unwrap(Substring(text).trimmingSpaces) else { throw .badParameter("q", value: text, expected: expected) }
        var all: [CatalogCondition] = [], groups: [[CatalogCondition]] = []
        guard let parts = split(body, on: " AND ") else { throw .badParameter("q", value: text, expected: expected) }
        for part in parts {
            let trimmed = Substring(part).trimmingSpaces
            guard !trimmed.isEmpty else { throw .badParameter("q", value: text, expected: expected + " without empty terms") }
            let inner = unwrap(trimmed) ?? trimmed
            guard let alternatives = split(inner, on: " OR ") else { throw .badParameter("q", value: text, expected: expected) }
            if alternatives.count == 1 {
                all.append(try CatalogCondition.parse(streamPlay: String(alternatives[0])))
            } else {
                var group: [CatalogCondition] = []
                for alternative in alternatives { group.append(try CatalogCondition.parse(streamPlay: String(alternative))) }
                groups.append(group)
            }
        }
        return (all, groups)
    }

    /// The text inside one pair of parentheses around the whole of `text`; nil when `text` is not
    /// wrapped that way (`(a) AND (b)` is not).
    private static func unwrap(_ text: Substring) -> Substring? {
        guard text.hasPrefix("("), text.hasSuffix(")"), text.count >= 2 else { return nil }
        var depth = 0
        for (offset, character) in text.enumerated() {
            if character == "(" { depth += 1 }
            if character == ")" { depth -= 1 }
            if depth == 0 && offset < text.count - 1 { return nil }
            if depth < 0 { return nil }
        }
        return depth == 0 ? text.dropFirst().dropLast() : nil
    }

    /// `text` split on `separator` outside parentheses; nil when the parentheses do not balance.
    private static func split(_ text: Substring, on separator: String) -> [Substring]? {
        var parts: [Substring] = [], depth = 0, start = text.startIndex, index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "(" { depth += 1 }
            if character == ")" { depth -= 1; if depth < 0 { return nil } }
            if depth == 0, text[index...].hasPrefix(separator) {
                parts.append(text[start..<index])
                index = text.index(index, offsetBy: separator.count)
                start = index
                continue
            }
            index = text.index(after: index)
        }
        guard depth == 0 else { return nil }
        parts.append(text[start...])
        return parts
    }

    /// Parses a whole `k=v&k=v` query string (percent-encoded, `+` as space): the batch form.
    public static func parse(queryString: String) throws(CatalogQueryError) -> CatalogQuery {
        try parse(arguments(queryString: queryString))
    }

    /// A `k=v&k=v` query string's arguments in order, repeated names kept (StreamPlay sends `q`
    /// twice: its field terms and its media terms).
    public static func arguments(queryString: String) throws(CatalogQueryError) -> [(key: String, value: String)] {
        var arguments: [(key: String, value: String)] = []
        for pair in queryString.split(separator: "&") where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = PercentDecoding.decode(parts[0]), let value = PercentDecoding.decode(parts.count > 1 ? parts[1] : "") else {
                throw .badParameter(String(parts[0]), value: String(pair), expected: "valid percent-encoding")
            }
            arguments.append((key, value))
        }
        return arguments
    }

    private static func parseSort(_ text: String) throws(CatalogQueryError) -> [SortKey] {
        var keys: [SortKey] = []
        for item in text.split(separator: ",") {
            var name = Substring(item), descending = false
            if name.hasPrefix("-") { descending = true; name = name.dropFirst() } else if name.hasPrefix("+") { name = name.dropFirst() }
            // StreamPlay's `field:asc` / `field:desc` (sortByAscending / sortByDescending).
            if let colon = name.lastIndex(of: ":") {
                switch name[name.index(after: colon)...].lowercased() {
                case "asc": name = name[..<colon]
                case "desc": name = name[..<colon]; descending.toggle()
                default: throw .badParameter("sort", value: text, expected: "field, -field, field:asc or field:desc")
                }
            }
            guard let field = CatalogField.Reference(String(name)) else { throw .unknownField(String(name)) }
            keys.append(SortKey(field: field, descending: descending))
        }
        guard !keys.isEmpty else { throw .badParameter("sort", value: text, expected: "a field, -field for descending") }
        return keys
    }

    private static func date(_ name: String, _ value: String) throws(CatalogQueryError) -> CatalogDate {
        guard let date = CatalogDate.parse(value) else {
            throw .badParameter(name, value: value, expected: "an ISO 8601 date (2025-08-01 or 2025-08-01T19:45:00Z)")
        }
        return date
    }

    private static func integer(_ name: String, _ value: String, in range: ClosedRange<Int>) throws(CatalogQueryError) -> Int {
        guard let number = Int(value), range.contains(number) else {
            throw .badParameter(name, value: value, expected: "an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return number
    }
}

/// `%XX` and `+` decoding of URL query components (RFC 3986 §2.1, HTML form encoding).
public enum PercentDecoding {
    public static func decode<S: StringProtocol>(_ text: S) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(0x20)
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hex), let low = iterator.next().flatMap(hex) else { return nil }
                bytes.append(high << 4 | low)
            default: bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
