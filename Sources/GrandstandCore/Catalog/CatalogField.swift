/// The fields a catalog query may test or sort by, each with its kind; the kind decides which
/// operators apply (docs/catalog.md has the table). The dotted names are StreamAMG StreamPlay's
/// 23 query fields (`StreamPlayQueryField` in the SDK's StreamPlayConstants.swift /
/// StreamPlayQueryType.kt); the plain ones are the gateway's own.
public enum CatalogField: String, Sendable, CaseIterable {
    case id, type, name, description, startDate, endDate, competition, season, teams, stadium
    case featured, isLive, channelId, externalIds
    case partnerId, sport, eventType
    case seasonId = "season.id", seasonName = "season.name"
    case competitionId = "competition.id", competitionName = "competition.name"
    case homeTeamId = "homeTeam.id", homeTeamName = "homeTeam.name"
    case awayTeamId = "awayTeam.id", awayTeamName = "awayTeam.name"
    case stadiumId = "stadium.id", stadiumName = "stadium.name"
    case locationId = "location.id", locationName = "location.name"
    case mediaType = "mediaData.mediaType", mediaEntryId = "mediaData.entryId", mediaDrm = "mediaData.drm"

    public enum Kind: String, Sendable {
        case string, number, date, bool
        /// Several strings (teams, channel ids): a condition holds when any one matches.
        case strings
        /// An id (StreamPlay's are integers): string operators, and `>`/`<` compare numerically
        /// when both sides are numbers, else alphabetically (case-insensitive).
        case identifier
    }

    public var kind: Kind {
        switch self {
        case .type, .name, .description, .competition, .stadium, .sport, .eventType,
             .seasonName, .competitionName, .homeTeamName, .awayTeamName, .stadiumName, .locationName: .string
        case .id, .externalIds, .partnerId, .seasonId, .competitionId, .homeTeamId, .awayTeamId, .stadiumId, .locationId: .identifier
        case .season: .number
        case .startDate, .endDate: .date
        case .featured, .isLive, .mediaDrm: .bool
        case .teams, .channelId, .mediaType, .mediaEntryId: .strings
        }
    }

    /// A field name as written in a query: a plain name, or `externalIds.KEY`.
    public struct Reference: Sendable, Equatable, CustomStringConvertible {
        public let field: CatalogField
        /// The key under `externalIds` (`externalIds.optaFixtureId`).
        public let key: String?

        public init?(_ text: String) {
            if text.hasPrefix("externalIds.") {
                let key = String(text.dropFirst("externalIds.".count))
                guard !key.isEmpty else { return nil }
                field = .externalIds
                self.key = key
                return
            }
            guard let field = CatalogField(rawValue: text), field != .externalIds else { return nil }
            self.field = field
            key = nil
        }

        public var description: String { key.map { "externalIds.\($0)" } ?? field.rawValue }
    }

    /// Names listed in "unknown field" errors.
    public static var known: String {
        (allCases.filter { $0 != .externalIds }.map(\.rawValue) + ["externalIds.KEY"]).joined(separator: ", ")
    }
}

/// One fixture's value of a field, as the query engine compares it.
enum CatalogFieldValue {
    case string(String?)
    case identifier(String?)
    case number(Double?)
    case date(CatalogDate?)
    case bool(Bool)
    case strings([String])
}

extension Fixture {
    func value(_ reference: CatalogField.Reference, isLive: Bool) -> CatalogFieldValue {
        switch reference.field {
        case .id: .identifier(id)
        case .type: .string(type)
        case .name: .string(name)
        case .description: .string(description)
        case .competition, .competitionName: .string(competition)
        case .stadium, .stadiumName: .string(stadium)
        case .externalIds: .identifier(reference.key.flatMap { externalIds[$0] })
        case .season: .number(season)
        case .startDate: .date(startDate)
        case .endDate: .date(endDate)
        case .featured: .bool(featured)
        case .isLive: .bool(isLive)
        case .teams: .strings(teams)
        case .channelId: .strings(media.compactMap(\.channelId))
        case .partnerId: .identifier(partnerId)
        case .sport: .string(sport)
        case .eventType: .string(eventType)
        case .seasonId: .identifier(seasonDetail?.id)
        case .seasonName: .string(seasonDetail?.name)
        case .competitionId: .identifier(competitionId)
        case .homeTeamId: .identifier(homeTeam?.id)
        case .homeTeamName: .string(homeTeam?.name)
        case .awayTeamId: .identifier(awayTeam?.id)
        case .awayTeamName: .string(awayTeam?.name)
        case .stadiumId: .identifier(stadiumId)
        case .locationId: .identifier(location?.id)
        case .locationName: .string(location?.name)
        case .mediaType: .strings(media.compactMap(\.type))
        case .mediaEntryId: .strings(media.compactMap(\.entryId))
        // True when any media entry is DRM-protected.
        case .mediaDrm: .bool(media.contains { $0.drm == true })
        }
    }

    /// Whether the fixture has the field at all (the `exists` operator, StreamPlay's `_exists_:`).
    func has(_ reference: CatalogField.Reference, isLive: Bool) -> Bool {
        switch reference.field {
        case .featured: return source["featured"].map { $0 != .null } ?? false
        case .isLive: return true
        case .mediaDrm: return media.contains { $0.drm != nil }
        default:
            switch value(reference, isLive: isLive) {
            case .string(let text), .identifier(let text): return text != nil
            case .number(let number): return number != nil
            case .date(let date): return date != nil
            case .bool: return true
            case .strings(let list): return !list.isEmpty
            }
        }
    }
}
