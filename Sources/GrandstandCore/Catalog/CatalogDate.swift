/// An ISO 8601 date (`2025-08-01`) or date-time (`2025-08-01T19:45:00Z`, `…+01:00`, fractions
/// allowed) as seconds since the Unix epoch. A date without a time stands for its whole UTC day,
/// so `startDate:equals:2025-08-01` matches any kick-off that day (docs/catalog.md).
public struct CatalogDate: Sendable, Equatable, Comparable, CustomStringConvertible {
    /// The first second covered (UTC).
    public let seconds: Double
    /// True for a bare date: the value covers `seconds ..< seconds + 86_400`.
    public let wholeDay: Bool

    public init(seconds: Double, wholeDay: Bool = false) {
        self.seconds = seconds
        self.wholeDay = wholeDay
    }

    /// The end of the covered span (exclusive for whole days, the instant itself otherwise).
    public var end: Double { wholeDay ? seconds + 86_400 : seconds }

    public static func < (lhs: CatalogDate, rhs: CatalogDate) -> Bool { lhs.seconds < rhs.seconds }

    public var description: String {
        // Whole seconds (a date past 2262 overflows nanoseconds: fuzz artifact catalog-date-overflow).
        let text = RFC3339.format(seconds: Int64(seconds.isFinite ? min(max(seconds, -1e15), 1e15) : 0))
        return wholeDay ? String(text.prefix(10)) : text
    }

    /// Parses `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM[:SS[.fff]][Z|±HH:MM]` (no zone means UTC).
    public static func parse(_ text: String) -> CatalogDate? {
        let bytes = Array(text.utf8)
        var index = 0
        func digits(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            index += count
            return value
        }
        func expect(_ character: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == character else { return false }
            index += 1
            return true
        }
        guard let year = digits(4), expect(0x2D), let month = digits(2), expect(0x2D), let day = digits(2),
              (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day) else { return nil }
        let midnight = Double(CivilDate.days(year: year, month: month, day: day)) * 86_400
        if index == bytes.count { return CatalogDate(seconds: midnight, wholeDay: true) }
        guard expect(0x54) || expect(0x74) || expect(0x20),
              let hour = digits(2), hour < 24, expect(0x3A), let minute = digits(2), minute < 60 else { return nil }
        var second = 0.0
        if expect(0x3A) {
            guard let whole = digits(2), whole < 61 else { return nil }
            second = Double(whole)
            if expect(0x2E) || expect(0x2C) {
                var scale = 0.1, any = false
                while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
                    second += Double(bytes[index] - 0x30) * scale
                    scale /= 10
                    index += 1
                    any = true
                }
                guard any else { return nil }
            }
        }
        var offset = 0
        if expect(0x5A) || expect(0x7A) {
            offset = 0
        } else if index < bytes.count, bytes[index] == 0x2B || bytes[index] == 0x2D {
            let sign = bytes[index] == 0x2D ? -1 : 1
            index += 1
            guard let hours = digits(2), hours < 24 else { return nil }
            _ = expect(0x3A)
            guard let minutes = digits(2), minutes < 60 else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        }
        guard index == bytes.count else { return nil }
        return CatalogDate(seconds: midnight + Double(hour * 3600 + minute * 60 - offset) + second)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
