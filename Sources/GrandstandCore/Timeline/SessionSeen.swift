/// Which play-once inserts each fan session has been shown, bounded in both count and age: at
/// most `capacity` sessions (the least recently used go first) and none idle longer than
/// `ttlNanoseconds`. A forgotten session sees its play-once inserts again (docs/inserts.md).
public struct SessionSeen: Sendable {
    public let capacity: Int
    public let ttlNanoseconds: Int64
    private var entries: [String: (seen: Set<String>, used: Int64)] = [:]

    public init(capacity: Int = 10_000, ttlNanoseconds: Int64 = 6 * 3600 * 1_000_000_000) {
        self.capacity = max(1, capacity)
        self.ttlNanoseconds = ttlNanoseconds
    }

    public var count: Int { entries.count }

    /// The play-once ids `session` has seen (empty for an unknown or expired one); counts as a use.
    public mutating func seen(_ session: String, now: Int64) -> Set<String> {
        guard let entry = entries[session] else { return [] }
        guard now - entry.used <= ttlNanoseconds else { entries[session] = nil; return [] }
        entries[session] = (entry.seen, now)
        return entry.seen
    }

    /// Records that `session` was shown `ids`, making room first when the store is full.
    public mutating func add(_ ids: [String], to session: String, now: Int64) {
        var entry = entries[session] ?? (seen: [], used: now)
        if entries[session] == nil && entries.count >= capacity { evict(now: now) }
        entry.seen.formUnion(ids)
        entry.used = now
        entries[session] = entry
    }

    /// Forgets one session (e.g. when its timeline is deleted).
    public mutating func forget(where matches: (String) -> Bool) {
        for key in entries.keys where matches(key) { entries[key] = nil }
    }

    /// Drops expired sessions; if none expired, the least recently used tenth (at least one),
    /// so a full store does not pay a scan on every new session.
    private mutating func evict(now: Int64) {
        let before = entries.count
        entries = entries.filter { now - $0.value.used <= ttlNanoseconds }
        guard entries.count == before else { return }
        let drop = max(1, capacity / 10)
        for key in entries.sorted(by: { $0.value.used < $1.value.used }).prefix(drop).map(\.key) { entries[key] = nil }
    }
}
