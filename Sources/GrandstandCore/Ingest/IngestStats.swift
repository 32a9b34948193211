/// Counters of one channel's receive path (stats.json `channels.ID`). Names are snake_case;
/// StadiumVision names (DESIGN.md "Stats names") are kept verbatim.
public struct ChannelStats: Sendable, Equatable {
    public var packetsReceived = 0
    public var bytesReceived = 0
    public var unexpectedSource = 0
    public var sequenceLost = 0
    public var sequenceReordered = 0
    public var sequenceDuplicates = 0
    public var sequenceRestarts = 0
    public var jitterTimestampUnits = 0
    public var jitterMicroseconds = 0
    public var gaps = 0
    public var gapPackets = 0
    public var recoveredPackets = 0
    public var tsPackets = 0
    public var tsDiscontinuities = 0
    public var tsDuplicatesDropped = 0
    public var oddSizedDatagrams = 0
    public var dataMessages = 0
    /// Bytes handed downstream (TS packets and data messages): `total_num_bytes_written`.
    public var bytesWritten = 0
    public var drops = DropCounts()
    public var recoveryCounters: [(name: String, value: Int)] = []
    /// ST 2022-7 channels: the merge's counters (`ChannelReceiver.pathFields`).
    public var pathCounters: [(name: String, value: Int)] = []
    /// What replaced or removed receivers of this id counted, so totals never go backwards.
    var carried = Carried()

    struct Carried: Sendable {
        var lost = 0, reordered = 0, duplicates = 0, restarts = 0
        var recovery: [String: Int] = [:]
    }

    public init() {}

    /// Keeps the current receiver's counters as the base for the next receiver of this id.
    mutating func carry() {
        carried = Carried(lost: sequenceLost, reordered: sequenceReordered, duplicates: sequenceDuplicates,
                          restarts: sequenceRestarts, recovery: Dictionary(recoveryCounters, uniquingKeysWith: +))
    }

    public static func == (a: ChannelStats, b: ChannelStats) -> Bool {
        a.fields.map(\.name) == b.fields.map(\.name) && a.fields.map(\.value) == b.fields.map(\.value) && a.drops == b.drops
    }

    mutating func drop(_ reason: DropReason) { drops.add(reason) }

    /// Numeric counters by stats.json name (without `drops` and announcement facts).
    public var fields: [(name: String, value: Int)] {
        [("packets_received", packetsReceived), ("bytes_received", bytesReceived),
         ("unexpected_source", unexpectedSource),
         ("rtp_packets_lost", sequenceLost), ("rtp_packets_reordered", sequenceReordered),
         ("rtp_packets_duplicate", sequenceDuplicates), ("rtp_restarts", sequenceRestarts),
         ("rtp_jitter", jitterTimestampUnits), ("rtp_jitter_microseconds", jitterMicroseconds),
         ("gaps", gaps), ("gap_packets", gapPackets), ("recovered_packets", recoveredPackets),
         ("ts_packets", tsPackets), ("num_ts_discontinuities", tsDiscontinuities),
         ("ts_duplicates_dropped", tsDuplicatesDropped), ("odd_sized_datagrams", oddSizedDatagrams),
         ("data_messages", dataMessages), ("total_num_bytes_written", bytesWritten)] + recoveryCounters + pathCounters
    }
}

/// A snapshot of the pipeline's counters: `{"total":{…},"channels":{ID:{…}}}`, rendered with
/// sorted keys and integers only (jitter in whole units), so equal inputs give equal bytes.
public struct IngestStats: Sendable, Equatable {
    public var total: [String: JSONValue]
    public var channels: [String: [String: JSONValue]]

    public init(total: [String: JSONValue] = [:], channels: [String: [String: JSONValue]] = [:]) {
        self.total = total
        self.channels = channels
    }

    /// An integer counter of the totals, nil when absent.
    public func total(_ name: String) -> Int? { Self.int(total[name]) }

    /// An integer counter of channel `id`, nil when absent.
    public func channel(_ id: String, _ name: String) -> Int? { Self.int(channels[id]?[name]) }

    /// A drop count (`drops.REASON`) of the totals or of one channel.
    public func drops(_ reason: DropReason, channel id: String? = nil) -> Int {
        let table: JSONValue? = if let id { channels[id]?["drops"] } else { total["drops"] }
        return Self.int(table?[reason.rawValue]) ?? 0
    }

    public static func int(_ value: JSONValue?) -> Int? {
        guard case .number(let number)? = value else { return nil }
        return Int(number)
    }

    public var json: JSONValue {
        .object([("channels", .object(channels.keys.sorted().map { ($0, Self.sorted(channels[$0] ?? [:])) })),
                 ("total", Self.sorted(total))])
    }

    /// The JSON text with a final newline.
    public var encoded: String { json.encoded + "\n" }

    public static func sorted(_ table: [String: JSONValue]) -> JSONValue {
        .object(table.keys.sorted().map { key in
            if case .object(let members)? = table[key] {
                return (key, .object(members.sorted { $0.key < $1.key }))
            }
            return (key, table[key] ?? .null)
        })
    }

    static func dropsObject(_ drops: DropCounts) -> JSONValue {
        .object(drops.sorted.map { ($0.reason.rawValue, .number(Double($0.count))) })
    }
}
