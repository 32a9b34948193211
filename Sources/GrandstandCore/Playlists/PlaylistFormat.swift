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
        RFC3339.format(nanoseconds: nanoseconds, fractionDigits: 3)
    }
}
