/// The `cache` section (docs/cache.md "Configuration"): where the content cache lives, its
/// policies, and the origin that download-to-go prefetch fetches from. Absent: no cache.
extension GatewayConfig {
    public struct Cache: Sendable, Equatable {
        public var directory: String
        public var policy = CachePolicy()
        public var origin: Origin?

        public init(directory: String) { self.directory = directory }
    }

    /// The origin: `metadataURL` + `/ID` answers an item's metadata (docs/cache.md "Origin");
    /// relative media URLs resolve against `mediaBaseURL` (default: the metadata URL). The token
    /// hook: `headers` go on every origin request and `query` is appended to every origin URL.
    public struct Origin: Sendable, Equatable {
        public var metadataURL: String
        public var mediaBaseURL: String?
        public var headers: [String: String] = [:]
        public var query: String?
        /// Seconds without progress before a request fails with `timeout`.
        public var timeoutSeconds: Double = 15
        /// Attempts per request for 5xx and network errors (backoff 0.5 s, doubling).
        public var attempts = 3

        public init(metadataURL: String) { self.metadataURL = metadataURL }
    }

    static func decodeCache(_ root: JSONObjectView, stateDirectory: String, _ reader: inout JSONReader) -> Cache? {
        guard let object = reader.object(root["cache"], at: root.path("cache"),
                                         known: ["directory", "sizeBytes", "maxFileBytes", "maxConcurrentDownloads", "dailyDownloadBytes",
                                                 "permittedHours", "diskFloorBytes", "origin"]) else { return nil }
        var cache = Cache(directory: reader.string(object["directory"], at: object.path("directory")) ?? stateDirectory + "/cache")
        let maxBytes = 1 << 50
        cache.policy.sizeBytes = reader.integer(object["sizeBytes"], at: object.path("sizeBytes"), in: (1 << 20)...maxBytes)
            ?? cache.policy.sizeBytes
        cache.policy.maxFileBytes = reader.integer(object["maxFileBytes"], at: object.path("maxFileBytes"), in: 1...maxBytes)
            ?? cache.policy.maxFileBytes
        cache.policy.maxConcurrentDownloads = reader.integer(object["maxConcurrentDownloads"], at: object.path("maxConcurrentDownloads"),
                                                             in: 1...16) ?? cache.policy.maxConcurrentDownloads
        cache.policy.dailyDownloadBytes = reader.integer(object["dailyDownloadBytes"], at: object.path("dailyDownloadBytes"), in: 1...maxBytes)
        cache.policy.diskFloorBytes = reader.integer(object["diskFloorBytes"], at: object.path("diskFloorBytes"), in: 0...maxBytes)
            ?? cache.policy.diskFloorBytes
        if let windows = reader.array(object["permittedHours"], at: object.path("permittedHours")) {
            for (path, value) in windows {
                guard let text = reader.string(value, at: path) else { continue }
                guard let window = CachePolicy.HourWindow(text) else {
                    reader.report(path, "\"\(text)\" is not a UTC window HH:MM-HH:MM")
                    continue
                }
                cache.policy.permittedHours.append(window)
            }
        }
        if cache.policy.maxFileBytes > cache.policy.sizeBytes {
            reader.report(object.path("maxFileBytes"), "\(cache.policy.maxFileBytes) is larger than sizeBytes (\(cache.policy.sizeBytes))")
        }
        cache.origin = decodeOrigin(object, &reader)
        return cache
    }

    private static func decodeOrigin(_ cache: JSONObjectView, _ reader: inout JSONReader) -> Origin? {
        guard let object = reader.object(cache["origin"], at: cache.path("origin"),
                                         known: ["metadataURL", "mediaBaseURL", "headers", "query", "timeoutSeconds", "attempts"]) else { return nil }
        guard let url = reader.string(object["metadataURL"], at: object.path("metadataURL"), required: true) else { return nil }
        guard url.hasPrefix("http://") else {
            reader.report(object.path("metadataURL"), "\"\(url)\" is not an http:// URL")
            return nil
        }
        var origin = Origin(metadataURL: url)
        if let base = reader.string(object["mediaBaseURL"], at: object.path("mediaBaseURL")) {
            if base.hasPrefix("http://") { origin.mediaBaseURL = base } else {
                reader.report(object.path("mediaBaseURL"), "\"\(base)\" is not an http:// URL")
            }
        }
        if let headers = object["headers"] {
            if case .object(let members) = headers {
                for (name, value) in members {
                    if let text = reader.string(value, at: object.path("headers").appending(name), nonEmpty: false) { origin.headers[name] = text }
                }
            } else {
                reader.report(object.path("headers"), "expected an object of header names to values, got \(headers.typeName)")
            }
        }
        origin.query = reader.string(object["query"], at: object.path("query"))
        if case .number(let seconds)? = object["timeoutSeconds"] {
            if (0.1...600).contains(seconds) { origin.timeoutSeconds = seconds } else {
                reader.report(object.path("timeoutSeconds"), "\(seconds) is out of range 0.1...600 seconds")
            }
        } else if let value = object["timeoutSeconds"] {
            reader.report(object.path("timeoutSeconds"), "expected a number of seconds, got \(value.typeName)")
        }
        origin.attempts = reader.integer(object["attempts"], at: object.path("attempts"), in: 1...10) ?? origin.attempts
        return origin
    }
}
