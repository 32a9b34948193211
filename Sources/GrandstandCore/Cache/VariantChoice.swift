/// Which variants of an HLS item are downloaded (the SDK's quality choice for HLS items,
/// docs/cache.md "HLS items"): every variant (the default), the highest or lowest by bandwidth,
/// or the best one within a bandwidth and/or picture height. Whatever is chosen brings the
/// renditions (EXT-X-MEDIA audio, subtitles) of the groups it names.
public enum VariantChoice: Sendable, Equatable {
    case all
    case highest
    case lowest
    /// The highest-bandwidth variant within both limits (nil: no limit); the lowest when none is.
    case within(maxBandwidth: Int?, maxHeight: Int?)

    /// The variants to download, in playlist order (all of them for `all`; one otherwise).
    public func choose(_ variants: [VODPlaylist.Reference]) -> [VODPlaylist.Reference] {
        guard !variants.isEmpty else { return [] }
        let byBandwidth = variants.enumerated().sorted { ($0.element.bandwidth ?? 0, $0.offset) < ($1.element.bandwidth ?? 0, $1.offset) }.map(\.element)
        switch self {
        case .all: return variants
        case .highest: return [byBandwidth.last!]
        case .lowest: return [byBandwidth.first!]
        case .within(let maxBandwidth, let maxHeight):
            let fitting = byBandwidth.filter { variant in
                (maxBandwidth.map { (variant.bandwidth ?? 0) <= $0 } ?? true) && (maxHeight.map { (variant.height ?? 0) <= $0 } ?? true)
            }
            return [fitting.last ?? byBandwidth.first!]
        }
    }

    /// The API's and the journal's form: `"all"`, `"highest"`, `"lowest"`, or
    /// `{"maxBandwidth": N, "maxHeight": H}` (either or both, positive integers).
    public var json: JSONValue {
        switch self {
        case .all: .string("all")
        case .highest: .string("highest")
        case .lowest: .string("lowest")
        case .within(let bandwidth, let height):
            .object([bandwidth.map { ("maxBandwidth", JSONValue.number(Double($0))) }, height.map { ("maxHeight", JSONValue.number(Double($0))) }].compactMap { $0 })
        }
    }

    /// What a refusal of `$.quality` says.
    public static let expected = "expected \"all\", \"highest\", \"lowest\" or {\"maxBandwidth\": N, \"maxHeight\": H} (positive integers)"

    /// Parses `json`; nil when it is not one of the forms above.
    public static func parse(_ json: JSONValue) -> VariantChoice? {
        switch json {
        case .string("all"): return .all
        case .string("highest"): return .highest
        case .string("lowest"): return .lowest
        case .object(let members):
            var bandwidth: Int?, height: Int?
            for (name, value) in members {
                guard case .number(let number) = value, number >= 1, number <= 1e12, number == number.rounded() else { return nil }
                switch name {
                case "maxBandwidth": bandwidth = Int(number)
                case "maxHeight": height = Int(number)
                default: return nil
                }
            }
            guard bandwidth != nil || height != nil else { return nil }
            return .within(maxBandwidth: bandwidth, maxHeight: height)
        default: return nil
        }
    }
}
