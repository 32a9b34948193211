/// The `health` config section: poor-quality thresholds (each an enter and a lower exit level,
/// so a value hovering at one level does not flap) and the minimum dwell before the state
/// changes (docs/health.md).
public struct HealthConfig: Sendable, Equatable {
    /// Enter at or above `enter`; leave only once at or below `exit` (exit ≤ enter).
    public struct Threshold: Sendable, Equatable {
        public var enter: Double
        public var exit: Double
        public init(enter: Double, exit: Double) {
            self.enter = enter
            self.exit = exit
        }
    }

    /// Failed FEC windows / windows, per channel, over the quality window.
    public var fecFailureRate = Threshold(enter: 0.05, exit: 0.01)
    /// Packets lost after recovery / packets expected, per channel.
    public var lossAfterRecoveryRate = Threshold(enter: 0.01, exit: 0.001)
    /// Dropped or undecodable video frames per second, per channel.
    public var droppedFramesPerSecond = Threshold(enter: 2, exit: 0.2)
    /// The FEC failure rate counts only when at least this many windows closed in the window.
    public var minimumWindows = 10
    /// How far back the rates look.
    public var qualityWindowSeconds = 10.0
    /// A reason must hold this long before it takes the service down…
    public var enterSeconds = 3.0
    /// …and be gone this long before it is cleared.
    public var exitSeconds = 10.0

    public init() {}

    static let known: Set<String> = ["fecFailureRate", "lossAfterRecoveryRate", "droppedFramesPerSecond", "minimumWindows",
                                     "qualityWindowSeconds", "enterSeconds", "exitSeconds"]

    /// Decodes `health` (absent: defaults), reporting every bad value with its path.
    static func decode(_ value: JSONValue?, at path: JSONPath, _ reader: inout JSONReader) -> HealthConfig {
        var config = HealthConfig()
        guard let object = reader.object(value, at: path, known: known) else { return config }
        config.fecFailureRate = threshold(object, "fecFailureRate", config.fecFailureRate, max: 1, &reader)
        config.lossAfterRecoveryRate = threshold(object, "lossAfterRecoveryRate", config.lossAfterRecoveryRate, max: 1, &reader)
        config.droppedFramesPerSecond = threshold(object, "droppedFramesPerSecond", config.droppedFramesPerSecond, max: 1000, &reader)
        config.minimumWindows = reader.integer(object["minimumWindows"], at: object.path("minimumWindows"), in: 1...100_000)
            ?? config.minimumWindows
        config.qualityWindowSeconds = seconds(object, "qualityWindowSeconds", config.qualityWindowSeconds, min: 1, &reader)
        config.enterSeconds = seconds(object, "enterSeconds", config.enterSeconds, min: 0, &reader)
        config.exitSeconds = seconds(object, "exitSeconds", config.exitSeconds, min: 0, &reader)
        return config
    }

    private static func threshold(_ object: JSONObjectView, _ key: String, _ fallback: Threshold, max: Double,
                                  _ reader: inout JSONReader) -> Threshold {
        let path = object.path(key)
        guard let levels = reader.object(object[key], at: path, known: ["enter", "exit"]) else { return fallback }
        let enter = number(levels["enter"], at: levels.path("enter"), in: 0...max, &reader) ?? fallback.enter
        let exit = number(levels["exit"], at: levels.path("exit"), in: 0...max, &reader) ?? Swift.min(fallback.exit, enter)
        if exit > enter { reader.report(levels.path("exit"), "\(exit) is above enter \(enter) (exit must be ≤ enter)") }
        return Threshold(enter: enter, exit: exit)
    }

    private static func seconds(_ object: JSONObjectView, _ key: String, _ fallback: Double, min: Double,
                                _ reader: inout JSONReader) -> Double {
        number(object[key], at: object.path(key), in: min...3600, &reader) ?? fallback
    }

    /// A number (fractions allowed) within `range`.
    static func number(_ value: JSONValue?, at path: JSONPath, in range: ClosedRange<Double>, _ reader: inout JSONReader) -> Double? {
        guard let value else { return nil }
        guard case .number(let number) = value else {
            reader.report(path, "expected a number, got \(value.typeName)")
            return nil
        }
        guard range.contains(number) else {
            reader.report(path, "\(number) is out of range \(range.lowerBound)...\(range.upperBound)")
            return nil
        }
        return number
    }
}
