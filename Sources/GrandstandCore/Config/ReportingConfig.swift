extension GatewayConfig {
    /// `reporting{url, intervalSeconds, queueLimit, retryInitialSeconds, retryMaxSeconds,
    /// timeoutSeconds, queueDirectory}`: periodic report uploads (docs/reporting.md). Without a
    /// `url` reports are neither built nor queued.
    public struct Reporting: Sendable, Equatable {
        /// Where reports are POSTed; nil disables reporting.
        public var url: UploadTarget?
        public var intervalSeconds = 60
        /// At most this many reports wait on disk; when full the oldest is dropped (and counted).
        public var queueLimit = 1000
        public var retryInitialSeconds = 5
        public var retryMaxSeconds = 300
        /// Connect + send + answer deadline of one POST.
        public var timeoutSeconds = 10
        /// Queue folder; nil: `stateDirectory/reports`.
        public var queueDirectory: String?

        public init() {}

        public var backoff: UploadBackoff {
            UploadBackoff(initialMilliseconds: Int64(retryInitialSeconds) * 1000,
                          maxMilliseconds: Int64(retryMaxSeconds) * 1000, jitter: 0.2)
        }

        /// The queue folder for state directory `stateDirectory`.
        public func queuePath(stateDirectory: String) -> String {
            queueDirectory ?? (stateDirectory.hasSuffix("/") ? stateDirectory : stateDirectory + "/") + "reports"
        }
    }

    static func decodeReporting(_ root: JSONObjectView, _ reader: inout JSONReader) -> Reporting {
        var reporting = Reporting()
        guard let object = reader.object(root["reporting"], at: root.path("reporting"),
                                         known: ["url", "intervalSeconds", "queueLimit", "retryInitialSeconds",
                                                 "retryMaxSeconds", "timeoutSeconds", "queueDirectory"]) else {
            return reporting
        }
        if let text = reader.string(object["url"], at: object.path("url")) {
            switch UploadTarget.parse(text) {
            case .success(let target): reporting.url = target
            case .failure(let problem): reader.report(object.path("url"), problem.description)
            }
        }
        func integer(_ key: String, _ range: ClosedRange<Int>, _ value: inout Int) {
            value = reader.integer(object[key], at: object.path(key), in: range) ?? value
        }
        integer("intervalSeconds", 1 ... 86_400, &reporting.intervalSeconds)
        integer("queueLimit", 1 ... 1_000_000, &reporting.queueLimit)
        integer("retryInitialSeconds", 1 ... 3_600, &reporting.retryInitialSeconds)
        integer("retryMaxSeconds", 1 ... 86_400, &reporting.retryMaxSeconds)
        integer("timeoutSeconds", 1 ... 300, &reporting.timeoutSeconds)
        if reporting.retryMaxSeconds < reporting.retryInitialSeconds {
            reader.report(object.path("retryMaxSeconds"),
                          "\(reporting.retryMaxSeconds) is less than retryInitialSeconds (\(reporting.retryInitialSeconds))")
        }
        if let path = reader.string(object["queueDirectory"], at: object.path("queueDirectory")) {
            if path.hasPrefix("/") { reporting.queueDirectory = path } else {
                reader.report(object.path("queueDirectory"), "\"\(path)\" is not an absolute path")
            }
        }
        return reporting
    }
}
