/// Turns the stats dictionary (`{"total":{…},"channels":{ID:{…}}}`, management `/api/v1/stats`)
/// into metric families: totals as `grandstand_<key>`, per-channel values as
/// `grandstand_channel_<key>{channel="ID"}` (a separate family, so `sum()` over a family never
/// counts a total twice), drop tables with a `reason` label, texts in `grandstand_channel_info`.
public enum StatsMetrics {
    /// Keys that are levels rather than running counts (everything else is a counter).
    public static let gaugeKeys: Set<String> = [
        "channels_listed", "channels_refused", "listed", "rtp_jitter", "rtp_jitter_microseconds",
        "hls_bytes_held", "hls_blocked_requests", "live", "bandwidth",
    ]

    public static func kind(of key: String) -> MetricFamily.Kind {
        gaugeKeys.contains(key) || key.hasSuffix("_held") || key.hasSuffix("_current") ? .gauge : .counter
    }

    public static func families(_ stats: JSONValue, prefix: String = "grandstand_") -> [MetricFamily] {
        var table = FamilyTable()
        if case .object(let members)? = stats["total"] {
            for (key, value) in members {
                table.add(value, key: key, name: prefix + key, labels: [], help: "Gateway total of stats key \(key) (docs/management.md).")
            }
        }
        if case .object(let channels)? = stats["channels"] {
            for (id, channel) in channels {
                guard case .object(let members) = channel else { continue }
                var texts: [MetricFamily.Label] = [MetricFamily.Label("channel", id)]
                for (key, value) in members {
                    if case .string(let text) = value {
                        texts.append(MetricFamily.Label(key, text))
                        continue
                    }
                    table.add(value, key: key, name: prefix + "channel_" + key, labels: [MetricFamily.Label("channel", id)],
                              help: "Per-channel stats key \(key) (docs/management.md).")
                }
                table.append(name: prefix + "channel_info", help: "Texts of each channel's stats as labels; always 1.",
                             kind: .gauge, MetricFamily.Sample(texts, 1))
            }
        }
        return table.sorted
    }

    /// Families collected by name, so each is rendered once with all its samples.
    private struct FamilyTable {
        var byName: [String: MetricFamily] = [:]

        mutating func append(name: String, help: String, kind: MetricFamily.Kind, _ sample: MetricFamily.Sample) {
            let legal = PrometheusText.metricName(name)
            byName[legal, default: MetricFamily(name: legal, help: help, kind: kind, samples: [])].samples.append(sample)
        }

        mutating func add(_ value: JSONValue, key: String, name: String, labels: [MetricFamily.Label], help: String) {
            switch value {
            case .number(let number):
                append(name: name, help: help, kind: StatsMetrics.kind(of: key), MetricFamily.Sample(labels, number))
            case .bool(let flag):
                append(name: name, help: help, kind: .gauge, MetricFamily.Sample(labels, flag ? 1 : 0))
            case .object(let members):
                // A table of counts by reason (drops): one family with a `reason` label.
                for (reason, count) in members {
                    guard case .number(let number) = count else { continue }
                    append(name: name, help: help, kind: StatsMetrics.kind(of: key),
                           MetricFamily.Sample(labels + [MetricFamily.Label("reason", reason)], number))
                }
            case .string, .array, .null:
                break
            }
        }

        var sorted: [MetricFamily] { byName.keys.sorted().compactMap { byName[$0] } }
    }
}
