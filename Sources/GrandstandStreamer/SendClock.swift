#if canImport(Glibc)
import Glibc
#endif

/// Clocks and signals for the send loop. Due times are wall-clock nanoseconds fixed at start
/// (so data messages carry a real time); waiting is on CLOCK_MONOTONIC, immune to clock steps.
public struct SendClock {
    /// realtime − monotonic at start.
    public let epochOffset: Int64
    private var signals = sigset_t()

    public init() {
        epochOffset = SendClock.read(CLOCK_REALTIME) - SendClock.read(CLOCK_MONOTONIC)
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        // Blocked, so they queue for sigtimedwait instead of killing us before SAP deletions go out.
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    static func read(_ clock: clockid_t) -> Int64 {
        var now = timespec()
        clock_gettime(clock, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// Now on the due-time timeline (monotonic, shifted to wall-clock at start).
    public var now: Int64 { SendClock.read(CLOCK_MONOTONIC) + epochOffset }

    /// Sleeps until `deadline`; true when SIGINT/SIGTERM arrived meanwhile.
    public mutating func wait(until deadline: Int64) -> Bool {
        let remaining = deadline - now
        var timeout = timespec(tv_sec: 0, tv_nsec: 0)
        if remaining > 0 {
            timeout.tv_sec = Int(remaining / 1_000_000_000)
            timeout.tv_nsec = Int(remaining % 1_000_000_000)
        }
        let signal = sigtimedwait(&signals, nil, &timeout)
        return signal == SIGINT || signal == SIGTERM
    }

    public init(epochOffset: Int64) {
        self.epochOffset = epochOffset
    }
}
