/// Number and date formats of playlist attributes (RFC 8216bis §4.2), without Foundation.
enum PlaylistFormat {
    /// `ticks` (90 kHz) as decimal seconds with `decimals` places, rounded half up, or up when
    /// `roundUp` (for values that must not be below the real one, e.g. PART-TARGET).
    static func seconds(_ ticks: Int64, decimals: Int = 5, roundUp: Bool = false) -> String {
        var scale: Int64 = 1
        for _ in 0..<decimals { scale *= 10 }
        let numerator = max(0, ticks) * scale
        let units = roundUp ? (numerator + MediaClock.ticksPerSecond - 1) / MediaClock.ticksPerSecond
                            : (numerator + MediaClock.ticksPerSecond / 2) / MediaClock.ticksPerSecond
        let whole = units / scale, fraction = units % scale
        guard decimals > 0 else { return String(whole) }
        let digits = String(fraction)
        return "\(whole)." + String(repeating: "0", count: decimals - digits.count) + digits
    }

    /// ISO 8601 / RFC 3339 UTC date-time with milliseconds, e.g. `2026-11-21T03:32:37.123Z`.
    static func dateTime(nanoseconds: Int64) -> String {
        let millis = nanoseconds >= 0 ? nanoseconds / 1_000_000 : (nanoseconds - 999_999) / 1_000_000
        var days = millis >= 0 ? millis / 86_400_000 : (millis - 86_399_999) / 86_400_000
        let msOfDay = millis - days * 86_400_000
        // Days since 1970-01-01 to a civil date (H. Hinnant's algorithm).
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let doe = days - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ v: Int64, _ n: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, n - s.count)) + s
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(msOfDay / 3_600_000, 2)):"
            + "\(pad(msOfDay / 60000 % 60, 2)):\(pad(msOfDay / 1000 % 60, 2)).\(pad(msOfDay % 1000, 3))Z"
    }
}
