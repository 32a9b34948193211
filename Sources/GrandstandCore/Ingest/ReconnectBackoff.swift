/// How long a caller waits before its next connection attempt: doubling from `initial` up to
/// `cap` while attempts fail, back to `initial` after a connection (so a peer that restarts is
/// picked up quickly, and a peer that is down is not hammered). Pure: the caller sleeps.
public struct ReconnectBackoff: Sendable, Equatable {
    public let initialNanoseconds: Int64
    public let capNanoseconds: Int64
    public private(set) var failures = 0

    public init(initialNanoseconds: Int64 = 250_000_000, capNanoseconds: Int64 = 8_000_000_000) {
        self.initialNanoseconds = max(1, initialNanoseconds)
        self.capNanoseconds = max(self.initialNanoseconds, capNanoseconds)
    }

    /// One more failed attempt: the wait before the next one.
    public mutating func failed() -> Int64 {
        let shift = min(failures, 32)
        failures += 1
        let (wait, overflow) = initialNanoseconds.multipliedReportingOverflow(by: Int64(1) << shift)
        return overflow ? capNanoseconds : min(wait, capNanoseconds)
    }

    /// A connection was made: the next failure waits `initial` again.
    public mutating func connected() { failures = 0 }
}
