import GrandstandCore

/// The A/B update state as Prometheus families for `/metrics` (docs/updates.md "Metrics"): which
/// slot booted and how each stands, the version in each, whether an install runs and how far,
/// and the last result with its time, so a fleet dashboard sees a venue's rollout box by box.
public enum UpdateMetrics {
    /// The last results a box reports (`last_result` is one of these, 1 for the current one).
    static let results = ["installed", "failed", "committed", "rolled-back", "rolling-back"]

    public static func families(_ status: UpdateService.Status) -> [MetricFamily] {
        var families = [
            MetricFamily(name: "grandstand_update_slot_info", help: "Each root slot: its state (booted, inactive), boot status (good, bad) and the version written to it; always 1.",
                         kind: .gauge, samples: status.slots.map { slot in
                             .init([.init("slot", slot.name), .init("bootname", slot.bootname), .init("state", slot.state),
                                    .init("boot_status", slot.bootStatus), .init("version", slot.version ?? "")], 1)
                         }),
            MetricFamily(name: "grandstand_update_installing", help: "1 while a bundle is being installed.", kind: .gauge,
                         samples: [.init([], status.phase == "installing" ? 1 : 0)]),
            MetricFamily(name: "grandstand_update_progress_percent", help: "The running installation's progress (0 when none runs).",
                         kind: .gauge, samples: [.init([], status.phase == "installing" ? Double(status.percent) : 0)]),
            MetricFamily(name: "grandstand_update_last_result", help: "The last update result (1 for it, 0 for the others; none before the first).",
                         kind: .gauge, samples: status.lastResult == nil ? [] : results.map { result in
                             .init([.init("result", result), .init("version", status.lastResult == result ? status.lastVersion ?? "" : "")],
                                   status.lastResult == result ? 1 : 0)
                         }),
        ]
        if let at = status.lastAt {
            families.append(MetricFamily(name: "grandstand_update_last_result_timestamp_seconds",
                                         help: "When the last update result was reached (Unix seconds).", kind: .gauge, samples: [.init([], at)]))
        }
        if let multicast = status.multicast { families += multicastFamilies(multicast) }
        return families
    }

    /// The update channel: bundles heard and refused, the rollout's phase with the last bundle's
    /// verdict, and the planned reboot once known.
    static func multicastFamilies(_ multicast: MulticastStatus) -> [MetricFamily] {
        var families = [
            MetricFamily(name: "grandstand_update_multicast_bundles_heard_total", help: "Bundles inspected from the update channel.",
                         kind: .counter, samples: [.init([], Double(multicast.bundlesHeard))]),
            MetricFamily(name: "grandstand_update_multicast_bundles_refused_total",
                         help: "Bundles from the update channel refused (signature, compatible, version).",
                         kind: .counter, samples: [.init([], Double(multicast.bundlesRefused))]),
            MetricFamily(name: "grandstand_update_multicast_info", help: "The multicast rollout: its phase and the last bundle's verdict; always 1.",
                         kind: .gauge, samples: [.init([.init("channel", multicast.channel), .init("phase", multicast.phase),
                                                        .init("verdict", multicast.verdict ?? ""),
                                                        .init("version", multicast.lastBundle?.version ?? "")], 1)]),
        ]
        if let at = multicast.rebootAt {
            families.append(MetricFamily(name: "grandstand_update_multicast_reboot_timestamp_seconds",
                                         help: "When this box plans to reboot into the bundle it installed (Unix seconds).",
                                         kind: .gauge, samples: [.init([], Double(at))]))
        }
        return families
    }
}
