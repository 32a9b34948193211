/// A route's path pattern: `/`-separated segments, each a literal (`channels`), a capture of one
/// non-empty segment (`{id}`), or, last, `*` for the non-empty rest of the path (`/files/{id}/*`).
/// Patterns are written in code; anything that is not a capture or a final `*` is a literal.
public struct RoutePattern: Sendable, Equatable, CustomStringConvertible {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case capture(String)
        case rest

        /// Literal segments outrank captures, captures outrank the rest.
        var rank: UInt8 {
            switch self {
            case .literal: return 2
            case .capture: return 1
            case .rest: return 0
            }
        }
    }

    let segments: [Segment]
    public let description: String

    public init(_ pattern: String) {
        description = pattern
        let parts = pattern.hasPrefix("/") ? pattern.dropFirst().split(separator: "/", omittingEmptySubsequences: false) : [Substring(pattern)]
        segments = parts.enumerated().map { index, part in
            if part == "*", index == parts.count - 1 { return .rest }
            if part.count > 2, part.hasPrefix("{"), part.hasSuffix("}") { return .capture(String(part.dropFirst().dropLast())) }
            return .literal(String(part))
        }
    }

    /// What a path that matches (its UTF-8 `bytes` cut into `ranges` of segments) captured.
    func captures(_ bytes: UnsafeBufferPointer<UInt8>, _ ranges: [Range<Int>]) -> RouteParameters {
        var parameters = RouteParameters()
        for (index, segment) in segments.enumerated() where index < ranges.count {
            switch segment {
            case .rest:
                let rest = ranges[index].lowerBound..<(ranges.last?.upperBound ?? ranges[index].upperBound)
                parameters.rest = String(decoding: UnsafeBufferPointer(rebasing: bytes[rest]), as: UTF8.self)
            case .capture(let name):
                parameters.values.append(.init(name: name, value: String(decoding: UnsafeBufferPointer(rebasing: bytes[ranges[index]]), as: UTF8.self)))
            case .literal:
                break
            }
        }
        return parameters
    }

    /// Higher-ranked segments win, compared left to right, then the longer pattern:
    /// `/channels/{id}/live.m3u8` wins over `/channels/{id}/{name}` for `…/live.m3u8`.
    func isMoreSpecific(than other: RoutePattern) -> Bool {
        for (mine, theirs) in zip(segments, other.segments) where mine.rank != theirs.rank {
            return mine.rank > theirs.rank
        }
        return segments.count > other.segments.count
    }

    /// Same segments with captures of any name: one resource, whatever the routes call them.
    func hasSameShape(as other: RoutePattern) -> Bool {
        segments.count == other.segments.count && zip(segments, other.segments).allSatisfy { mine, theirs in
            if case .capture = mine, case .capture = theirs { return true }
            return mine == theirs
        }
    }
}

/// What a matched pattern captured: `{name}` segments, and the rest for a final `*`.
public struct RouteParameters: Sendable, Equatable {
    struct Capture: Sendable, Equatable {
        let name: String
        let value: String
    }

    var values: [Capture] = []
    /// The path after the pattern's fixed segments, for a pattern ending in `*` (never empty).
    public internal(set) var rest: String?

    public init() {}

    public init(_ values: [String: String], rest: String? = nil) {
        self.values = values.sorted { $0.key < $1.key }.map { Capture(name: $0.key, value: $0.value) }
        self.rest = rest
    }

    /// The segment captured as `{name}`.
    public subscript(name: String) -> String? { values.first { $0.name == name }?.value }

    public static func == (a: RouteParameters, b: RouteParameters) -> Bool {
        a.rest == b.rest && a.values.count == b.values.count
            && a.values.allSatisfy { value in b[value.name] == value.value }
    }
}
