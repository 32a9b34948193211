/// Everything the gateway logs as a structured event. Each kind has a fixed journald MESSAGE_ID
/// (documented in docs/logging.md) so field staff can filter with `journalctl MESSAGE_ID=…`.
public struct GatewayEvent: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case ready, stopping, reloaded, configRejected = "config-rejected", ledsUnavailable = "leds-unavailable"
        case channelAdded = "channel-added", channelUpdated = "channel-updated", channelRemoved = "channel-removed"
        case captureUp = "capture-up", captureDown = "capture-down", groupRejoined = "group-rejoined"
        case serviceUp = "service-up", serviceDown = "service-down", inVenue = "in-venue", outOfVenue = "out-of-venue"
        case faultInjected = "fault-injected", ledsAvailable = "leds-available"
        case catalogUpdated = "catalog-updated", catalogRejected = "catalog-rejected"
        case recordStarted = "record-started", recordStopped = "record-stopped", recordFailed = "record-failed"
        case recordCompleted = "record-completed", recordInterrupted = "record-interrupted"
        case cacheUnavailable = "cache-unavailable", ledsHeld = "leds-held"
        case srtConnected = "srt-connected", srtDisconnected = "srt-disconnected", srtRefused = "srt-refused"
        case pathDown = "path-down", pathUp = "path-up", pathRefused = "path-refused", pathFailover = "path-failover"
        case updateInstalled = "update-installed", updateFailed = "update-failed", updateCommitted = "update-committed"
        case updateRollingBack = "update-rolling-back", updateRolledBack = "update-rolled-back"
        case updateHeard = "update-heard", updateRefused = "update-refused"
        // Download-to-go item events (CacheItemEvent): what the SDK tells an app.
        case itemDiscovered = "item-discovered", itemDownloadStarted = "item-download-started", itemProgress = "item-progress"
        case itemDownloaded = "item-downloaded", itemFailed = "item-failed", itemEvicted = "item-evicted", itemDeleted = "item-deleted"

        /// journald MESSAGE_ID (128-bit, lowercase hex without dashes, per sd-id128(3)).
        public var messageID: String {
            switch self {
            case .ready: "27219f69265740d896896acd9489e1fc"
            case .stopping: "4b72d99bb2234fe3b7889315cafbfe33"
            case .configRejected: "6e0de7ae0998495eb6238f57c3020472"
            case .ledsUnavailable: "fc361e6d9b7f44dca462df71a9d49d80"
            case .reloaded: "992d142e69f949a48913bc1280039eaa"
            case .channelAdded: "04021d1d0f404f4e82b5fe1caf26ba43"
            case .channelUpdated: "cdc539d2f71c4694912fab7cf5108350"
            case .channelRemoved: "94eeba4ef15b46348a69a9d8d271864b"
            case .captureUp: "1eabb8f6bbd8445f970aee2e64d63499"
            case .captureDown: "ed0ea0da488849579f70815d26a7417a"
            case .groupRejoined: "4f696357b2644a6092b6ff07f287d93b"
            case .serviceUp: "fa5af90925e74c9a951e3f65cb560a84"
            case .serviceDown: "7157912a35264f74a887543d9fdb43e2"
            case .inVenue: "b6cb9ba5527f4f49b5372a69b8c3ed44"
            case .outOfVenue: "d8195647d1374227a801b1b3d723c00b"
            case .faultInjected: "810f20dde8d640878b712669f2dcc8c5"
            case .ledsAvailable: "34afe8781efd4522af162bfc4ea5f2e9"
            case .catalogUpdated: "d37228b7bedf4e4d91bd6a7b6d98f334"
            case .catalogRejected: "9cfa62fdf855454fbd4e105d6680e57a"
            case .recordStarted: "00361df71b15463b89bbb02355922248"
            case .recordStopped: "c103aeae3ac346fcb791901ecc4ed89e"
            case .recordFailed: "e65599d0717940f7ad5008b2629e24b6"
            case .recordCompleted: "f4fb32f24fc7406b95af1b5f0eaae8b3"
            case .recordInterrupted: "1c1fe3abf633401b88d2537695d7622a"
            case .cacheUnavailable: "11cfe34942aa49e280002c124a9c8a06"
            case .ledsHeld: "1f02bdc844b148988687228cd99ec126"
            case .srtConnected: "ec996285d2a34d2b90a841595fd19e4b"
            case .srtDisconnected: "71c295ff4216424781d8d5cdbb301eb9"
            case .srtRefused: "b8324c5b230749c2b6879e7657558c4e"
            case .pathDown: "7f4c094697194d10822bdb5697dcf804"
            case .pathUp: "182c9393c9424baf8a8ba419e563325f"
            case .pathRefused: "a8695b24f15346d6a248e36bac94330b"
            case .pathFailover: "3222e9776d0d4d91b0d7bfb86c5fb559"
            case .updateInstalled: "b19edf0774fc48a490a8c3491ba822af"
            case .updateFailed: "06a7fdfe8ba04c48b76a134a0629015c"
            case .updateCommitted: "da4f20d574c645068e468f6a4e4bfc7f"
            case .updateRollingBack: "170129e9bde0421abd31b83413d6e7ea"
            case .updateRolledBack: "b03c8db9e25046f7b14f3c92fb6ed23e"
            case .updateHeard: "f119dbf89121453bbd9d0c710c8b1699"
            case .updateRefused: "cb02ca42b4ee491589e9779a37f5c93c"
            case .itemDiscovered: "b124fe3b20ad4b5b8ee58df74f6568cc"
            case .itemDownloadStarted: "b8a83c6512cd40b0bb5a94388c306140"
            case .itemProgress: "2dfd64f5064f4422ba458a0804b0bffe"
            case .itemDownloaded: "b18eb3446176437aa5f5c6f5598031fe"
            case .itemFailed: "4b269297a36a449cbdcda1785941b173"
            case .itemEvicted: "6a017c33e4724043b6ea2446ce4966e4"
            case .itemDeleted: "98f49b52af314b0c9ecc3ed381506630"
            }
        }

        /// syslog priority: 3 error, 4 warning, 5 notice, 6 info, 7 debug (item progress: in the
        /// journal only at `logLevel` debug; the event stream carries it whatever the level).
        public var priority: Int {
            switch self {
            case .ready, .stopping, .reloaded, .channelAdded, .channelRemoved, .captureUp, .groupRejoined, .serviceUp, .inVenue,
                 .outOfVenue, .ledsAvailable, .ledsHeld, .recordStarted, .recordStopped, .recordCompleted, .pathUp, .srtConnected,
                 .updateInstalled, .updateCommitted, .updateHeard, .itemDownloaded, .itemEvicted, .itemDeleted: 5
            case .channelUpdated, .catalogUpdated, .itemDiscovered, .itemDownloadStarted: 6
            case .itemProgress: 7
            case .ledsUnavailable, .captureDown, .serviceDown, .catalogRejected, .recordFailed, .recordInterrupted, .cacheUnavailable, .pathDown,
                 .pathRefused, .pathFailover, .srtDisconnected, .srtRefused, .itemFailed, .updateRefused: 4
            case .configRejected, .faultInjected, .updateFailed, .updateRollingBack, .updateRolledBack: 3
            }
        }
    }

    public var kind: Kind
    public var message: String
    /// Extra fields, names without the GRANDSTAND_ prefix (added when written), e.g. "BOARD".
    public var fields: [(name: String, value: String)]

    public init(_ kind: Kind, _ message: String, fields: [(name: String, value: String)] = []) {
        self.kind = kind
        self.message = message
        self.fields = fields
    }

    public static func == (lhs: GatewayEvent, rhs: GatewayEvent) -> Bool {
        lhs.kind == rhs.kind && lhs.message == rhs.message
            && lhs.fields.map(\.name) == rhs.fields.map(\.name) && lhs.fields.map(\.value) == rhs.fields.map(\.value)
    }

    /// The journald fields of this event, in the order they are written.
    public var journalFields: [(name: String, value: String)] {
        [("MESSAGE", message), ("MESSAGE_ID", kind.messageID), ("PRIORITY", String(kind.priority)),
         ("SYSLOG_IDENTIFIER", "grandstand"), ("GRANDSTAND_EVENT", kind.rawValue)]
            + fields.map { ("GRANDSTAND_" + $0.name, $0.value) }
    }
}
