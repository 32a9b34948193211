/// A route's path pattern: `/`-separated segments, each a literal (`channels`), a capture of one
/// non-empty segment (`{id}`), or, last, `*` for the non-empty rest of the path (`/files/{id}/*`).
/// Patterns are written in code; anything that is not a capture or a final `*` is a literal.
public struct RoutePattern: Sendable, Equatable, CustomStringConvertible {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case capture(String)
        case rest
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

    /// The captures when `path` (split after its leading `/`, empty segments kept) matches.
    func match(_ path: [Substring]) -> RouteParameters? {
        var parameters = RouteParameters()
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .rest:
                guard index < path.count else { return nil }
                let rest = path[index...].joined(separator: "/")
                guard !rest.isEmpty else { return nil }
                parameters.rest = rest
                return parameters
            case .literal(let text):
                guard index < path.count, path[index] == text else { return nil }
            case .capture(let name):
                guard index < path.count, !path[index].isEmpty else { return nil }
                parameters.values.append((name, String(path[index])))
            }
        }
        return segments.count == path.count ? parameters : nil
    }

    /// Literal segments outrank captures, captures outrank the rest, compared left to right:
    /// `/channels/{id}/live.m3u8` wins over `/channels/{id}/{name}` for `…/live.m3u8`.
    func isMoreSpecific(than other: RoutePattern) -> Bool {
        for (mine, theirs) in zip(segments, other.segments) where mine.rank != theirs.rank {
            return mine.rank > theirs.rank
        }
        return segments.count > other.segments.count
    }

    /// Same segments with captures of any name: one resource, whatever the routes call them.
    func hasSameShape(as other: RoutePattern) -> Bool {
        segments.count == other.segments.count && zip(segments, other.segments).allSatisfy { $0.shape == $1.shape }
    }
}

extension RoutePattern.Segment {
    var rank: Int {
        switch self {
        case .literal: return 2
        case .capture: return 1
        case .rest: return 0
        }
    }

    /// The segment with any capture name erased.
    var shape: RoutePattern.Segment {
        if case .capture = self { return .capture("") }
        return self
    }
}

/// What a matched pattern captured: `{name}` segments, and the rest for a final `*`.
public struct RouteParameters: Sendable, Equatable {
    var values: [(name: String, value: String)] = []
    /// The path after the pattern's fixed segments, for a pattern ending in `*` (never empty).
    public internal(set) var rest: String?

    public init() {}

    public init(_ values: [String: String], rest: String? = nil) {
        self.values = values.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
        self.rest = rest
    }

    /// The segment captured as `{name}`.
    public subscript(name: String) -> String? { values.first { $0.name == name }?.value }

    public static func == (a: RouteParameters, b: RouteParameters) -> Bool {
        a.rest == b.rest && a.values.count == b.values.count
            && a.values.allSatisfy { value in b[value.name] == value.value }
    }
}
