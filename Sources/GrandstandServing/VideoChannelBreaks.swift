import GrandstandCore
import HTTPServer

/// What live breaks on CMAF read from a channel (docs/inserts.md "Live channels on CMAF";
/// the breaks themselves are GrandstandServices' `LiveBreaks`).
extension VideoChannel {
    /// Where a break may begin now on the CMAF window: the first segment none of whose parts
    /// exist yet (fans at the live edge have nothing of it), the timing track of the channel's
    /// header, and the date-time of the oldest segment held. Nil without CMAF media.
    public struct BreakPoint: Sendable, Equatable {
        public var segment: Int
        public var timingTrack: UInt32
        public var oldestNanoseconds: Int64?
    }

    public var breakPoint: BreakPoint? {
        state.withLock { state in
            guard state.packager.offers(.cmaf), let cmaf = state.packager.cmaf, let next = cmaf.window.nextPart,
                  let tracks = cmaf.fragmenter.current?.tracks, let timing = tracks.first(where: \.codec.isVideo) ?? tracks.first else { return nil }
            return BreakPoint(segment: next.index == 0 ? next.sequence : next.sequence + 1, timingTrack: timing.id,
                              oldestNanoseconds: cmaf.window.segments.first?.programDateTimeNanoseconds)
        }
    }

    /// A published CMAF part (`seg<N>.<P>.m4s`) or complete segment (`seg<N>.m4s`); nil when it
    /// does not exist (yet).
    public func cmafChunk(_ name: String) -> [UInt8]? {
        state.withLock { state in
            guard let cmaf = state.packager.cmaf, case .media(let bytes) = cmaf.window.resource(named: name) else { return nil }
            return bytes.array
        }
    }

    /// Serves a break chunk once the live chunk `name` is published: `make` turns the live
    /// chunk's bytes into the answer. Held like the live part (the preload hint) until then.
    public func whenPublished(_ name: String, responder: HTTPResponder, now: Int64, _ make: @escaping @Sendable ([UInt8]) -> HTTPResponse) -> HTTPResponse? {
        if let bytes = cmafChunk(name) { return make(bytes) }
        let answer: @Sendable (HTTPResponse) -> HTTPResponse = { [weak self] response in
            guard response.status == 200, let bytes = self?.cmafChunk(name) else { return response }
            return make(bytes)
        }
        return resource(name, responder: responder.adapting(answer), now: now).map(answer)
    }
}
