/// What the daemon saw at one moment, fed to `HealthMonitor.update`. Counters are cumulative
/// (as in the stats dictionary); the monitor turns them into rates itself.
public struct HealthObservation: Sendable, Equatable {
    public enum Lifecycle: String, Sendable, Equatable { case starting, running, stopping }

    /// The uplink Wi-Fi station interface; `bssid` nil means not associated.
    public struct WiFi: Sendable, Equatable {
        public var interfaceUp: Bool
        public var bssid: String?
        public init(interfaceUp: Bool, bssid: String?) {
            self.interfaceUp = interfaceUp
            self.bssid = bssid
        }
    }

    /// One channel's cumulative counters (stats keys in brackets).
    public struct ChannelCounters: Sendable, Equatable {
        /// [`protection_windows`], [`window_recovery_failures`]
        public var windows = 0, windowFailures = 0
        /// [`packets_received`], and lost after recovery [`gap_packets`]
        public var packetsReceived = 0, lostAfterRecovery = 0
        /// [`num_dropped_video_frames`], [`num_decode_errors`]
        public var droppedFrames = 0, decodeErrors = 0
        /// [`paths_down_current`]: ST 2022-7 paths of the channel that are silent while the other delivers.
        public var pathsDown = 0
        /// [`srt_connected_current`] is 0: an SRT channel with no peer (nil: not an SRT channel).
        public var srtDisconnected = false

        public init(windows: Int = 0, windowFailures: Int = 0, packetsReceived: Int = 0, lostAfterRecovery: Int = 0,
                    droppedFrames: Int = 0, decodeErrors: Int = 0) {
            self.windows = windows
            self.windowFailures = windowFailures
            self.packetsReceived = packetsReceived
            self.lostAfterRecovery = lostAfterRecovery
            self.droppedFrames = droppedFrames
            self.decodeErrors = decodeErrors
        }

        /// Reads the counters out of one channel's stats dictionary (missing keys count 0).
        public init(stats: [String: JSONValue]) {
            func value(_ key: String) -> Int { IngestStats.int(stats[key]) ?? 0 }
            self.init(windows: value("protection_windows"), windowFailures: value("window_recovery_failures"),
                      packetsReceived: value("packets_received"), lostAfterRecovery: value("gap_packets"),
                      droppedFrames: value("num_dropped_video_frames"), decodeErrors: value("num_decode_errors"))
            pathsDown = value("paths_down_current")
            srtDisconnected = IngestStats.int(stats["srt_connected_current"]) == 0
        }
    }

    public var lifecycle: Lifecycle
    /// nil when no Wi-Fi interface is configured (`network.wifiInterface: null`): never `wifi-down`.
    public var wifi: WiFi?
    /// Channels the gateway can serve (licensed, allowed, supported kind).
    public var validChannels: Int
    public var channels: [String: ChannelCounters]
    /// An allowed streamer's announcement was heard (a SAP-announced channel is listed).
    public var allowedStreamerHeard: Bool

    public init(lifecycle: Lifecycle, wifi: WiFi? = nil, validChannels: Int = 0, channels: [String: ChannelCounters] = [:],
                allowedStreamerHeard: Bool = false) {
        self.lifecycle = lifecycle
        self.wifi = wifi
        self.validChannels = validChannels
        self.channels = channels
        self.allowedStreamerHeard = allowedStreamerHeard
    }
}

/// One channel's rates over the quality window (nil: not enough data to say).
public struct ChannelQuality: Sendable, Equatable {
    public var fecFailureRate: Double?
    public var lossAfterRecoveryRate: Double?
    public var droppedFramesPerSecond: Double?

    public var json: JSONValue {
        .object([("fecFailureRate", fecFailureRate.map(JSONValue.number) ?? .null),
                 ("lossAfterRecoveryRate", lossAfterRecoveryRate.map(JSONValue.number) ?? .null),
                 ("droppedFramesPerSecond", droppedFramesPerSecond.map(JSONValue.number) ?? .null)])
    }
}

/// A change the monitor decided; the daemon turns each into an event.
public enum HealthTransition: Sendable, Equatable {
    case serviceUp(previous: ServiceDownReasons)
    /// Down, or still down with a different set of reasons.
    case serviceDown(reasons: ServiceDownReasons, previous: ServiceDownReasons)
    /// Entered (`inVenue`) or left the venue; `via` names the AP or says "streamer".
    case venue(inVenue: Bool, via: String?)
}
