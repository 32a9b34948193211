/// The `update` section (docs/updates.md): when a freshly booted slot is marked good, and when a
/// slot that never gets healthy is given up. `{"update":{"markGoodAfterSeconds":120}}`.
extension GatewayConfig {
    public struct Update: Sendable, Equatable {
        /// What counts as healthy for committing a slot.
        public enum Health: String, Sendable, Equatable, CaseIterable {
            /// The daemon runs (started, listeners bound, threads alive): a venue with no channels
            /// at night still commits a good release.
            case running
            /// The service is up: no service-down reason at all (channels, Wi-Fi, quality).
            case up
        }

        /// A booted slot on trial is marked good after health has held this long without a break.
        public var markGoodAfterSeconds = 120
        /// A slot on trial that has not been marked good this long after the daemon started is
        /// marked bad and the box reboots into the other slot (only when that slot is good).
        public var rollbackAfterSeconds = 900
        public var health = Health.running
        /// Bundles heard on a FLUTE file channel (`update.multicast`); nil: only HTTP and files.
        public var multicast: Multicast?

        public init() {}

        static let keys: Set<String> = ["markGoodAfterSeconds", "rollbackAfterSeconds", "health", "multicast"]
    }

    /// `{"channel": "updates", "windows": ["02:00-05:00"], "maxViewers": 0, "staggerSeconds": 1800}`:
    /// the file channel that carries bundles, and when this box may install and reboot (`RolloutPolicy`).
    public struct Multicast: Sendable, Equatable {
        public var channel: String
        public var rollout = RolloutPolicy()

        public init(channel: String, rollout: RolloutPolicy = RolloutPolicy()) {
            self.channel = channel
            self.rollout = rollout
        }

        static let keys: Set<String> = ["channel", "windows", "maxViewers", "staggerSeconds"]
    }

    static func decodeMulticast(_ update: JSONObjectView, _ reader: inout JSONReader) -> Multicast? {
        guard let object = reader.object(update["multicast"], at: update.path("multicast"), known: Multicast.keys),
              let channel = reader.string(object["channel"], at: object.path("channel"), required: true) else { return nil }
        var multicast = Multicast(channel: channel)
        if let windows = reader.array(object["windows"], at: object.path("windows")) {
            for (path, value) in windows {
                guard let text = reader.string(value, at: path) else { continue }
                guard let window = RolloutPolicy.Window(text) else {
                    reader.report(path, "\"\(text)\" is not a UTC window HH:MM-HH:MM")
                    continue
                }
                multicast.rollout.windows.append(window)
            }
        }
        multicast.rollout.maxViewers = reader.integer(object["maxViewers"], at: object.path("maxViewers"), in: 0...1_000_000)
            ?? multicast.rollout.maxViewers
        multicast.rollout.staggerSeconds = reader.integer(object["staggerSeconds"], at: object.path("staggerSeconds"), in: 0...86_400)
            ?? multicast.rollout.staggerSeconds
        return multicast
    }

    static func decodeUpdate(_ root: JSONObjectView, _ reader: inout JSONReader) -> Update {
        var update = Update()
        guard let object = reader.object(root["update"], at: root.path("update"), known: Update.keys) else { return update }
        update.markGoodAfterSeconds = reader.integer(object["markGoodAfterSeconds"], at: object.path("markGoodAfterSeconds"),
                                                     in: 1...86_400) ?? update.markGoodAfterSeconds
        update.rollbackAfterSeconds = reader.integer(object["rollbackAfterSeconds"], at: object.path("rollbackAfterSeconds"),
                                                     in: 10...604_800) ?? update.rollbackAfterSeconds
        if let name = reader.string(object["health"], at: object.path("health")) {
            if let health = Update.Health(rawValue: name) {
                update.health = health
            } else {
                reader.report(object.path("health"), "\"\(name)\" is not a health requirement (running, up)")
            }
        }
        update.multicast = decodeMulticast(object, &reader)
        if update.rollbackAfterSeconds <= update.markGoodAfterSeconds {
            reader.report(object.path("rollbackAfterSeconds"),
                          "\(update.rollbackAfterSeconds) is not more than markGoodAfterSeconds (\(update.markGoodAfterSeconds))")
        }
        return update
    }
}
