import GrandstandCore
import MediaCodec

extension Gateway {
    /// The ingest stats with each video channel's packaging and decode-health counters merged in
    /// per channel, and the decode-health counters also summed into the totals, as replay's
    /// stats.json has them. One picture for `/api/v1/stats`, `/metrics`, health and reports.
    ///
    /// Channels are bounded by what is listed or served: a channel that left the list keeps its
    /// per-channel table while the gateway still serves it (a removed video channel's window,
    /// `hls.rewindWindowSeconds`), then only its share of the totals remains (docs/serving.md,
    /// "Removed channels"). Without this, every id ever announced would stay in every answer.
    public func stats(merging ingest: IngestStats?) -> IngestStats {
        var stats = ingest ?? IngestStats(total: [:], channels: [:])
        var totals = retiredHealthCounters
        let served = videoChannels
        let servedIDs = Set(served.map(\.id))
        stats.channels = stats.channels.filter { id, table in table["listed"] != .bool(false) || servedIDs.contains(id) }
        for channel in served {
            for (key, value) in channel.summary.statistics {
                stats.channels[channel.id, default: [:]][key] = .number(Double(value))
                if Self.summedHealthKeys.contains(key) { totals[key, default: 0] += value }
            }
        }
        for (key, value) in totals { stats.total[key] = .number(Double(value)) }
        return stats
    }

    /// The video-health counters (VideoHealthCounters) that add up across channels.
    static let summedHealthKeys: Set<String> = Set(VideoHealthCounters().statistics.map(\.0))
}
