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

        public init() {}

        static let keys: Set<String> = ["markGoodAfterSeconds", "rollbackAfterSeconds", "health"]
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
        if update.rollbackAfterSeconds <= update.markGoodAfterSeconds {
            reader.report(object.path("rollbackAfterSeconds"),
                          "\(update.rollbackAfterSeconds) is not more than markGoodAfterSeconds (\(update.markGoodAfterSeconds))")
        }
        return update
    }
}
