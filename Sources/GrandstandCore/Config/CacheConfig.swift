/// The `cache` section (docs/cache.md "Configuration"): where the content cache lives, its
/// policies, and the origin that download-to-go prefetch fetches from. Absent: no cache.
extension GatewayConfig {
    public struct Cache: Sendable, Equatable {
        public var directory: String
        public var policy = CachePolicy()
        public var origin: Origin?
        /// What fans may ask the gateway to fetch (`POST /items` on the fan listener); nil: no
        /// fan requests (the fan side only lists and plays what the operator cached).
        public var fans: FanRequests?

        public init(directory: String) { self.directory = directory }
    }

    /// `cache.fans`: the categories a fan may request items in, and how many requests one client
    /// address may make per hour (docs/cache.md "Fans").
    public struct FanRequests: Sendable, Equatable {
        public var categories: [String]
        public var perClientPerHour = 10

        public init(categories: [String]) { self.categories = categories }
    }

    /// The origin: `metadataURL` + `/ID` answers an item's metadata (docs/cache.md "Origin");
    /// relative media URLs resolve against `mediaBaseURL` (default: the metadata URL). The token
    /// hook: `headers`, `cookies` and `query` go with every origin request, unless `perType` has
    /// an entry for the request's file type, which replaces them (docs/cache.md "Token hook").
    public struct Origin: Sendable, Equatable {
        public var metadataURL: String
        public var mediaBaseURL: String?
        public var token = OriginTokenHook()
        /// The token hook's headers and query for every request (`token.all`).
        public var headers: [String: String] {
            get { token.all.headers }
            set { token.all.headers = newValue }
        }
        public var query: String? {
            get { token.all.query }
            set { token.all.query = newValue }
        }
        /// Seconds without progress before a request fails with `timeout`.
        public var timeoutSeconds: Double = 15
        /// Attempts per request for 5xx and network errors (backoff 0.5 s, doubling, at most 30 s).
        public var attempts = 3
        /// PEM CAs the origin's certificate must chain to instead of the system store (absolute path).
        public var caFile: String?
        /// The origin's public-key pin(s): `sha256//BASE64` (44 characters), several joined by `;`.
        public var pinnedPublicKey: String?
        /// `http://`, `https://`, `socks5://` or `socks5h://` proxy URL; nil: direct (the environment is not read).
        public var proxy: String?
        /// Redirects followed per request (0 refuses every redirect).
        public var maxRedirects = 5
        /// TCP connect plus TLS handshake.
        public var connectTimeoutSeconds: Double = 10
        /// The whole request, body included; nil: no limit.
        public var totalTimeoutSeconds: Double?

        public init(metadataURL: String) { self.metadataURL = metadataURL }
    }

    static func decodeCache(_ root: JSONObjectView, stateDirectory: String, _ reader: inout JSONReader) -> Cache? {
        guard let object = reader.object(root["cache"], at: root.path("cache"),
                                         known: ["directory", "sizeBytes", "maxFileBytes", "maxConcurrentDownloads", "dailyDownloadBytes",
                                                 "permittedHours", "diskFloorBytes", "origin", "fans", "itemDownloadBehavior",
                                                 "autoPurge"]) else { return nil }
        var cache = Cache(directory: reader.string(object["directory"], at: object.path("directory")) ?? stateDirectory + "/cache")
        let maxBytes = 1 << 50
        cache.policy.sizeBytes = reader.integer(object["sizeBytes"], at: object.path("sizeBytes"), in: (1 << 20)...maxBytes)
            ?? cache.policy.sizeBytes
        cache.policy.maxFileBytes = reader.integer(object["maxFileBytes"], at: object.path("maxFileBytes"), in: 1...maxBytes)
            ?? cache.policy.maxFileBytes
        cache.policy.maxConcurrentDownloads = reader.integer(object["maxConcurrentDownloads"], at: object.path("maxConcurrentDownloads"),
                                                             in: 1...64)
        if let text = reader.string(object["itemDownloadBehavior"], at: object.path("itemDownloadBehavior")) {
            if let behavior = CachePolicy.DownloadBehavior(rawValue: text) {
                cache.policy.itemDownloadBehavior = behavior
            } else {
                let names = CachePolicy.DownloadBehavior.allCases.map(\.rawValue).joined(separator: ", ")
                reader.report(object.path("itemDownloadBehavior"), "\"\(text)\" is not one of \(names)")
            }
        }
        cache.policy.autoPurge = reader.bool(object["autoPurge"], at: object.path("autoPurge")) ?? cache.policy.autoPurge
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
        cache.fans = decodeFans(object, &reader)
        return cache
    }

    /// `fans: {"categories": [non-empty strings, at least one], "perClientPerHour": 1...3600}`.
    private static func decodeFans(_ cache: JSONObjectView, _ reader: inout JSONReader) -> FanRequests? {
        guard let object = reader.object(cache["fans"], at: cache.path("fans"), known: ["categories", "perClientPerHour"]) else { return nil }
        var categories: [String] = []
        if let list = reader.array(object["categories"], at: object.path("categories")) {
            for (path, value) in list { if let text = reader.string(value, at: path) { categories.append(text) } }
            if list.isEmpty { reader.report(object.path("categories"), "list at least one category fans may request (or leave fans out)") }
        } else if object["categories"] == nil {
            reader.report(object.path("categories"), "required array is missing")
        }
        var fans = FanRequests(categories: categories)
        fans.perClientPerHour = reader.integer(object["perClientPerHour"], at: object.path("perClientPerHour"), in: 1...3600) ?? fans.perClientPerHour
        return fans
    }

    private static func decodeOrigin(_ cache: JSONObjectView, _ reader: inout JSONReader) -> Origin? {
        guard let object = reader.object(cache["origin"], at: cache.path("origin"),
                                         known: OriginTokenHook.members.union(["metadataURL", "mediaBaseURL", "timeoutSeconds", "attempts",
                                                 "caFile", "pinnedPublicKey", "proxy", "maxRedirects", "connectTimeoutSeconds",
                                                 "totalTimeoutSeconds"])) else { return nil }
        guard let url = reader.string(object["metadataURL"], at: object.path("metadataURL"), required: true) else { return nil }
        guard isHTTPURL(url) else {
            reader.report(object.path("metadataURL"), "\"\(url)\" is not an http:// or https:// URL")
            return nil
        }
        var origin = Origin(metadataURL: url)
        if let base = reader.string(object["mediaBaseURL"], at: object.path("mediaBaseURL")) {
            if isHTTPURL(base) { origin.mediaBaseURL = base } else {
                reader.report(object.path("mediaBaseURL"), "\"\(base)\" is not an http:// or https:// URL")
            }
        }
        decodeTransport(object, &origin, &reader)
        origin.token = OriginTokenHook.decode(object, &reader)
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

    private static func isHTTPURL(_ url: String) -> Bool {
        for scheme in ["http://", "https://"] where url.lowercased().hasPrefix(scheme) {
            let rest = url.dropFirst(scheme.count)
            return !rest.isEmpty && !rest.hasPrefix("/")
        }
        return false
    }

    /// `caFile`, `pinnedPublicKey`, `proxy`, `maxRedirects`, `connectTimeoutSeconds`, `totalTimeoutSeconds`.
    private static func decodeTransport(_ object: JSONObjectView, _ origin: inout Origin, _ reader: inout JSONReader) {
        if let file = reader.string(object["caFile"], at: object.path("caFile")) {
            if file.hasPrefix("/") { origin.caFile = file } else {
                reader.report(object.path("caFile"), "\"\(file)\" is not an absolute path to a PEM file")
            }
        }
        if let pins = reader.string(object["pinnedPublicKey"], at: object.path("pinnedPublicKey")) {
            let bad = pins.split(separator: ";", omittingEmptySubsequences: false).first { !isPin($0) }
            if let bad {
                reader.report(object.path("pinnedPublicKey"),
                              "\"\(bad)\" is not sha256// followed by the base64 SHA-256 of the origin's public key (44 characters)")
            } else {
                origin.pinnedPublicKey = pins
            }
        }
        if let proxy = reader.string(object["proxy"], at: object.path("proxy")) {
            let schemes = ["http://", "https://", "socks5://", "socks5h://"]
            if let scheme = schemes.first(where: { proxy.lowercased().hasPrefix($0) }), proxy.count > scheme.count,
               !proxy.dropFirst(scheme.count).hasPrefix("/"), !proxy.contains(" ") {
                origin.proxy = proxy
            } else {
                reader.report(object.path("proxy"), "\"\(proxy)\" is not a proxy URL (http://, https://, socks5:// or socks5h://host[:port])")
            }
        }
        origin.maxRedirects = reader.integer(object["maxRedirects"], at: object.path("maxRedirects"), in: 0...20) ?? origin.maxRedirects
        if let seconds = seconds(object, "connectTimeoutSeconds", 0.1...120, &reader) { origin.connectTimeoutSeconds = seconds }
        if let seconds = seconds(object, "totalTimeoutSeconds", 1...86_400, &reader) { origin.totalTimeoutSeconds = seconds }
    }

    private static func seconds(_ object: JSONObjectView, _ key: String, _ range: ClosedRange<Double>, _ reader: inout JSONReader) -> Double? {
        guard let value = object[key] else { return nil }
        guard case .number(let seconds) = value else {
            reader.report(object.path(key), "expected a number of seconds, got \(value.typeName)")
            return nil
        }
        guard range.contains(seconds) else {
            reader.report(object.path(key), "\(seconds) is out of range \(range.lowerBound)...\(range.upperBound) seconds")
            return nil
        }
        return seconds
    }

    /// `sha256//` and 44 base64 characters (32 bytes).
    private static func isPin(_ text: Substring) -> Bool {
        guard text.hasPrefix("sha256//") else { return false }
        let digest = text.dropFirst(8)
        let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
        return digest.count == 44 && digest.hasSuffix("=") && !digest.dropLast().contains("=")
            && digest.dropLast().allSatisfy { alphabet.contains($0) }
    }
}
