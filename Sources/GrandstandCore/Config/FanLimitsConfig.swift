/// `listeners.fanLimits`: how much the fan listener gives any one client and all of them
/// (docs/serving.md, "Limits"). Every key is optional; out-of-range values are reported with
/// their JSON path.
extension GatewayConfig {
    public struct FanLimits: Sendable, Equatable {
        /// Open connections in total; past it new connections are closed at once.
        public var connections = 2048
        /// Open connections per client address.
        public var perClient = 64
        /// A connection with no traffic for this long is closed (slow readers included).
        public var idleTimeoutSeconds = 30
        /// A request's line and headers must arrive within this of the connection opening or
        /// the previous answer (slowloris); also the keep-alive wait.
        public var headerTimeoutSeconds = 10
        /// Request line plus headers per connection; larger requests get 414/431.
        public var headerBytes = 32 * 1024
        /// Accepted for old configs, no effect: the listener runs one epoll thread (it sized
        /// libmicrohttpd's thread pool; that engine was removed).
        public var threads = 1

        public init() {}

        /// `engine` is still a key so old configs that name `"grandstand"` keep loading.
        static let keys: Set<String> = ["connections", "perClient", "idleTimeoutSeconds", "headerTimeoutSeconds", "headerBytes", "threads", "engine"]
    }

    static func decodeFanLimits(_ value: JSONValue?, at path: JSONPath, _ reader: inout JSONReader) -> FanLimits {
        var limits = FanLimits()
        guard let object = reader.object(value, at: path, known: FanLimits.keys) else { return limits }
        limits.connections = reader.integer(object["connections"], at: object.path("connections"), in: 1...100_000) ?? limits.connections
        limits.perClient = reader.integer(object["perClient"], at: object.path("perClient"), in: 1...100_000) ?? limits.perClient
        limits.idleTimeoutSeconds = reader.integer(object["idleTimeoutSeconds"], at: object.path("idleTimeoutSeconds"),
                                                   in: 1...3600) ?? limits.idleTimeoutSeconds
        limits.headerTimeoutSeconds = reader.integer(object["headerTimeoutSeconds"], at: object.path("headerTimeoutSeconds"),
                                                     in: 1...3600) ?? limits.headerTimeoutSeconds
        limits.headerBytes = reader.integer(object["headerBytes"], at: object.path("headerBytes"), in: 4096...1_048_576) ?? limits.headerBytes
        limits.threads = reader.integer(object["threads"], at: object.path("threads"), in: 1...64) ?? limits.threads
        // One engine is left: naming it is harmless; naming the removed one is an error
        // rather than a silent switch, so the operator learns the setting no longer holds.
        switch reader.string(object["engine"], at: object.path("engine")) {
        case nil, "grandstand"?: break
        case "libmicrohttpd"?:
            reader.report(object.path("engine"), "\"libmicrohttpd\" was removed: the fan listener runs the grandstand engine only (delete the key)")
        case let name?:
            reader.report(object.path("engine"), "\"\(name)\" is not an engine (the only one is grandstand; the key may be left out)")
        }
        if limits.perClient > limits.connections {
            reader.report(object.path("perClient"), "\(limits.perClient) is more than connections (\(limits.connections))")
        }
        return limits
    }
}
