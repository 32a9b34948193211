/// How often one fan may ask the gateway to fetch a download-to-go item (`POST /items` on the fan
/// listener, docs/cache.md "Fans"): a token bucket per client address holding `perHour` requests,
/// refilled evenly over the hour, so a burst of `perHour` is allowed and then one request every
/// 3600/`perHour` seconds. Memory is bounded: past `maxClients` addresses, full buckets (the
/// same as never seen) are forgotten first, then the least recently used. Pure: time passed in,
/// integer nanoseconds throughout (no floating-point drift in the refill).
public struct FanRequestLimiter: Sendable {
    public enum Decision: Sendable, Equatable {
        case allowed
        /// Refused; the bucket has a token again after this many whole seconds (`Retry-After`).
        case limited(retryAfterSeconds: Int)
    }

    public let perHour: Int
    public let maxClients: Int
    /// Per client: credit in nanoseconds of refill (a request costs `interval`) and when it was read.
    private var buckets: [String: (credit: Int64, at: Int64)] = [:]
    /// Refill time of one request: an hour shared among `perHour` (integers: no rounding drift).
    private let interval: Int64
    private var capacity: Int64 { interval * Int64(perHour) }

    public init(perHour: Int, maxClients: Int = 10_000) {
        self.perHour = max(1, perHour)
        self.maxClients = max(1, maxClients)
        interval = 3_600_000_000_000 / Int64(max(1, perHour))
    }

    /// Addresses remembered (for tests and stats).
    public var clients: Int { buckets.count }

    /// Takes a request from `client`'s bucket at `now` if one is there.
    public mutating func admit(client: String, nowNanoseconds now: Int64) -> Decision {
        let credit = buckets[client].map { refilled($0, now: now) } ?? capacity
        guard credit >= interval else {
            buckets[client] = (credit, now)
            return .limited(retryAfterSeconds: Int(max(1, (interval - credit + 999_999_999) / 1_000_000_000)))
        }
        buckets[client] = (credit - interval, now)
        if buckets.count > maxClients { forget(now: now) }
        return .allowed
    }

    /// A bucket's credit at `now`: what it held plus the time since, at most `capacity` (each
    /// step bounded first, so no sum can overflow, and a clock read earlier adds nothing).
    private func refilled(_ bucket: (credit: Int64, at: Int64), now: Int64) -> Int64 {
        let elapsed = now > bucket.at ? min(capacity, now &- bucket.at) : 0
        return min(capacity, bucket.credit + elapsed)
    }

    /// Drops buckets that have refilled (no different from a new client), then the oldest.
    private mutating func forget(now: Int64) {
        buckets = buckets.filter { refilled($0.value, now: now) < capacity }
        while buckets.count > maxClients, let oldest = buckets.min(by: { $0.value.at < $1.value.at })?.key {
            buckets[oldest] = nil
        }
    }
}
