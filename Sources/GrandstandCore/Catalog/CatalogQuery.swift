/// A parsed catalog search: AND-ed conditions, a sort, a date range on the start or end date and
/// a page. Built from URL query arguments (docs/catalog.md):
/// `q=name:like:derby&q1=season:>=:2025&sort=-startDate&dateFrom=2025-08-01&dateField=start&limit=20&offset=0`.
public struct CatalogQuery: Sendable, Equatable {
    public var conditions: [CatalogCondition] = []
    /// Sort keys in order; ties fall back to `id` so pages are stable.
    public var sort: [SortKey] = [SortKey(field: CatalogField.Reference("startDate")!, descending: false)]
    public var dateFrom: CatalogDate?
    public var dateTo: CatalogDate?
    public var dateField: CatalogField = .startDate
    public var limit = CatalogQuery.defaultLimit
    public var offset = 0

    public static let defaultLimit = 20
    public static let maximumLimit = 500
    public static let parameters = "q, q1…q99, sort, dateFrom, dateTo, dateField, limit, offset"

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
        for (key, value) in arguments {
            switch key {
            case "q": numbered.append((0, value))
            case "sort": query.sort = try parseSort(value)
            case "dateFrom": query.dateFrom = try date(key, value)
            case "dateTo": query.dateTo = try date(key, value)
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
            query.conditions.append(try CatalogCondition.parse(text))
        }
        return query
    }

    /// Parses a whole `k=v&k=v` query string (percent-encoded, `+` as space): the batch form.
    public static func parse(queryString: String) throws(CatalogQueryError) -> CatalogQuery {
        var arguments: [(key: String, value: String)] = []
        for pair in queryString.split(separator: "&") where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = PercentDecoding.decode(parts[0]), let value = PercentDecoding.decode(parts.count > 1 ? parts[1] : "") else {
                throw .badParameter(String(parts[0]), value: String(pair), expected: "valid percent-encoding")
            }
            arguments.append((key, value))
        }
        return try parse(arguments)
    }

    private static func parseSort(_ text: String) throws(CatalogQueryError) -> [SortKey] {
        var keys: [SortKey] = []
        for item in text.split(separator: ",") {
            var name = Substring(item), descending = false
            if name.hasPrefix("-") { descending = true; name = name.dropFirst() } else if name.hasPrefix("+") { name = name.dropFirst() }
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
