/// One catalog entry (a match, show or replay): what fans search for and what links it to a live
/// channel. Decoded from the feed by `CatalogFeedDecoder`; `source` keeps the feed's object so
/// answers carry every field the origin sent, even ones the gateway does not interpret.
public struct Fixture: Sendable, Equatable {
    public var id: String
    public var type: String?
    public var name: String
    public var description: String?
    public var startDate: CatalogDate
    public var endDate: CatalogDate?
    public var competition: String?
    /// A season number (`2025`) as most feeds send it.
    public var season: Double?
    public var teams: [String] = []
    public var stadium: String?
    public var media: [Media] = []
    public var thumbnails: [String] = []
    public var externalIds: [String: String] = [:]
    public var featured = false
    /// The feed's object for this fixture, re-encoded in answers.
    public var source: JSONValue

    /// One media entry: a live URL and/or the channel (by id or announced name) it plays on.
    public struct Media: Sendable, Equatable {
        public var type: String?
        public var liveURL: String?
        public var channelId: String?
        public var channelName: String?

        public init(type: String? = nil, liveURL: String? = nil, channelId: String? = nil, channelName: String? = nil) {
            self.type = type
            self.liveURL = liveURL
            self.channelId = channelId
            self.channelName = channelName
        }
    }

    public init(id: String, name: String, startDate: CatalogDate, source: JSONValue = .null) {
        self.id = id
        self.name = name
        self.startDate = startDate
        self.source = source
    }
}

/// A channel the gateway serves now, for linking fixtures to it (`isLive`).
public struct LiveChannel: Sendable, Equatable {
    public var id: String
    public var name: String
    public var live: Bool

    public init(id: String, name: String, live: Bool) {
        self.id = id
        self.name = name
        self.live = live
    }
}

extension Fixture {
    /// The first live channel one of the media entries names (by id, else by name, case-insensitive).
    public func liveChannel(in channels: [LiveChannel]) -> LiveChannel? {
        for entry in media {
            if let id = entry.channelId, let channel = channels.first(where: { $0.id == id && $0.live }) { return channel }
            if let name = entry.channelName?.lowercased(),
               let channel = channels.first(where: { $0.name.lowercased() == name && $0.live }) { return channel }
        }
        return nil
    }
}
