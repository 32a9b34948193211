/// The service-state machine, sans I/O: fed observations with their time, it decides the down
/// reasons and in-venue flag with hysteresis (enter/exit levels) and a minimum dwell, so noisy
/// inputs do not flap the output, and returns the transitions to log and show.
public struct HealthMonitor: Sendable {
    public let config: HealthConfig
    /// Venue access points' BSSIDs (normalized lowercase) to their names (`network.wifiApInfo`).
    public let venueAccessPoints: [String: String]
    public private(set) var state = ServiceState(reasons: .notRunning)
    /// When the reasons last changed (nil before the first update).
    public private(set) var since: Int64?
    /// Each channel's rates at the last update.
    public private(set) var quality: [String: ChannelQuality] = [:]

    private var wifiDown = Dwell(), noChannels = Dwell(), poorQuality = Dwell(), inVenue = Dwell()
    private var samples: [(time: Int64, channels: [String: HealthObservation.ChannelCounters])] = []

    public init(config: HealthConfig = HealthConfig(), venueAccessPoints: [GatewayConfig.WiFiAccessPoint] = []) {
        self.config = config
        var table: [String: String] = [:]
        for ap in venueAccessPoints { table[MACAddress.normalized(ap.bssid) ?? ap.bssid.lowercased()] = ap.name }
        self.venueAccessPoints = table
    }

    /// Takes one observation at `now` (nanoseconds, any monotonic clock) and returns what changed.
    public mutating func update(_ observation: HealthObservation, now: Int64) -> [HealthTransition] {
        let enter = Int64(config.enterSeconds * 1e9), exit = Int64(config.exitSeconds * 1e9)
        let previous = state
        var reasons: ServiceDownReasons = []
        if observation.lifecycle != .running { reasons.insert(.notRunning) }
        let wifiRaw = observation.wifi.map { !$0.interfaceUp || $0.bssid == nil } ?? false
        if wifiDown.update(wifiRaw, now: now, enter: enter, exit: exit) { reasons.insert(.wifiDown) }
        if noChannels.update(observation.validChannels == 0, now: now, enter: enter, exit: exit) { reasons.insert(.noChannels) }
        let poorRaw = measureQuality(observation.channels, now: now, alreadyPoor: poorQuality.active ?? false)
        if poorQuality.update(poorRaw, now: now, enter: enter, exit: exit) { reasons.insert(.poorQuality) }

        let venueAP = observation.wifi?.bssid.flatMap { venueAccessPoints[MACAddress.normalized($0) ?? $0.lowercased()] }
        let venueRaw = venueAP != nil || observation.allowedStreamerHeard
        state = ServiceState(reasons: reasons, inVenue: inVenue.update(venueRaw, now: now, enter: enter, exit: exit))
        // Lost redundancy leaves the service up (the other path delivers) but is worth a look.
        state.warnings = observation.channels.keys.sorted().flatMap { id -> [String] in
            guard let channel = observation.channels[id] else { return [] }
            return (channel.pathsDown > 0 ? ["path-down:\(id)"] : []) + (channel.srtDisconnected ? ["srt-disconnected:\(id)"] : [])
        }

        var transitions: [HealthTransition] = []
        if since == nil || state.reasons != previous.reasons {
            since = now
            transitions.append(state.isUp ? .serviceUp(previous: previous.reasons)
                                          : .serviceDown(reasons: state.reasons, previous: previous.reasons))
        }
        if state.inVenue != previous.inVenue {
            transitions.append(.venue(inVenue: state.inVenue, via: state.inVenue ? (venueAP ?? "streamer") : nil))
        }
        return transitions
    }

    /// Rates per channel over the last `qualityWindowSeconds`; true when any channel is poor:
    /// at or above an enter level, or (while already poor) still above an exit level.
    private mutating func measureQuality(_ channels: [String: HealthObservation.ChannelCounters], now: Int64, alreadyPoor: Bool) -> Bool {
        samples.append((now, channels))
        let cutoff = now - Int64(config.qualityWindowSeconds * 1e9)
        while samples.count > 2, samples[1].time <= cutoff { samples.removeFirst() }
        let base = samples[0]
        let seconds = Double(now - base.time) / 1e9
        quality = [:]
        var poor = false
        for (id, current) in channels {
            guard seconds > 0, let old = base.channels[id] else { continue }
            var rates = ChannelQuality()
            let windows = current.windows - old.windows, failures = current.windowFailures - old.windowFailures
            if windows >= config.minimumWindows, failures >= 0 { rates.fecFailureRate = Double(failures) / Double(windows) }
            let lost = current.lostAfterRecovery - old.lostAfterRecovery, received = current.packetsReceived - old.packetsReceived
            if lost >= 0, received >= 0, lost + received > 0 { rates.lossAfterRecoveryRate = Double(lost) / Double(lost + received) }
            let dropped = max(current.droppedFrames - old.droppedFrames, current.decodeErrors - old.decodeErrors)
            if dropped >= 0 { rates.droppedFramesPerSecond = Double(dropped) / seconds }
            quality[id] = rates
            poor = poor || Self.isPoor(rates, config, alreadyPoor: alreadyPoor)
        }
        return poor
    }

    static func isPoor(_ rates: ChannelQuality, _ config: HealthConfig, alreadyPoor: Bool) -> Bool {
        func over(_ value: Double?, _ threshold: HealthConfig.Threshold) -> Bool {
            guard let value else { return false }
            return alreadyPoor ? value > threshold.exit : value >= threshold.enter
        }
        return over(rates.fecFailureRate, config.fecFailureRate) || over(rates.lossAfterRecoveryRate, config.lossAfterRecoveryRate)
            || over(rates.droppedFramesPerSecond, config.droppedFramesPerSecond)
    }
}

/// One debounced flag: takes its first value at once, then changes only after the new raw value
/// held for the dwell (`enter` to become true, `exit` to become false).
struct Dwell: Sendable {
    private(set) var active: Bool?
    private var pendingSince: Int64?

    mutating func update(_ raw: Bool, now: Int64, enter: Int64, exit: Int64) -> Bool {
        guard let current = active else {
            active = raw
            return raw
        }
        guard raw != current else {
            pendingSince = nil
            return current
        }
        let start = pendingSince ?? now
        pendingSince = start
        if now - start >= (raw ? enter : exit) {
            active = raw
            pendingSince = nil
            return raw
        }
        return current
    }
}
