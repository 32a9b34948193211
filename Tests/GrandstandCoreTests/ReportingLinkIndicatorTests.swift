import Testing
@testable import GrandstandCore

/// `session_link_indicator`: the documented table (docs/reporting.md) row by row.
struct ReportingLinkIndicatorTests {
    @Test(arguments: [
        (-30, 10), (-50, 10), (-54, 9), (-60, 8), (-70, 5), (-80, 3), (-86, 1), (-90, 0), (-100, 0),
    ])
    func signalGrade(dBm: Int, grade: Int) {
        #expect(LinkIndicator.signalGrade(dBm) == grade)
    }

    @Test(arguments: [
        (0.0, 10), (0.0001, 10), (0.0002, 9), (0.001, 6), (0.005, 4), (0.01, 3), (0.02, 1), (0.05, 0), (0.5, 0), (1.0, 0),
    ])
    func lossGrade(ratio: Double, grade: Int) {
        #expect(LinkIndicator.lossGrade(ratio) == grade)
    }

    /// The weaker grade wins; no signal means not associated (0); no loss figure: signal alone.
    @Test(arguments: [
        (Optional(-45), Optional(0.0), 10), (-45, 0.01, 3), (-80, 0.0, 3), (-70, 0.001, 5),
        (nil, 0.0, 0), (nil, nil, 0), (-60, nil, 8), (-95, 0.0, 0),
    ] as [(Int?, Double?, Int)])
    func combined(signal: Int?, loss: Double?, value: Int) {
        #expect(LinkIndicator.value(signalDBm: signal, postFECLossRatio: loss) == value)
    }

    @Test func lossGradeOfNaNIsZero() {
        #expect(LinkIndicator.lossGrade(.nan) == 0)
    }

    /// Post-FEC loss: lost minus recovered over received plus unrecovered.
    @Test(arguments: [
        (0, 0, 0, Optional<Double>.none), (100, 0, 0, 0.0), (90, 10, 10, 0.0), (90, 10, 0, 0.1), (95, 10, 5, 0.05),
        (10, 3, 7, 0.0),
    ] as [(Int, Int, Int, Double?)])
    func postFECLoss(received: Int, lost: Int, recovered: Int, ratio: Double?) {
        #expect(LinkIndicator.postFECLossRatio(received: received, lost: lost, recovered: recovered) == ratio)
    }

    /// The core's own log10 (no Foundation) against known values.
    @Test(arguments: [(1000.0, 3.0), (0.001, -3.0), (2.0, 0.3010299956639812), (0.05, -1.3010299956639813),
                      (123.456, 2.091512201627772), (1.0, 0.0)])
    func log10(x: Double, expected: Double) {
        #expect(abs(LinkIndicator.log10(x) - expected) < 1e-12)
    }
}
