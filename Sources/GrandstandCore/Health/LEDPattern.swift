/// Desired levels of the logical status LEDs (true = lit).
public struct LEDLevels: Sendable, Equatable, CustomStringConvertible {
    public var service = false, fault = false, activity = false

    public init(service: Bool = false, fault: Bool = false, activity: Bool = false) {
        self.service = service
        self.fault = fault
        self.activity = activity
    }

    public static let allOn = LEDLevels(service: true, fault: true, activity: true)

    /// Level of a logical LED by its board name (`service`, `fault`, `activity`).
    public subscript(name: String) -> Bool? {
        switch name {
        case "service": service
        case "fault": fault
        case "activity": activity
        default: nil
        }
    }

    public var description: String { "service=\(service ? 1 : 0) fault=\(fault ? 1 : 0) activity=\(activity ? 1 : 0)" }
}

/// The LED pattern engine, sans I/O: from the service state and a few timed requests it gives
/// the levels at time t (nanoseconds, monotonic). Precedence: lamp test, locate, then state
/// (docs/health.md has the table).
public struct LEDPattern: Sendable {
    public struct Timing: Sendable, Equatable {
        public var lampTest: Int64 = 1_000_000_000
        /// One blink of a code: lit for `blinkOn`, dark for `blinkOff`; a dark `codePause` after N blinks.
        public var blinkOn: Int64 = 250_000_000, blinkOff: Int64 = 250_000_000, codePause: Int64 = 1_500_000_000
        /// Locate: every LED toggles every `locateHalfPeriod` (4 Hz blink).
        public var locateHalfPeriod: Int64 = 125_000_000
        /// Activity: toggles every `flicker` (in phase with the clock) while traffic was seen within `activityHold`.
        public var flicker: Int64 = 50_000_000, activityHold: Int64 = 200_000_000
        public init() {}
    }

    public var timing: Timing
    /// Without a fault LED the blink code goes on the service LED.
    public var hasFaultLED: Bool
    public private(set) var lampTestUntil: Int64?
    public private(set) var locateUntil: Int64?
    private var locateStart: Int64 = 0
    private var lastTraffic: Int64?
    private var code: Int?
    private var codeStart: Int64 = 0

    public init(timing: Timing = Timing(), hasFaultLED: Bool = true) {
        self.timing = timing
        self.hasFaultLED = hasFaultLED
    }

    /// All LEDs on for `timing.lampTest` from `now` (at start and on request).
    public mutating func lampTest(at now: Int64) { lampTestUntil = now + timing.lampTest }

    /// Fast blink of every LED until `now + seconds`; 0 cancels.
    public mutating func locate(at now: Int64, seconds: Int) {
        locateStart = now
        locateUntil = seconds > 0 ? now + Int64(seconds) * 1_000_000_000 : nil
    }

    /// Traffic was seen at `now` (the activity LED flickers for a short while after).
    public mutating func traffic(at now: Int64) { lastTraffic = now }

    /// Seconds of locate left at `now` (0 when not locating).
    public func locateRemaining(at now: Int64) -> Double {
        guard let until = locateUntil, until > now else { return 0 }
        return Double(until - now) / 1e9
    }

    /// What the LEDs show at `now` for `state`; a changed blink code restarts from its first blink.
    public mutating func levels(at now: Int64, state: ServiceState) -> LEDLevels {
        if let until = lampTestUntil, now < until { return .allOn }
        if let until = locateUntil, now < until {
            let lit = ((now - locateStart) / timing.locateHalfPeriod) % 2 == 0
            return LEDLevels(service: lit, fault: lit, activity: lit)
        }
        let blinks = state.reasons.blinkCode
        if blinks != code {
            code = blinks
            codeStart = now
        }
        var levels = LEDLevels()
        if let blinks {
            let lit = Self.codeLit(blinks: blinks, elapsed: now - codeStart, timing: timing)
            if hasFaultLED { levels.fault = lit } else { levels.service = lit }
        } else {
            levels.service = true
        }
        if let last = lastTraffic, now - last < timing.activityHold, now >= last {
            levels.activity = (now / timing.flicker) % 2 == 0
        }
        return levels
    }

    /// Whether a code of `blinks` is lit `elapsed` into its cycle (N blinks, then a pause).
    public static func codeLit(blinks: Int, elapsed: Int64, timing: Timing) -> Bool {
        let blink = timing.blinkOn + timing.blinkOff
        let cycle = Int64(blinks) * blink + timing.codePause
        let position = ((elapsed % cycle) + cycle) % cycle
        guard position < Int64(blinks) * blink else { return false }
        return position % blink < timing.blinkOn
    }
}
