import Synchronization

/// A clock that moves only when told (`advance(by:)`): tests drive services' periodic work and
/// timeouts in exact steps, with no sleeping. Threads sleeping on it wake when time reaches
/// their deadline or their stop signal is raised; `waitForSleepers` lets a test wait until a
/// service has parked before it steps time (an event, not a pause).
public final class ManualClock: Clock {
    private struct State {
        var wall: Int64
        var monotonic: Int64
        var sleepers: [Int: (signal: StopSignal, deadline: Int64)] = [:]
        var nextSleeper = 0
    }

    private let state: Mutex<State>
    private let parked = StopSignal()   // its generation counts sleeper arrivals

    /// Starts at `wall` (default 2026-01-01T00:00:00Z) and monotonic `monotonic`.
    public init(wall: Int64 = 1_767_225_600_000_000_000, monotonic: Int64 = 1_000_000_000) {
        state = Mutex(State(wall: wall, monotonic: monotonic))
    }

    public func wallNanoseconds() -> Int64 { state.withLock { $0.wall } }
    public func monotonicNanoseconds() -> Int64 { state.withLock { $0.monotonic } }

    /// Moves both clocks forward and wakes every sleeper whose deadline is reached.
    public func advance(by nanoseconds: Int64) {
        let due: [StopSignal] = state.withLock { state in
            state.wall &+= nanoseconds
            state.monotonic &+= nanoseconds
            let now = state.monotonic
            return state.sleepers.values.filter { $0.deadline <= now }.map(\.signal)
        }
        for signal in due { signal.wake() }
    }

    /// Steps wall time alone (an NTP step): the monotonic clock does not move.
    public func stepWall(by nanoseconds: Int64) {
        state.withLock { $0.wall &+= nanoseconds }
    }

    /// How many threads are parked on this clock now: sleeping towards a deadline still ahead
    /// (one whose deadline has come is on its way out and does not count).
    public var sleepers: Int {
        state.withLock { state in state.sleepers.values.filter { $0.deadline > state.monotonic }.count }
    }

    /// Blocks until at least `count` threads are parked on this clock, or `timeoutNanoseconds`
    /// of real time pass (false then): how a test knows a service has done the work of the last
    /// step and is idle again before it steps time once more.
    @discardableResult
    public func waitForSleepers(_ count: Int, timeoutNanoseconds: Int64 = 10_000_000_000) -> Bool {
        let deadline = SystemClock().monotonicNanoseconds() + timeoutNanoseconds
        while true {
            let generation = parked.generation
            if sleepers >= count { return true }
            if SystemClock().monotonicNanoseconds() >= deadline { return false }
            _ = parked.wait(untilMonotonic: deadline, changedFrom: generation)
        }
    }

    public func wait(untilMonotonic deadline: Int64, or stop: StopSignal) -> Bool {
        let key = state.withLock { state in
            state.nextSleeper += 1
            state.sleepers[state.nextSleeper] = (stop, deadline)
            return state.nextSleeper
        }
        parked.wake()
        defer {
            state.withLock { _ = $0.sleepers.removeValue(forKey: key) }
            parked.wake()
        }
        while true {
            let generation = stop.generation
            if stop.isRaised { return true }
            if monotonicNanoseconds() >= deadline { return false }
            _ = stop.wait(untilMonotonic: nil, changedFrom: generation)
        }
    }
}
