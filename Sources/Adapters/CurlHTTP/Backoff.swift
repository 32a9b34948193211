import GrandstandRuntime

/// Retry waits doubling from `initialNanoseconds` up to `maxNanoseconds` (0.5 s, 1 s, 2 s … 30 s),
/// each a wait on the service's clock and stop signal, so a shutdown ends it at once.
public struct Backoff: Sendable, Equatable {
    public var initialNanoseconds: Int64
    public var maxNanoseconds: Int64

    public init(initialNanoseconds: Int64 = 500_000_000, maxNanoseconds: Int64 = 30_000_000_000) {
        self.initialNanoseconds = initialNanoseconds
        self.maxNanoseconds = maxNanoseconds
    }

    /// The wait after failed attempt `attempt` (1-based).
    public func delay(afterAttempt attempt: Int) -> Int64 {
        var delay = initialNanoseconds
        for _ in 1..<max(1, attempt) {
            guard delay < maxNanoseconds / 2 else { return maxNanoseconds }
            delay *= 2
        }
        return min(delay, maxNanoseconds)
    }

    /// Waits before attempt `attempt + 1`; true when `stop` was raised (give up now).
    public func wait(afterAttempt attempt: Int, clock: any Clock, stop: StopSignal) -> Bool {
        stop.isRaised || clock.wait(nanoseconds: delay(afterAttempt: attempt), or: stop)
    }
}
