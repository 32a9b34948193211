import GrandstandCore
import GrandstandRuntime

/// The scheduler's round (twice a second, and after each change that may start a download):
/// waiting items start while the policy allows, wait `idle` with its reason while it does not,
/// and an unknown content id asks for its metadata again once its wait is over.
extension ContentCache {
    /// Starts waiting items while the policy allows; parks them `idle` while it does not.
    func schedule() {
        let blocks = policy.blocks(usage(), nowSeconds: now() / 1_000_000_000).filter { $0 != .concurrencyLimit }
        // Without an origin only items by URL download.
        let waiting = items().filter { [.metadataNotReceived, .queued, .idle].contains($0.state) && (configuration.origin != nil || $0.source == .url) }
            .sorted { ($0.createdNanoseconds, $0.id) < ($1.createdNanoseconds, $1.id) }
        let reason = blocks.lazy.compactMap(CacheErrorCode.init(block:)).first, detail = Self.idleDetail(blocks)
        for item in waiting {
            let running = withState { $0.downloads.count }
            let limit = policy.maxConcurrentDownloads ?? .max
            if item.state == .metadataNotReceived, item.error != nil, !metadataRetryDue(item.id) { continue }
            if item.state == .metadataNotReceived || (blocks.isEmpty && running < limit) {
                guard running < limit else { return }
                launch(item.id)
            } else if (item.state == .queued || item.state == .idle && item.error != reason), !blocks.isEmpty {
                // Waits idle with the policy's reason (kept current while it waits).
                _ = try? update(item.id) { try $0.move(to: .idle, error: reason, detail: detail) }
            }
        }
    }

    /// Seconds an unknown content id waits before its metadata is asked for again.
    static let metadataRetrySeconds: Int64 = 300

    /// Whether an item whose content id was unknown may ask for its metadata again now (its wait
    /// starts when the origin said so, or at the first round after a restart; monotonic clock).
    private func metadataRetryDue(_ id: String) -> Bool {
        let now = clock.monotonicNanoseconds()
        return withState { state in
            guard let due = state.metadataRetry[id] else {
                state.metadataRetry[id] = now + Self.metadataRetrySeconds * 1_000_000_000
                return false
            }
            // Not consumed here: a round that cannot start it (its last download's thread still
            // ending) leaves it due for the next; the next failure sets a new wait.
            return now >= due
        }
    }

    /// An idle item's `errorDetail`: every block, e.g. "waiting: outside-permitted-hours".
    static func idleDetail(_ blocks: [CachePolicy.Block]) -> String? {
        let names = blocks.filter { $0 != .concurrencyLimit }.map(\.rawValue)
        return names.isEmpty ? nil : "waiting: " + names.joined(separator: ", ")
    }

    /// Runs item `id`'s download on its own thread (`download-N`) unless one runs already.
    private func launch(_ id: String) {
        let control = DownloadControl()
        let claimed = withState { state -> Bool in
            guard state.downloads[id] == nil else { return false }
            state.downloads[id] = control
            return true
        }
        guard claimed else { return }
        do {
            try downloadThreads.start { [self] _ in
                run(id, control)
                withState { $0.downloads[id] = nil }
                control.finished.raise()
            }
        } catch {
            // No thread (out of threads, or stopping): the item stays queued for the next round.
            withState { $0.downloads[id] = nil }
            control.finished.raise()
        }
    }
}
