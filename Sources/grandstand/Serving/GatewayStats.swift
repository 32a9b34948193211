import GrandstandCore
import MediaCodec

extension Gateway {
    /// The ingest stats with each video channel's packaging and decode-health counters merged in
    /// per channel, and the decode-health counters also summed into the totals, as replay's
    /// stats.json has them. One picture for `/api/v1/stats`, `/metrics`, health and reports.
    func stats(merging ingest: IngestStats?) -> IngestStats {
        var stats = ingest ?? IngestStats(total: [:], channels: [:])
        var totals: [String: Int64] = [:]
        for channel in videoChannels {
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
