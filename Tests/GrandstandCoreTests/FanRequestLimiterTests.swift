import GrandstandCore
import Testing

/// Fans' item requests per client: a burst of the hourly allowance, then one per 3600/N seconds,
/// each client on its own, memory bounded.
struct FanRequestLimiterTests {
    static let second: Int64 = 1_000_000_000

    @Test func aBurstThenOneRequestPerShareOfTheHour() {
        var limiter = FanRequestLimiter(perHour: 4)
        for _ in 0..<4 { #expect(limiter.admit(client: "10.0.0.1", nowNanoseconds: 0) == .allowed) }
        // Empty: the next token comes after 3600/4 = 900 s.
        #expect(limiter.admit(client: "10.0.0.1", nowNanoseconds: 0) == .limited(retryAfterSeconds: 900))
        #expect(limiter.admit(client: "10.0.0.1", nowNanoseconds: 600 * Self.second) == .limited(retryAfterSeconds: 300))
        #expect(limiter.admit(client: "10.0.0.1", nowNanoseconds: 900 * Self.second) == .allowed)
        #expect(limiter.admit(client: "10.0.0.1", nowNanoseconds: 901 * Self.second) == .limited(retryAfterSeconds: 899))
        // Another address has its own allowance.
        #expect(limiter.admit(client: "10.0.0.2", nowNanoseconds: 901 * Self.second) == .allowed)
        // A full hour later the whole burst is back, never more.
        let later = 5 * 3600 * Self.second
        for _ in 0..<4 { #expect(limiter.admit(client: "10.0.0.1", nowNanoseconds: later) == .allowed) }
        #expect(limiter.admit(client: "10.0.0.1", nowNanoseconds: later) != .allowed)
    }

    @Test func memoryIsBoundedForgettingRefilledBucketsFirst() {
        var limiter = FanRequestLimiter(perHour: 2, maxClients: 3)
        #expect(limiter.admit(client: "old", nowNanoseconds: 0) == .allowed)
        for n in 0..<3 { #expect(limiter.admit(client: "busy-\(n)", nowNanoseconds: 3600 * Self.second) == .allowed) }
        // "old" refilled long ago: forgotten first, the three busy ones kept.
        #expect(limiter.clients == 3)
        for n in 0..<10 { _ = limiter.admit(client: "burst-\(n)", nowNanoseconds: 3601 * Self.second) }
        #expect(limiter.clients <= 3)
    }
}
