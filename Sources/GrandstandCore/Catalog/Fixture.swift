/// One catalog entry (a match, show or replay): what fans search for and what links it to a live
/// channel. Decoded from the feed by `CatalogFeedDecoder`, in either shape it accepts: the
/// gateway's own (string ids, `competition`/`stadium` strings, `teams`, `media`) or StreamAMG
/// StreamPlay's (integer ids, `season`/`competition`/`homeTeam`/`awayTeam`/`stadium`/`location`
/// objects, `mediaData`; docs/catalog.md "StreamPlay"). `source` keeps the feed's object so
/// answers carry every field the origin sent, as sent, even ones the gateway does not interpret.
public struct Fixture: Sendable, Equatable {
    /// The id as text: a string id as given, an integer id in decimal (`1234`).
    public var id: String
    public var type: String?
    public var name: String
    public var description: String?
    public var startDate: CatalogDate
    public var endDate: CatalogDate?
    /// The competition's name (`competition` as a string, or `competition.name`).
    public var competition: String?
    public var competitionId: String?
    /// A season number (`2025`) as the gateway's own feeds send it.
    public var season: Double?
    /// StreamPlay's season object (`season.id`, `season.name`).
    public var seasonDetail: Detail?
    /// Team names: `teams` plus the names of `homeTeam` and `awayTeam`.
    public var teams: [String] = []
    public var homeTeam: Detail?
    public var awayTeam: Detail?
    /// The stadium's name (`stadium` as a string, or `stadium.name`).
    public var stadium: String?
    public var stadiumId: String?
    public var location: Detail?
    public var eventType: String?
    /// StreamPlay's `partnerId` (an integer in its feeds) as text.
    public var partnerId: String?
    /// The sport (`football`, `rugby_league`, …): `sport` as a string or `sport.name`.
    public var sport: String?
    public var media: [Media] = []
    public var thumbnails: [String] = []
    public var externalIds: [String: String] = [:]
    public var featured = false
    /// The feed's object for this fixture, re-encoded in answers.
    public var source: JSONValue

    /// A StreamPlay detail object (`FixtureDetailModel`: season, competition, team, stadium,
    /// location): its id (an integer, kept as text) and name. Logos stay in `source`.
    public struct Detail: Sendable, Equatable {
        public var id: String?
        public var name: String?

        public init(id: String? = nil, name: String? = nil) {
            self.id = id
            self.name = name
        }
    }

    /// One media entry (`media[]`, or StreamPlay's `mediaData[]`): a live URL and/or the channel
    /// (by id or announced name) it plays on.
    public struct Media: Sendable, Equatable {
        public var type: String?
        /// `liveURL`/`liveUrl`, or StreamPlay's `isLiveUrl`: polled for isLive when it is an
        /// absolute URL on another origin (docs/catalog.md "Polling isLive").
        public var liveURL: String?
        public var channelId: String?
        public var channelName: String?
        /// StreamPlay's `entryId` (or the gateway shape's `id`).
        public var entryId: String?
        public var drm: Bool?

        public init(type: String? = nil, liveURL: String? = nil, channelId: String? = nil, channelName: String? = nil,
                    entryId: String? = nil, drm: Bool? = nil) {
            self.type = type
            self.liveURL = liveURL
            self.channelId = channelId
            self.channelName = channelName
            self.entryId = entryId
            self.drm = drm
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
    /// The first live channel one of the media entries names (by id, else by name, case-insensitive,
    /// else a relative live URL `/channels/ID/…` on this gateway).
    public func liveChannel(in channels: [LiveChannel]) -> LiveChannel? {
        for entry in media {
            if let id = entry.channelId, let channel = channels.first(where: { $0.id == id && $0.live }) { return channel }
            if let name = entry.channelName?.lowercased(),
               let channel = channels.first(where: { $0.name.lowercased() == name && $0.live }) { return channel }
            if let url = entry.liveURL, url.hasPrefix("/channels/") {
                let id = url.dropFirst("/channels/".count).prefix { $0 != "/" }
                if let channel = channels.first(where: { $0.id == id && $0.live }) { return channel }
            }
        }
        return nil
    }

    /// The first media entry's live URL on another origin (`http://…` or `https://…`): what the
    /// gateway polls for isLive when no channel of its own carries the fixture.
    public var externalLiveURL: String? {
        media.lazy.compactMap(\.liveURL).first { url in
            let lower = url.lowercased()
            return lower.hasPrefix("http://") || lower.hasPrefix("https://")
        }
    }
}
