import Testing
@testable import GrandstandCore

/// The LED pattern engine sampled at given times (milliseconds → nanoseconds).
struct HealthLEDPatternTests {
    static let ms: Int64 = 1_000_000
    static let up = ServiceState(reasons: [])

    /// Samples `led` every 10 ms over [from, from+duration) and counts its off→on edges.
    static func risingEdges(_ pattern: inout LEDPattern, _ state: ServiceState, led: String, from: Int64, duration: Int64) -> Int {
        var edges = 0
        var previous = pattern.levels(at: from * ms, state: state)[led] ?? false
        var t = from + 10
        while t < from + duration {
            let lit = pattern.levels(at: t * ms, state: state)[led] ?? false
            if lit && !previous { edges += 1 }
            previous = lit
            t += 10
        }
        return edges
    }

    @Test func lampTestLightsEverythingForOneSecond() {
        var pattern = LEDPattern()
        pattern.lampTest(at: 0)
        let down = ServiceState(reasons: .noChannels)
        #expect(pattern.levels(at: 0, state: down) == .allOn)
        #expect(pattern.levels(at: 999 * Self.ms, state: down) == .allOn)
        #expect(pattern.levels(at: 1000 * Self.ms, state: Self.up) == LEDLevels(service: true))
    }

    @Test func upIsSteadyServiceAndDarkFault() {
        var pattern = LEDPattern()
        for t in stride(from: Int64(0), to: 10_000, by: 37) {
            #expect(pattern.levels(at: t * Self.ms, state: Self.up) == LEDLevels(service: true))
        }
    }

    /// Reasons → blinks of the code shown (the most fundamental reason wins).
    static let codes: [(ServiceDownReasons, Int)] = [
        (.poorQuality, 1), (.wifiDown, 2), (.noChannels, 3), (.notRunning, 4),
        ([.poorQuality, .noChannels], 3), ([.noChannels, .wifiDown], 2), ([.wifiDown, .notRunning], 4),
    ]

    @Test(arguments: codes)
    func downBlinksTheCodeOnTheFaultLED(reasons: ServiceDownReasons, blinks: Int) {
        var pattern = LEDPattern()
        let state = ServiceState(reasons: reasons)
        let cycle = Int64(blinks) * 500 + 1500
        // The code starts with its first blink, lit for 250 ms, then a pause after N blinks.
        #expect(pattern.levels(at: 0, state: state) == LEDLevels(fault: true))
        #expect(pattern.levels(at: 260 * Self.ms, state: state) == LEDLevels())
        #expect(pattern.levels(at: (cycle - 10) * Self.ms, state: state) == LEDLevels())
        #expect(Self.risingEdges(&pattern, state, led: "fault", from: 0, duration: cycle) == blinks - 1)
        #expect(Self.risingEdges(&pattern, state, led: "fault", from: cycle - 100, duration: cycle) == blinks)
        #expect(Self.risingEdges(&pattern, state, led: "service", from: 0, duration: 3 * cycle) == 0)
    }

    @Test func withoutAFaultLEDTheServiceLEDBlinksTheCode() {
        var pattern = LEDPattern(hasFaultLED: false)
        let state = ServiceState(reasons: .wifiDown)
        #expect(pattern.levels(at: 0, state: state) == LEDLevels(service: true))
        #expect(Self.risingEdges(&pattern, state, led: "service", from: -100, duration: 2500) == 2)
    }

    @Test func aNewCodeStartsFromItsFirstBlink() {
        var pattern = LEDPattern()
        _ = pattern.levels(at: 0, state: ServiceState(reasons: .noChannels))
        // 300 ms into code 3 the fault LED is dark; switching to code 2 there lights it at once.
        #expect(pattern.levels(at: 300 * Self.ms, state: ServiceState(reasons: .noChannels)).fault == false)
        #expect(pattern.levels(at: 310 * Self.ms, state: ServiceState(reasons: .wifiDown)).fault == true)
    }

    @Test func locateBlinksEverythingFastThenEnds() {
        var pattern = LEDPattern()
        pattern.locate(at: 1000 * Self.ms, seconds: 3)
        #expect(pattern.levels(at: 1000 * Self.ms, state: Self.up) == .allOn)
        #expect(pattern.levels(at: 1130 * Self.ms, state: Self.up) == LEDLevels())
        #expect(pattern.levels(at: 1250 * Self.ms, state: Self.up) == .allOn)
        // 4 Hz: 12 blinks in 3 s (the first at t=1000 is not an edge from the sample before).
        #expect(Self.risingEdges(&pattern, Self.up, led: "fault", from: 1000, duration: 3000) == 11)
        #expect(pattern.locateRemaining(at: 2500 * Self.ms) == 1.5)
        #expect(pattern.levels(at: 4000 * Self.ms, state: Self.up) == LEDLevels(service: true))
        pattern.locate(at: 5000 * Self.ms, seconds: 10)
        pattern.locate(at: 5100 * Self.ms, seconds: 0)
        #expect(pattern.levels(at: 5300 * Self.ms, state: Self.up) == LEDLevels(service: true))
    }

    @Test func lampTestOverridesLocate() {
        var pattern = LEDPattern()
        pattern.locate(at: 0, seconds: 5)
        pattern.lampTest(at: 130 * Self.ms)
        #expect(pattern.levels(at: 140 * Self.ms, state: Self.up) == .allOn)
    }

    @Test func activityFlickersOnTrafficAndGoesDarkWhenIdle() {
        var pattern = LEDPattern()
        pattern.traffic(at: 0)
        #expect(pattern.levels(at: 0, state: Self.up).activity)
        #expect(!pattern.levels(at: 60 * Self.ms, state: Self.up).activity)
        #expect(pattern.levels(at: 110 * Self.ms, state: Self.up).activity)
        #expect(!pattern.levels(at: 250 * Self.ms, state: Self.up).activity)
        // Steady traffic keeps it toggling: at least one edge per 100 ms.
        var edges = 0, previous = false
        for t in stride(from: Int64(1000), to: 2000, by: 10) {
            if t % 30 == 0 { pattern.traffic(at: t * Self.ms) }
            let lit = pattern.levels(at: t * Self.ms, state: Self.up).activity
            if lit && !previous { edges += 1 }
            previous = lit
        }
        #expect(edges >= 10)
    }
}
