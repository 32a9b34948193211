/// The fields a catalog query may test or sort by, each with its kind; the kind decides which
/// operators apply (docs/catalog.md has the table).
public enum CatalogField: String, Sendable, CaseIterable {
    case id, type, name, description, startDate, endDate, competition, season, teams, stadium
    case featured, isLive, channelId, externalIds

    public enum Kind: String, Sendable {
        case string, number, date, bool
        /// Several strings (teams, channel ids): a condition holds when any one matches.
        case strings
    }

    public var kind: Kind {
        switch self {
        case .id, .type, .name, .description, .competition, .stadium, .externalIds: .string
        case .season: .number
        case .startDate, .endDate: .date
        case .featured, .isLive: .bool
        case .teams, .channelId: .strings
        }
    }

    /// A field name as written in a query: a plain name, or `externalIds.KEY`.
    public struct Reference: Sendable, Equatable, CustomStringConvertible {
        public let field: CatalogField
        /// The key under `externalIds` (`externalIds.opta`).
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
    case number(Double?)
    case date(CatalogDate?)
    case bool(Bool)
    case strings([String])
}

extension Fixture {
    func value(_ reference: CatalogField.Reference, isLive: Bool) -> CatalogFieldValue {
        switch reference.field {
        case .id: .string(id)
        case .type: .string(type)
        case .name: .string(name)
        case .description: .string(description)
        case .competition: .string(competition)
        case .stadium: .string(stadium)
        case .externalIds: .string(reference.key.flatMap { externalIds[$0] })
        case .season: .number(season)
        case .startDate: .date(startDate)
        case .endDate: .date(endDate)
        case .featured: .bool(featured)
        case .isLive: .bool(isLive)
        case .teams: .strings(teams)
        case .channelId: .strings(media.compactMap(\.channelId))
        }
    }
}
