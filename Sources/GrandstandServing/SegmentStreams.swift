import GrandstandCore
import HTTPServer

/// CMAF segments sent while they are made (LL-DASH, `availabilityTimeOffset`): a request for the
/// open segment, or the next one, is answered at once with the parts published so far and then
/// each part as it is published, as one chunked body that ends with the segment. HLS clients
/// fetch parts instead and never land here. Lives in `VideoChannel`'s state, under its lock.
struct SegmentStreams {
    struct Follower {
        var stream: HTTPStream
        var sequence: Int
        /// One track of it (DASH, `seg<N>.t<T>.m4s`), or all.
        var track: UInt32?
        var sentParts = 0
        var deadlineNanoseconds: Int64
    }

    static let limits: HTTPStream.Limits = {
        var limits = HTTPStream.Limits()
        limits.maxQueuedBytes = 32 << 20   // a segment's parts: a slow client loses the stream, not memory
        limits.maxQueuedChunks = 256
        return limits
    }()

    private(set) var followers: [Follower] = []

    var count: Int { followers.count }

    /// Whether `sequence` is one to follow in `window`: the open segment, or the next to start.
    static func follows(_ sequence: Int, in window: MediaWindow) -> Bool {
        if let open = window.openSegment, open.mediaSequence == sequence { return true }
        return !window.ended && sequence == window.nextMediaSequence
    }

    /// A body that follows segment `sequence` until it completes, or until `deadline` passes
    /// without it starting.
    mutating func follow(_ sequence: Int, track: UInt32?, window: MediaWindow, deadlineNanoseconds: Int64) -> HTTPStream {
        let stream = HTTPStream(limits: Self.limits)
        followers.append(Follower(stream: stream, sequence: sequence, track: track, deadlineNanoseconds: deadlineNanoseconds))
        advance(window: window, nowNanoseconds: nil)
        return stream
    }

    /// Sends every follower the parts published since, and ends those whose segment completed,
    /// went away or never started in time (`nowNanoseconds`, nil: no deadline check).
    mutating func advance(window: MediaWindow, nowNanoseconds: Int64?) {
        followers.removeAll { follower in
            guard follower.stream.isOpen else { return true }
            guard window.segments.contains(where: { $0.mediaSequence == follower.sequence }) else {
                let waiting = Self.follows(follower.sequence, in: window) && (nowNanoseconds ?? 0) < follower.deadlineNanoseconds
                if !waiting { follower.stream.finish() }
                return !waiting
            }
            return false
        }
        for i in followers.indices {
            guard let segment = window.segments.last(where: { $0.mediaSequence == followers[i].sequence }) else { continue }
            while followers[i].sentParts < segment.parts.count {
                let part = segment.bytes[segment.parts[followers[i].sentParts].range].array
                if let track = followers[i].track {
                    // Our own chunks: extraction cannot fail short of a bug; then the part is skipped.
                    if let one = try? TrackExtraction.extract(track: track, from: part[...]), !one.isEmpty { _ = followers[i].stream.send(one) }
                } else {
                    _ = followers[i].stream.send(part)
                }
                followers[i].sentParts += 1
            }
            if segment.complete || window.ended { followers[i].stream.finish() }
        }
        followers.removeAll { follower in
            window.segments.last(where: { $0.mediaSequence == follower.sequence }).map { $0.complete } ?? false || window.ended
        }
    }

    /// Ends every body (shutdown).
    mutating func finishAll() {
        for follower in followers { follower.stream.finish() }
        followers = []
    }
}
