/// Requests held for a blocking playlist reload or a preload-hinted part, with their deadlines.
/// Pure bookkeeping for the HTTP layer: it adds a request when the window says `.wait` /
/// `.notYetAvailable`, calls `resolve` after every packager update and `expire` on a timer, and
/// resumes the suspended connections it gets back. `Token` is whatever names a connection.
public struct BlockedRequests<Token: Hashable & Sendable>: Sendable {
    public enum Request: Sendable, Equatable {
        /// `_HLS_msn` / `_HLS_part` of a playlist request (which playlist is the caller's business).
        case playlist(msn: Int, part: Int?)
        /// A segment or part URI that is not there yet.
        case resource(name: String)
    }

    public enum Outcome: Sendable, Equatable {
        /// Answer it now (render the playlist / serve the resource).
        case ready
        /// Now a 400 (e.g. the window restarted and the request is far ahead).
        case badRequest(String)
        /// The resource will not come (evicted, or its segment ended without it): 404.
        case notFound
        /// Waited `maximumBlockNanoseconds`: 503 for a playlist (RFC 8216bis §6.2.5.2), 404 for a resource.
        case timedOut
    }

    private struct Entry: Sendable {
        var request: Request
        var deadline: Int64
    }

    private var entries: [Token: Entry] = [:]

    public init() {}

    public var count: Int { entries.count }

    /// Holds `request` until `nowNanoseconds + window.maximumBlockNanoseconds`.
    public mutating func add(_ token: Token, _ request: Request, window: MediaWindow, nowNanoseconds: Int64) {
        entries[token] = Entry(request: request, deadline: nowNanoseconds + window.maximumBlockNanoseconds)
    }

    /// Drops a request whose client went away.
    public mutating func remove(_ token: Token) { entries[token] = nil }

    /// The held requests `window` can now answer (call after each non-empty `HLSPackager.Update`).
    public mutating func resolve(window: MediaWindow) -> [(Token, Outcome)] {
        var done: [(Token, Outcome)] = []
        for (token, entry) in entries {
            let outcome: Outcome?
            switch entry.request {
            case .playlist(let msn, let part):
                switch window.reloadDecision(msn: msn, part: part) {
                case .respondNow: outcome = .ready
                case .badRequest(let why): outcome = .badRequest(why)
                case .wait: outcome = nil
                }
            case .resource(let name):
                switch window.resource(named: name) {
                case .media, .gap: outcome = .ready
                case .notFound: outcome = .notFound
                case .notYetAvailable: outcome = nil
                }
            }
            if let outcome { done.append((token, outcome)) }
        }
        for (token, _) in done { entries[token] = nil }
        return done
    }

    /// The held requests whose deadline passed.
    public mutating func expire(nowNanoseconds: Int64) -> [Token] {
        let expired = entries.filter { $0.value.deadline <= nowNanoseconds }.map(\.key)
        for token in expired { entries[token] = nil }
        return expired
    }

    /// The earliest deadline, for the HTTP layer's timer.
    public var nextDeadline: Int64? { entries.values.map(\.deadline).min() }
}
