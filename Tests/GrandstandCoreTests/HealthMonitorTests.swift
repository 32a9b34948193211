import Testing
@testable import GrandstandCore

/// The service-state machine driven with a fake clock (whole seconds → nanoseconds).
struct HealthMonitorTests {
    typealias Obs = HealthObservation
    static let second: Int64 = 1_000_000_000
    static let associated = Obs.WiFi(interfaceUp: true, bssid: "02:00:00:00:01:00")
    static let unassociated = Obs.WiFi(interfaceUp: true, bssid: nil)

    /// A monitor with enter 3 s, exit 10 s dwell and the default thresholds.
    static func monitor() -> HealthMonitor {
        HealthMonitor(venueAccessPoints: [.init(name: "venue-ap-1", bssid: "02:00:00:00:01:00")])
    }

    static func healthy(_ channels: [String: Obs.ChannelCounters] = [:]) -> Obs {
        Obs(lifecycle: .running, wifi: associated, validChannels: 1, channels: channels)
    }

    /// Feeds one observation per second from `start` for `count` seconds; returns every transition.
    static func run(_ monitor: inout HealthMonitor, from start: Int, seconds count: Int,
                    _ observe: (Int) -> Obs) -> [(Int, HealthTransition)] {
        var all: [(Int, HealthTransition)] = []
        for t in start..<(start + count) {
            for transition in monitor.update(observe(t), now: Int64(t) * second) { all.append((t, transition)) }
        }
        return all
    }

    /// A lost ST 2022-7 path and an SRT channel without its peer are warnings: the service stays
    /// up (and the LEDs green), the status names the channel.
    @Test func lostRedundancyAndAnUnconnectedSRTChannelAreWarningsNotDownReasons() {
        var monitor = Self.monitor()
        let dual = Obs.ChannelCounters(stats: ["paths_down_current": .number(1), "packets_received": .number(100)])
        let srt = Obs.ChannelCounters(stats: ["srt_connected_current": .number(0)])
        let fine = Obs.ChannelCounters(stats: ["srt_connected_current": .number(1), "paths_down_current": .number(0)])
        _ = monitor.update(Self.healthy(["dual": dual, "uplink": srt, "other": fine]), now: 0)
        #expect(monitor.state.isUp)
        #expect(monitor.state.warnings == ["path-down:dual", "srt-disconnected:uplink"])
        _ = monitor.update(Self.healthy(["dual": fine, "uplink": fine]), now: Self.second)
        #expect(monitor.state.warnings.isEmpty, "warnings follow the counters at once")
    }

    @Test func firstObservationSetsTheStateAtOnce() {
        var monitor = Self.monitor()
        #expect(monitor.state.reasons == .notRunning)
        let first = monitor.update(Obs(lifecycle: .starting, wifi: Self.unassociated), now: 0)
        #expect(first == [.serviceDown(reasons: [.notRunning, .wifiDown, .noChannels], previous: .notRunning)])
        #expect(monitor.state.reasons.rawValue == 0b1110)
        #expect(monitor.state.reasons.names == ["wifi-down", "no-channels", "not-running"])
    }

    @Test func healthyStartGoesUpImmediatelyAndInVenue() {
        var monitor = Self.monitor()
        let transitions = monitor.update(Self.healthy(), now: 0)
        #expect(transitions == [.serviceUp(previous: .notRunning), .venue(inVenue: true, via: "venue-ap-1")])
        #expect(monitor.state.isUp && monitor.state.inVenue)
    }

    @Test func clearingAReasonWaitsForTheExitDwell() {
        var monitor = Self.monitor()
        _ = monitor.update(Obs(lifecycle: .running, wifi: Self.associated, validChannels: 0), now: 0)
        #expect(monitor.state.reasons == .noChannels)
        let transitions = Self.run(&monitor, from: 1, seconds: 20) { _ in Self.healthy() }
        // Channels appear at t=1; the reason clears exitSeconds (10) later, at t=11.
        #expect(transitions.count == 1)
        #expect(transitions.first?.0 == 11)
        #expect(transitions.first?.1 == .serviceUp(previous: .noChannels))
    }

    @Test func flappingAssociationDoesNotFlapTheService() {
        var monitor = Self.monitor()
        _ = monitor.update(Self.healthy(), now: 0)
        // Association toggles every second (and every 2 s) for two minutes: never held 3 s.
        let fast = Self.run(&monitor, from: 1, seconds: 120) { t in
            Obs(lifecycle: .running, wifi: t % 2 == 0 ? Self.associated : Self.unassociated, validChannels: 1)
        }
        let slow = Self.run(&monitor, from: 121, seconds: 120) { t in
            Obs(lifecycle: .running, wifi: (t / 2) % 2 == 0 ? Self.associated : Self.unassociated, validChannels: 1)
        }
        #expect(fast.isEmpty && slow.isEmpty)
        #expect(monitor.state.isUp)
    }

    @Test func sustainedWiFiLossGoesDownAndShortRecoveriesKeepItDown() {
        var monitor = Self.monitor()
        _ = monitor.update(Self.healthy(), now: 0)
        var transitions = Self.run(&monitor, from: 1, seconds: 10) { _ in
            Obs(lifecycle: .running, wifi: Obs.WiFi(interfaceUp: false, bssid: nil), validChannels: 1)
        }
        // Lost at 1, enter dwell 3 s: down at 4. Leaving the venue takes the exit dwell (10 s).
        #expect(transitions.map(\.0) == [4])
        #expect(transitions.first?.1 == .serviceDown(reasons: .wifiDown, previous: []))
        #expect(monitor.state.inVenue)
        // Back for 5 s, lost 5 s, back for good: only the final 10 s of association clears it.
        transitions = Self.run(&monitor, from: 11, seconds: 40) { t in
            Obs(lifecycle: .running, wifi: (16..<21).contains(t) ? Self.unassociated : Self.associated, validChannels: 1)
        }
        #expect(transitions.map(\.0) == [31])
        #expect(transitions.first?.1 == .serviceUp(previous: .wifiDown))
    }

    @Test func stoppingIsImmediateAndReasonChangesWhileDownAreTransitions() {
        var monitor = Self.monitor()
        _ = monitor.update(Obs(lifecycle: .running, wifi: Self.associated, validChannels: 0), now: 0)
        let stop = monitor.update(Obs(lifecycle: .stopping, wifi: Self.associated, validChannels: 0), now: Self.second)
        #expect(stop == [.serviceDown(reasons: [.noChannels, .notRunning], previous: .noChannels)])
        #expect(monitor.state.reasons.blinkCode == 4)
    }

    @Test func noWiFiConfiguredIsNeverWiFiDown() {
        var monitor = Self.monitor()
        _ = monitor.update(Obs(lifecycle: .running, wifi: nil, validChannels: 2), now: 0)
        #expect(monitor.state.isUp)
        #expect(!monitor.state.inVenue)
    }

    @Test func inVenueByAllowedStreamerAndBSSIDCaseInsensitive() {
        var streamer = Self.monitor()
        let heard = streamer.update(Obs(lifecycle: .running, validChannels: 1, allowedStreamerHeard: true), now: 0)
        #expect(heard.contains(.venue(inVenue: true, via: "streamer")))
        var upper = Self.monitor()
        _ = upper.update(Obs(lifecycle: .running, wifi: .init(interfaceUp: true, bssid: "02-00-00-00-01-00".uppercased()), validChannels: 1), now: 0)
        #expect(upper.state.inVenue)
        var elsewhere = Self.monitor()
        _ = elsewhere.update(Obs(lifecycle: .running, wifi: .init(interfaceUp: true, bssid: "02:00:00:00:99:00"), validChannels: 1), now: 0)
        #expect(!elsewhere.state.inVenue && elsewhere.state.isUp)
    }

    /// Cumulative counters of a channel closing 100 FEC windows a second with `failures(t)` failing.
    static func fecChannel(until t: Int, failures: (Int) -> Int) -> Obs.ChannelCounters {
        var counters = Obs.ChannelCounters()
        for s in 0..<t {
            counters.windows += 100
            counters.windowFailures += failures(s)
            counters.packetsReceived += 1000
        }
        return counters
    }

    @Test func poorQualityHasHysteresis() {
        var monitor = Self.monitor()
        // 10% failing for 30 s, then 3% (between exit 1% and enter 5%) for 60 s, then none.
        func rate(_ s: Int) -> Int { s < 30 ? 10 : (s < 90 ? 3 : 0) }
        let transitions = Self.run(&monitor, from: 0, seconds: 150) { t in
            Self.healthy(["a": Self.fecChannel(until: t, failures: rate)])
        }
        let quality = transitions.filter { if case .serviceDown = $0.1 { return true } else if case .serviceUp = $0.1 { return true } else { return false } }
        #expect(quality.map(\.1) == [.serviceUp(previous: .notRunning), .serviceDown(reasons: .poorQuality, previous: []),
                                     .serviceUp(previous: .poorQuality)])
        // Poor after the first full second of data plus the 3 s dwell; cleared only once the
        // 10 s window holds ≤ 1% (t ≥ 90 + ~10) and that lasted the 10 s exit dwell.
        #expect(quality.count == 3 && quality[1].0 == 4)
        #expect(quality.count == 3 && (105...110).contains(quality[2].0))
        #expect(monitor.quality["a"]?.fecFailureRate == 0)
    }

    @Test func rateHoveringAroundTheEnterLevelDoesNotFlap() {
        var monitor = Self.monitor()
        // Alternating 2 s at 6% and 2 s at 0%: raw samples cross 5% but never hold for 3 s.
        let transitions = Self.run(&monitor, from: 0, seconds: 120) { t in
            Self.healthy(["a": Self.fecChannel(until: t, failures: { ($0 / 2) % 2 == 0 ? 6 : 0 })])
        }
        #expect(transitions.filter { if case .serviceDown = $0.1 { return true } else { return false } }.isEmpty)
    }

    @Test(arguments: [
        // (counters at t=10 relative to t=0, poor?)
        (Obs.ChannelCounters(packetsReceived: 9_800, lostAfterRecovery: 200), true),     // 2% lost after recovery
        (Obs.ChannelCounters(packetsReceived: 9_999, lostAfterRecovery: 1), false),      // 0.01%
        (Obs.ChannelCounters(packetsReceived: 10_000, droppedFrames: 30), true),         // 3 frames/s
        (Obs.ChannelCounters(packetsReceived: 10_000, decodeErrors: 25), true),          // 2.5 undecodable/s
        (Obs.ChannelCounters(packetsReceived: 10_000, droppedFrames: 10), false),        // 1 frame/s
        (Obs.ChannelCounters(windows: 5, windowFailures: 5, packetsReceived: 10_000), false), // under minimumWindows
    ])
    func eachQualitySignalCounts(delta: Obs.ChannelCounters, poor: Bool) {
        var monitor = Self.monitor()
        _ = monitor.update(Self.healthy(["a": Obs.ChannelCounters()]), now: 0)
        // The same rate sustained: at 10 s and again 10 s later (past the enter dwell).
        var later = delta
        _ = monitor.update(Self.healthy(["a": delta]), now: 10 * Self.second)
        later.windows *= 2; later.windowFailures *= 2; later.packetsReceived *= 2
        later.lostAfterRecovery *= 2; later.droppedFrames *= 2; later.decodeErrors *= 2
        _ = monitor.update(Self.healthy(["a": later]), now: 20 * Self.second)
        #expect(monitor.state.reasons.contains(.poorQuality) == poor)
    }

    @Test func eventsCarryReasonNamesAndBitmap() {
        let down = HealthTransition.serviceDown(reasons: [.wifiDown, .noChannels], previous: []).event
        #expect(down.kind == .serviceDown)
        #expect(down.kind.messageID == "7157912a35264f74a887543d9fdb43e2")
        #expect(down.fields.first { $0.name == "REASONS" }?.value == "wifi-down,no-channels")
        #expect(down.fields.first { $0.name == "REASONS_BITMAP" }?.value == "6")
        #expect(down.fields.first { $0.name == "BLINK_CODE" }?.value == "2")
        let up = HealthTransition.serviceUp(previous: .poorQuality).event
        #expect(up.kind == .serviceUp && up.message == "service up (was down: poor-quality)")
        #expect(HealthTransition.venue(inVenue: true, via: "venue-ap-1").event.fields.map(\.value) == ["venue-ap-1"])
    }
}
