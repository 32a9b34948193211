/// UTC date-times as RFC 3339 text (`2023-11-14T22:13:20.000123457Z`): HLS
/// EXT-X-PROGRAM-DATE-TIME (RFC 8216 §4.3.2.6, milliseconds) and the JSON of replay and
/// `listen` (nanoseconds). Pure arithmetic, so the core needs no calendar library.
public enum RFC3339 {
    /// `nanoseconds` since the Unix epoch with `fractionDigits` (0…9) digits of the second,
    /// truncated toward the past.
    public static func format(nanoseconds: Int64, fractionDigits: Int = 9) -> String {
        let billion: Int64 = 1_000_000_000
        var seconds = nanoseconds / billion
        var fraction = nanoseconds % billion
        if fraction < 0 { fraction += billion; seconds -= 1 }
        return format(seconds: seconds, fraction: fraction, fractionDigits: fractionDigits)
    }

    /// Whole `seconds` since the Unix epoch, without a fraction: dates nanoseconds in an Int64
    /// cannot hold (after 2262, e.g. a feed's "9999-12-31" meaning "no end"), years up to 9999.
    public static func format(seconds: Int64) -> String {
        format(seconds: seconds, fraction: 0, fractionDigits: 0)
    }

    private static func format(seconds: Int64, fraction: Int64, fractionDigits: Int) -> String {
        var days = seconds / 86_400
        var secondOfDay = seconds % 86_400
        if secondOfDay < 0 { secondOfDay += 86_400; days -= 1 }
        let (year, month, day) = CivilDate.date(days: Int(days))
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        var text = "\(pad(Int64(year), 4))-\(pad(Int64(month), 2))-\(pad(Int64(day), 2))T\(pad(secondOfDay / 3600, 2)):"
            + "\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
        let digits = min(max(fractionDigits, 0), 9)
        if digits > 0 {
            var scale: Int64 = 1
            for _ in digits..<9 { scale *= 10 }
            text += "." + pad(fraction / scale, digits)
        }
        return text + "Z"
    }
}
