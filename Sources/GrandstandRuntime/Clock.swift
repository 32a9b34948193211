#if canImport(Glibc)
import Glibc
#endif

/// Where services read time and how they wait (chrony's one scheduler clock, NIO's
/// `EmbeddedEventLoop.advanceTime`): the daemon runs on `SystemClock`, tests on `ManualClock`
/// and step time instead of sleeping. All values are nanoseconds.
public protocol Clock: Sendable {
    /// CLOCK_REALTIME: what capture timestamps, playlists' PROGRAM-DATE-TIME and journald use.
    func wallNanoseconds() -> Int64
    /// CLOCK_MONOTONIC: never steps; for deadlines, liveness and elapsed times.
    func monotonicNanoseconds() -> Int64
    /// Blocks until the monotonic clock reaches `deadline` or `stop` is raised, whichever is
    /// first. Returns true when stopped (the caller winds down), false at the deadline.
    func wait(untilMonotonic deadline: Int64, or stop: StopSignal) -> Bool
}

extension Clock {
    /// `wait(untilMonotonic:or:)` for a duration from now.
    public func wait(nanoseconds: Int64, or stop: StopSignal) -> Bool {
        wait(untilMonotonic: monotonicNanoseconds() &+ max(0, nanoseconds), or: stop)
    }
}

/// The kernel's clocks (`clock_gettime`); waits are timed condition waits on the stop signal,
/// so a stop ends any wait at once.
public struct SystemClock: Clock {
    public init() {}

    public func wallNanoseconds() -> Int64 { Self.read(CLOCK_REALTIME) }
    public func monotonicNanoseconds() -> Int64 { Self.read(CLOCK_MONOTONIC) }

    public func wait(untilMonotonic deadline: Int64, or stop: StopSignal) -> Bool {
        stop.wait(untilMonotonic: deadline)
    }

    static func read(_ id: clockid_t) -> Int64 {
        var now = timespec()
        clock_gettime(id, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}
