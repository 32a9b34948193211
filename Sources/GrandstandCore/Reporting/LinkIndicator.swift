/// `session_link_indicator`: a 0–10 grade of the fan-side link, from the uplink's Wi-Fi signal
/// and the loss left after FEC. The weaker of the two grades wins (docs/reporting.md):
/// - signal: −90 dBm or weaker → 0, −50 dBm or stronger → 10, linear in between;
/// - post-FEC loss ratio: ≤ 0.01 % → 10, ≥ 5 % → 0, linear in log10(ratio) in between;
/// - not associated (no signal) → 0; no video received yet (no loss figure) → the signal grade.
public enum LinkIndicator {
    public static let weakSignalDBm = -90
    public static let strongSignalDBm = -50
    public static let negligibleLoss = 0.0001
    public static let unusableLoss = 0.05

    /// The indicator for one report, 0 ... 10.
    public static func value(signalDBm: Int?, postFECLossRatio: Double?) -> Int {
        guard let signalDBm else { return 0 }
        let signal = signalGrade(signalDBm)
        guard let loss = postFECLossRatio else { return signal }
        return min(signal, lossGrade(loss))
    }

    /// 0 ... 10 from the received signal strength.
    public static func signalGrade(_ dBm: Int) -> Int {
        let span = Double(strongSignalDBm - weakSignalDBm)
        return grade((Double(dBm - weakSignalDBm)) / span)
    }

    /// 0 ... 10 from the fraction of packets still missing after FEC (0 ... 1; NaN counts as total loss).
    public static func lossGrade(_ ratio: Double) -> Int {
        guard !ratio.isNaN else { return 0 }
        if ratio <= negligibleLoss { return 10 }
        if ratio >= unusableLoss { return 0 }
        let span = log10(unusableLoss) - log10(negligibleLoss)
        return grade((log10(unusableLoss) - log10(ratio)) / span)
    }

    /// Post-FEC loss of a stats total: packets never recovered over packets expected.
    /// nil when no RTP packet was expected yet.
    public static func postFECLossRatio(received: Int, lost: Int, recovered: Int) -> Double? {
        let unrecovered = max(0, lost - recovered)
        let expected = received + unrecovered
        guard expected > 0 else { return nil }
        return Double(unrecovered) / Double(expected)
    }

    private static func grade(_ fraction: Double) -> Int {
        Int((min(1, max(0, fraction)) * 10).rounded())
    }

    /// log10 without Foundation: the core imports none.
    static func log10(_ x: Double) -> Double { naturalLog(x) / 2.302585092994046 }

    /// ln(x) for x > 0: reduce to m·2^e with m in [1, 2), then the atanh series of (m−1)/(m+1).
    static func naturalLog(_ x: Double) -> Double {
        guard x > 0, x.isFinite else { return x == 0 ? -.infinity : .nan }
        let exponent = Double(x.exponent)
        let mantissa = x.significand
        let z = (mantissa - 1) / (mantissa + 1), z2 = z * z
        var term = z, sum = 0.0
        var k = 1.0
        while k < 60 {
            sum += term / k
            term *= z2
            k += 2
        }
        return 2 * sum + exponent * 0.6931471805599453
    }
}
