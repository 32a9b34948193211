import Testing
@testable import GrandstandCore
import TestSupport

/// The `health` config section: defaults, values, and every bad value reported with its path.
struct HealthConfigTests {
    static func config(_ health: String) throws -> GatewayConfig {
        try GatewayConfig.decode(Array(#"{"license":{"venueName":"V","contentOwner":"O","appDeveloper":"D"},"management":{"token":"t"}\#(health)}"#.utf8))
    }

    @Test func absentSectionTakesDefaults() throws {
        let health = try Self.config("").health
        #expect(health == HealthConfig())
        #expect(health.fecFailureRate == .init(enter: 0.05, exit: 0.01))
        #expect(health.enterSeconds == 3 && health.exitSeconds == 10 && health.qualityWindowSeconds == 10)
    }

    @Test func valuesAreRead() throws {
        let health = try Self.config(#","health":{"fecFailureRate":{"enter":0.2,"exit":0.1},"lossAfterRecoveryRate":{"enter":0.05},"droppedFramesPerSecond":{"enter":5,"exit":1},"minimumWindows":4,"qualityWindowSeconds":30,"enterSeconds":0.5,"exitSeconds":60}"#).health
        #expect(health.fecFailureRate == .init(enter: 0.2, exit: 0.1))
        #expect(health.lossAfterRecoveryRate == .init(enter: 0.05, exit: 0.001))
        #expect(health.droppedFramesPerSecond == .init(enter: 5, exit: 1))
        #expect(health.minimumWindows == 4 && health.qualityWindowSeconds == 30)
        #expect(health.enterSeconds == 0.5 && health.exitSeconds == 60)
    }

    @Test(arguments: [
        (#","health":{"fecFailureRate":{"enter":0.01,"exit":0.02}}"#, ["$.health.fecFailureRate.exit: 0.02 is above enter 0.01 (exit must be ≤ enter)"]),
        (#","health":{"fecFailureRate":{"enter":"high"},"minimumWindows":0.5}"#,
         ["$.health.fecFailureRate.enter: expected a number, got a string", "$.health.minimumWindows: expected an integer, got a fraction"]),
        (#","health":{"enterSeconds":-1,"lossAfterRecoveryRate":{"enter":2},"typo":1}"#,
         ["$.health.typo: unknown key (expected one of: droppedFramesPerSecond, enterSeconds, exitSeconds, fecFailureRate, lossAfterRecoveryRate, minimumWindows, qualityWindowSeconds)",
          "$.health.lossAfterRecoveryRate.enter: 2.0 is out of range 0.0...1.0", "$.health.enterSeconds: -1.0 is out of range 0.0...3600.0"]),
        (#","health":[]"#, ["$.health: expected an object, got an array"]),
    ])
    func badValuesAreReportedWithTheirPath(health: String, expected: [String]) {
        let error = thrownError(ConfigError.self) { _ = try Self.config(health) }
        #expect(error?.issues.map(\.description) == expected)
    }
}
