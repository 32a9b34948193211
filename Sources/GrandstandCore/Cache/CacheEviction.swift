/// Least-recently-used eviction that never picks a locked item (docs/cache.md "Eviction").
public enum CacheEviction {
    /// Ids whose files to delete, oldest access first, so `incoming` more bytes fit in `limit`;
    /// nil when even evicting every unlocked item would not make room. `keep` is never evicted
    /// (the item being written).
    public static func plan(_ items: [CacheItem], limit: Int, incoming: Int, keep: String? = nil) -> [String]? {
        var used = items.reduce(0) { $0 + $1.storedBytes }
        guard used + incoming > limit else { return [] }
        let candidates = items
            .filter { !$0.locked && $0.id != keep && $0.storedBytes > 0 }
            .sorted { ($0.lastAccessNanoseconds, $0.id) < ($1.lastAccessNanoseconds, $1.id) }
        var chosen: [String] = []
        for item in candidates {
            chosen.append(item.id)
            used -= item.storedBytes
            if used + incoming <= limit { return chosen }
        }
        return nil
    }
}
