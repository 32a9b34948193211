/// What the HTTP layer should do with a request for a segment or part URI.
public enum ResourceLookup: Sendable, Equatable {
    /// Serve these bytes (`video/mp2t`). A complete segment or part never changes.
    case media(SegmentBytes)
    /// A gap segment (EXT-X-GAP): clients should not load it; it holds the PAT and PMT only.
    case gap(SegmentBytes)
    /// The next part (the preload hint) or the open segment: hold the request and ask again when
    /// the packager publishes (bounded by `MediaWindow.maximumBlockNanoseconds`, then 404).
    case notYetAvailable
    case notFound
}

extension MediaWindow {
    /// Looks up `name` (e.g. `seg12.ts`, `seg12.3.ts`).
    public func resource(named name: String) -> ResourceLookup {
        guard let (sequence, part) = parseName(name) else { return .notFound }
        let held = segments.last { $0.mediaSequence == sequence } ?? retired.last { $0.mediaSequence == sequence }
        if let segment = held {
            if let part {
                if part < segment.parts.count, segment.parts[part].index == part {
                    return .media(segment.bytes[segment.parts[part].range])
                }
                return !segment.complete && part == segment.parts.count && !ended ? .notYetAvailable : .notFound
            }
            if segment.isGap { return .gap(segment.bytes) }
            return segment.complete ? .media(segment.bytes) : .notYetAvailable
        }
        // The segment after the newest one: only its first part, when it is the hinted one (no
        // open segment, or one that reached its target duration: see `nextPart`).
        if part == 0, let next = nextPart, next.sequence == sequence, next.index == 0 { return .notYetAvailable }
        return .notFound
    }
}
