/// The filters of management `GET /api/v1/logs` (and `grandstand logs`), parsed from query
/// arguments: `since`/`until` (Unix seconds, RFC 3339 UTC time, or relative `-30s` `-15m` `-2h`
/// `-1d`), `priority` (level name or 0-7: that level and more important), `channel`,
/// `messageId` (32 hex digits), `limit` (1-10000, default 100), `follow` (1/true).
public struct LogQuery: Sendable, Equatable {
    public var sinceMicroseconds: UInt64?
    public var untilMicroseconds: UInt64?
    public var priority: LogLevel?
    public var channel: String?
    public var messageID: String?
    public var limit = 100
    public var follow = false

    public static let maximumLimit = 10_000
    public static let keys = ["since", "until", "priority", "channel", "messageId", "limit", "follow"]

    public init() {}

    /// Parses the arguments; every bad one is reported as `name: reason`.
    public static func parse(_ arguments: [String: String], nowMicroseconds: UInt64) -> Result<LogQuery, LogQueryError> {
        var query = LogQuery()
        var problems: [String] = []
        for key in arguments.keys.sorted() where !keys.contains(key) {
            problems.append("\(key): unknown argument (expected one of: \(keys.joined(separator: ", ")))")
        }
        func time(_ key: String) -> UInt64? {
            guard let text = arguments[key], !text.isEmpty else { return nil }
            guard let value = LogTime.parse(text, nowMicroseconds: nowMicroseconds) else {
                problems.append("\(key): \"\(text)\" is not a time (Unix seconds, 2026-01-31T18:00:00Z, or -30s/-15m/-2h/-1d)")
                return nil
            }
            return value
        }
        query.sinceMicroseconds = time("since")
        query.untilMicroseconds = time("until")
        if let since = query.sinceMicroseconds, let until = query.untilMicroseconds, until < since {
            problems.append("until: is before since")
        }
        if let text = arguments["priority"], !text.isEmpty {
            query.priority = LogLevel(name: text)
            if query.priority == nil {
                problems.append("priority: \"\(text)\" is not a level (\(LogLevel.allCases.map(\.name).joined(separator: ", ")) or 0-7)")
            }
        }
        if let text = arguments["channel"], !text.isEmpty { query.channel = text }
        if let text = arguments["messageId"], !text.isEmpty {
            let lower = text.lowercased()
            if lower.utf8.count == 32, lower.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }) {
                query.messageID = lower
            } else {
                problems.append("messageId: \"\(text)\" is not 32 hexadecimal digits")
            }
        }
        if let text = arguments["limit"], !text.isEmpty {
            if let limit = Int(text), (1...maximumLimit).contains(limit) {
                query.limit = limit
            } else {
                problems.append("limit: \"\(text)\" is not a number 1...\(maximumLimit)")
            }
        }
        if let text = arguments["follow"], !text.isEmpty {
            switch text.lowercased() {
            case "1", "true", "yes": query.follow = true
            case "0", "false", "no": query.follow = false
            default: problems.append("follow: \"\(text)\" is not 1 or 0")
            }
        }
        return problems.isEmpty ? .success(query) : .failure(LogQueryError(problems: problems))
    }

    /// The journal matches the query implies (fields ANDed; the PRIORITY values ORed).
    public var matches: [(name: String, values: [String])] {
        var out: [(String, [String])] = [("SYSLOG_IDENTIFIER", ["grandstand"])]
        if let priority { out.append(("PRIORITY", (0...priority.rawValue).map(String.init))) }
        if let channel { out.append(("GRANDSTAND_CHANNEL", [channel])) }
        if let messageID { out.append(("MESSAGE_ID", [messageID])) }
        return out
    }
}

/// Bad log query arguments, one line per problem.
public struct LogQueryError: Error, Equatable, Sendable, CustomStringConvertible {
    public let problems: [String]
    public var description: String { problems.joined(separator: "\n") }
}

/// Wall-clock times as the logs API reads and writes them (UTC, microseconds since 1970).
public enum LogTime {
    public static func parse(_ text: String, nowMicroseconds: UInt64) -> UInt64? {
        if text == "now" { return nowMicroseconds }
        if text.hasPrefix("-"), let unit = text.last, let amount = UInt64(text.dropFirst().dropLast()) {
            let seconds: UInt64? = switch unit {
            case "s": 1
            case "m": 60
            case "h": 3600
            case "d": 86400
            default: nil
            }
            guard let seconds else { return nil }
            let back = amount.multipliedReportingOverflow(by: seconds * 1_000_000)
            return back.overflow || back.partialValue > nowMicroseconds ? 0 : nowMicroseconds - back.partialValue
        }
        if let seconds = UInt64(text), seconds < 1 << 40 { return seconds * 1_000_000 }
        return rfc3339(text)
    }

    /// `YYYY-MM-DDTHH:MM:SS[.ffffff]Z` (or a space for T) only: the form `format` writes.
    static func rfc3339(_ text: String) -> UInt64? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z"), bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "), bytes[13] == UInt8(ascii: ":"),
              bytes[16] == UInt8(ascii: ":") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
              let minute = number(14..<16), let second = number(17..<19),
              (1970...9999).contains(year), (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var micros = 0
        if bytes.count > 20 {
            guard bytes[19] == UInt8(ascii: "."), bytes.count - 21 >= 1, bytes.count - 21 <= 9,
                  let fraction = number(20..<(bytes.count - 1)) else { return nil }
            let digits = bytes.count - 21
            micros = digits <= 6 ? fraction * pow10(6 - digits) : fraction / pow10(digits - 6)
        } else if bytes[19] != UInt8(ascii: "Z") {
            return nil
        }
        let days = CivilDate.days(year: year, month: month, day: day)
        return UInt64(((days * 86400) + hour * 3600 + minute * 60 + second)) * 1_000_000 + UInt64(micros)
    }

    /// `2026-11-21T06:20:00.123456Z`.
    public static func format(microseconds: UInt64) -> String {
        let seconds = Int(microseconds / 1_000_000), micros = Int(microseconds % 1_000_000)
        let (year, month, day) = CivilDate.date(days: seconds / 86400)
        let rest = seconds % 86400
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let fraction = String(micros + 1_000_000).dropFirst()
        return "\(year)-\(two(month))-\(two(day))T\(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60)).\(fraction)Z"
    }

    private static func pow10(_ n: Int) -> Int { (0..<n).reduce(1) { value, _ in value * 10 } }
}
