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
        var days = seconds / 86_400
        var secondOfDay = seconds % 86_400
        if secondOfDay < 0 { secondOfDay += 86_400; days -= 1 }
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        var text = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):"
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
