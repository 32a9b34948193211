/// Retry timing of report uploads: exponential backoff from `initialMilliseconds`, doubling per
/// consecutive failure up to `maxMilliseconds`, optionally shortened by a jitter fraction so a
/// venue's gateways do not retry in step. Pure: the caller passes the clock and the random draw.
public struct UploadBackoff: Sendable, Equatable {
    public var initialMilliseconds: Int64
    public var maxMilliseconds: Int64
    /// 0 ... 1: the largest share of a delay the jitter may take off.
    public var jitter: Double

    public init(initialMilliseconds: Int64, maxMilliseconds: Int64, jitter: Double = 0) {
        self.initialMilliseconds = max(1, initialMilliseconds)
        self.maxMilliseconds = max(self.initialMilliseconds, maxMilliseconds)
        self.jitter = min(1, max(0, jitter))
    }

    /// The wait after the `failures`-th consecutive failure (1-based); `draw` in 0 ..< 1.
    public func delay(afterFailures failures: Int, draw: Double = 0) -> Int64 {
        guard failures > 0 else { return 0 }
        var delay = initialMilliseconds
        var step = 1
        while step < failures && delay < maxMilliseconds {
            delay = delay > maxMilliseconds / 2 ? maxMilliseconds : delay * 2
            step += 1
        }
        delay = min(delay, maxMilliseconds)
        let cut = Double(delay) * jitter * min(1, max(0, draw))
        return max(1, delay - Int64(cut))
    }
}

/// When the next upload attempt may go: immediately after a success, after the backoff delay
/// after a failure. Times are monotonic milliseconds supplied by the caller.
public struct UploadRetry: Sendable, Equatable {
    public let backoff: UploadBackoff
    public private(set) var consecutiveFailures = 0
    public private(set) var notBefore: Int64 = .min

    public init(backoff: UploadBackoff) { self.backoff = backoff }

    public func isDue(at now: Int64) -> Bool { now >= notBefore }

    /// Records a failed attempt at `now`; returns the delay until the next one.
    @discardableResult
    public mutating func failed(at now: Int64, draw: Double = 0) -> Int64 {
        consecutiveFailures += 1
        let delay = backoff.delay(afterFailures: consecutiveFailures, draw: draw)
        notBefore = now + delay
        return delay
    }

    /// Records a delivered report: the next one may go at once.
    public mutating func succeeded() {
        consecutiveFailures = 0
        notBefore = .min
    }
}

/// What an upload's outcome means for the queued report.
public enum UploadOutcome: Sendable, Equatable {
    /// 2xx: delivered, remove it from the queue.
    case delivered
    /// Network failure, timeout, 408, 429 or 5xx: keep it, retry after backoff.
    case retry
    /// Any other status (4xx): the collector will never take this report; drop it and count it.
    case rejected

    public init(status: Int?) {
        guard let status else { self = .retry; return }
        switch status {
        case 200 ..< 300: self = .delivered
        case 408, 429, 500 ..< 600: self = .retry
        default: self = .rejected
        }
    }
}

/// Naming and bounding of the on-disk report queue: one file per report,
/// `report-<20-digit sequence>.json`, sent in sequence order; when full, the oldest go first.
public enum UploadQueuePolicy {
    public static let prefix = "report-"
    public static let suffix = ".json"

    public static func fileName(_ sequence: UInt64) -> String {
        let digits = String(sequence)
        return prefix + String(repeating: "0", count: max(0, 20 - digits.count)) + digits + suffix
    }

    /// The sequence of a queue file name, nil for anything else (temporary files, strays).
    public static func sequence(ofFileName name: String) -> UInt64? {
        guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return nil }
        let digits = name.dropFirst(prefix.count).dropLast(suffix.count)
        guard digits.count == 20, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else { return nil }
        return UInt64(digits)
    }

    /// The oldest sequences to delete so one more report fits within `limit` files.
    public static func toDrop(queued: [UInt64], limit: Int) -> [UInt64] {
        let excess = queued.count + 1 - max(1, limit)
        guard excess > 0 else { return [] }
        return Array(queued.sorted().prefix(excess))
    }
}
