/// The isLive polling answer for many fixture ids at once, with a suggested next-poll interval:
/// short while something asked for is live or about to start or end, long when nothing is near.
/// A fixture is live when a gateway channel carries it, or else when the last poll of its
/// external live URL (a playlist or StreamPlay isLive endpoint on another origin) said so.
public enum CatalogLivePoll {
    /// Poll intervals in seconds (docs/catalog.md "Polling").
    public static let liveSeconds = 10, soonSeconds = 30, idleSeconds = 300
    /// "About to start or end" means within this many seconds.
    public static let soonWindowSeconds = 15.0 * 60
    public static let maximumIds = 200

    /// The fixtures among `ids` whose isLive needs an external poll: no live channel of the
    /// gateway carries them and they have an external live URL. Unique URLs, in order.
    public static func externalURLs(_ catalog: Catalog, ids: [String], channels: [LiveChannel]) -> [String] {
        var seen = Set<String>(), urls: [String] = []
        for id in ids.prefix(maximumIds) {
            guard let fixture = catalog.fixture(id: id), fixture.liveChannel(in: channels) == nil,
                  let url = fixture.externalLiveURL, seen.insert(url).inserted else { continue }
            urls.append(url)
        }
        return urls
    }

    /// `ids` as given (comma-separated in the URL); `now` in seconds since the epoch; `external`
    /// the polls of external live URLs (`externalURLs`). Answers
    /// `{"fixtures":[{id, isLive, channel, liveURL, pollingFrequency[, error]}], "unknown":[…],
    /// "errors":[{liveStreamID, errorCode, messages}], "nextPollSeconds"}`: per-id errors in the
    /// SDK's StreamPlayIsLiveErrorModel shape, for unknown ids and failed external polls.
    public static func answer(_ catalog: Catalog, ids: [String], channels: [LiveChannel], now: Double,
                              external: [String: ExternalLive] = [:]) throws(CatalogQueryError) -> JSONValue {
        guard !ids.isEmpty else { throw .badParameter("ids", value: "", expected: "one or more fixture ids, comma-separated") }
        guard ids.count <= maximumIds else { throw .badParameter("ids", value: "\(ids.count) ids", expected: "at most \(maximumIds)") }
        var items: [JSONValue] = [], unknown: [JSONValue] = [], errors: [JSONValue] = []
        var next = idleSeconds
        for id in ids {
            guard let fixture = catalog.fixture(id: id) else {
                unknown.append(.string(id))
                errors.append(error(id, code: 404, "no fixture \"\(id)\" in the catalog"))
                continue
            }
            let state = Self.state(fixture, channels: channels, external: external, now: now)
            var members: [(key: String, value: JSONValue)] = [
                ("id", .string(id)), ("isLive", .bool(state.isLive)), ("channel", state.channel.map { .string($0.id) } ?? .null),
                ("liveURL", state.url.map(JSONValue.string) ?? .null), ("pollingFrequency", .number(Double(state.pollingFrequency))),
            ]
            if let failure = state.failure {
                let problem = error(id, code: failure.code, failure.message)
                members.append(("error", problem))
                errors.append(problem)
            }
            items.append(.object(members))
            next = min(next, state.pollingFrequency)
        }
        return .object([("fixtures", .array(items)), ("unknown", .array(unknown)), ("errors", .array(errors)),
                        ("nextPollSeconds", .number(Double(next)))])
    }

    /// One fixture's live state: from a gateway channel, else its external URL's poll.
    public struct State: Sendable, Equatable {
        public var isLive: Bool
        public var channel: LiveChannel?
        public var url: String?
        /// Seconds until the next poll is worth making (StreamPlayIsLiveModel's pollingFrequency).
        public var pollingFrequency: Int
        public var failure: (code: Int, message: String)?

        public static func == (a: State, b: State) -> Bool {
            a.isLive == b.isLive && a.channel == b.channel && a.url == b.url && a.pollingFrequency == b.pollingFrequency
                && a.failure?.code == b.failure?.code && a.failure?.message == b.failure?.message
        }
    }

    public static func state(_ fixture: Fixture, channels: [LiveChannel], external: [String: ExternalLive], now: Double) -> State {
        if let channel = fixture.liveChannel(in: channels) {
            return State(isLive: true, channel: channel, url: nil, pollingFrequency: liveSeconds)
        }
        guard let url = fixture.externalLiveURL else {
            return State(isLive: false, channel: nil, url: nil, pollingFrequency: interval(fixture, live: false, now: now))
        }
        switch external[url] {
        case .live(let live, let frequency)?:
            let own = interval(fixture, live: live, now: now)
            return State(isLive: live, channel: nil, url: url, pollingFrequency: frequency.map { max(1, min(own, $0)) } ?? own)
        case .failed(let code, let message)?:
            return State(isLive: false, channel: nil, url: url, pollingFrequency: interval(fixture, live: false, now: now), failure: (code, message))
        case nil:
            return State(isLive: false, channel: nil, url: url, pollingFrequency: interval(fixture, live: false, now: now),
                         failure: (-1, "live URL \(url) not polled yet"))
        }
    }

    /// A per-id error as the SDK's StreamPlayIsLiveErrorModel carries it.
    static func error(_ id: String, code: Int, _ message: String) -> JSONValue {
        .object([("liveStreamID", .string(id)), ("errorCode", .number(Double(code))), ("messages", .array([.string(message)]))])
    }

    static func interval(_ fixture: Fixture, live: Bool, now: Double) -> Int {
        if live { return liveSeconds }
        let start = fixture.startDate.seconds, end = fixture.endDate?.end ?? start + 3 * 3600
        if abs(start - now) <= soonWindowSeconds || abs(end - now) <= soonWindowSeconds || (start...end).contains(now) { return soonSeconds }
        if start > now { return max(soonSeconds, min(idleSeconds, Int(start - now - soonWindowSeconds))) }
        return idleSeconds
    }
}

/// What the last poll of an external live URL found.
public enum ExternalLive: Sendable, Equatable {
    /// The URL answered: live or not, and the poll interval it asked for (StreamPlay's
    /// `pollingFrequency`), if any.
    case live(Bool, pollingFrequency: Int?)
    /// It did not: an HTTP status (or -1 when no answer came) and why.
    case failed(code: Int, message: String)

    public var isLive: Bool { if case .live(true, _) = self { true } else { false } }

    /// What an answer from a live URL means (pure, from the status and body):
    /// - a StreamPlay isLive answer `{"isLive": true, "pollingFrequency": 30}`
    ///   (StreamPlayIsLiveModel.swift / .kt) says it directly;
    /// - an HLS media playlist is live while it has segments and neither `#EXT-X-ENDLIST` nor
    ///   `#EXT-X-PLAYLIST-TYPE:VOD`;
    /// - an HLS master playlist needs one of its variants: `.variant(URI)` (resolve and poll it).
    public enum Reading: Sendable, Equatable {
        case result(ExternalLive)
        case variant(String)
    }

    public static func read(status: Int, body: [UInt8]) -> Reading {
        guard (200..<300).contains(status) else { return .result(.failed(code: status, message: "live URL answered HTTP \(status)")) }
        var text = String(decoding: body.prefix(256 << 10), as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        let trimmed = Substring(text).drop { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }
        if trimmed.hasPrefix("#EXTM3U") {
            var segments = 0, ended = false, variant: String?, afterStreamInf = false
            for line in trimmed.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
                if line.hasPrefix("#EXTINF") { segments += 1 }
                if line.hasPrefix("#EXT-X-ENDLIST") || line.hasPrefix("#EXT-X-PLAYLIST-TYPE:VOD") { ended = true }
                if line.hasPrefix("#EXT-X-STREAM-INF") { afterStreamInf = true; continue }
                if afterStreamInf, !line.hasPrefix("#"), !line.isEmpty {
                    if variant == nil { variant = String(line) }
                    afterStreamInf = false
                }
            }
            if segments == 0, let variant { return .variant(variant) }
            if segments == 0 { return .result(.failed(code: status, message: "the HLS playlist has no segments and no variants")) }
            return .result(.live(!ended, pollingFrequency: nil))
        }
        if trimmed.hasPrefix("{"), let document = try? JSONParser.parse(Array(trimmed.utf8)) {
            guard case .bool(let live)? = document["isLive"] else {
                return .result(.failed(code: status, message: "the isLive answer has no boolean \"isLive\""))
            }
            var frequency: Int?
            if case .number(let seconds)? = document["pollingFrequency"], seconds.isFinite, seconds >= 1, seconds <= 86_400 { frequency = Int(seconds) }
            return .result(.live(live, pollingFrequency: frequency))
        }
        return .result(.failed(code: status, message: "the live URL's answer is neither an HLS playlist nor an isLive JSON object"))
    }

    /// `reference` (a variant URI from a playlist) resolved against the playlist's URL
    /// `http://host:port/path/master.m3u8`; nil when it is not http(s).
    public static func resolve(_ reference: String, against base: String) -> String? {
        let lower = reference.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") { return reference }
        let baseLower = base.lowercased()
        let scheme = baseLower.hasPrefix("https://") ? "https" : (baseLower.hasPrefix("http://") ? "http" : nil)
        guard let scheme else { return nil }
        let afterScheme = base.dropFirst(scheme.count + 3)
        let authorityEnd = afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex
        let origin = String(base[..<authorityEnd])
        if reference.hasPrefix("//") { return scheme + ":" + reference }
        if reference.hasPrefix("/") { return origin + reference }
        var path = afterScheme[authorityEnd...]
        if let query = path.firstIndex(of: "?") { path = path[..<query] }
        let directory = path.lastIndex(of: "/").map { String(path[...$0]) } ?? "/"
        return origin + directory + reference
    }
}
