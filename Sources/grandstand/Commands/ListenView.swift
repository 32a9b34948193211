#if canImport(Glibc)
import Glibc
#endif
import GrandstandCore
import GrandstandIngest

/// How `grandstand listen` shows an `IngestSnapshot`: a table redrawn in place on a terminal,
/// appended when piped, or one JSON object per line.
struct ListenView {
    let json: Bool
    let terminal: Bool

    func print(_ snapshot: IngestSnapshot) {
        let text = json ? Self.jsonLine(snapshot) : Self.table(snapshot)
        // Clear the screen and home the cursor so the table refreshes in place.
        let prefix = (!json && terminal) ? "\u{1B}[H\u{1B}[2J" : ""
        Swift.print(prefix + text)
        fflush(nil)
    }

    /// Per-channel counters shown in both forms: `(stats key, column title)`.
    static let columns: [(key: String, title: String)] = [
        ("packets_received", "PKTS"), ("rtp_packets_lost", "LOST"), ("rtp_packets_reordered", "REORD"),
        ("rtp_packets_duplicate", "DUP"), ("num_ts_discontinuities", "TS-DISC"), ("rtp_jitter_microseconds", "JITTER-us"),
        ("data_messages", "MSGS"),
        (SilenceWatch.statsKey, "REJOIN"),
    ]

    static func jsonLine(_ snapshot: IngestSnapshot) -> String {
        let channels: [JSONValue] = snapshot.channels.map { channel in
            guard case .object(var members) = channel.json else { return channel.json }
            members.append(("stats", IngestStats.sorted(snapshot.stats.channels[channel.id] ?? [:])))
            return .object(members)
        }
        let refused: [JSONValue] = snapshot.refused.map {
            .object([("name", .string($0.name)), ("streamer", .string($0.streamer.description)), ("reason", .string($0.reason))])
        }
        var members: [(key: String, value: JSONValue)] = [
            ("time", .string(TextEncoding.rfc3339(nanoseconds: snapshot.timestampNanoseconds))),
            ("interface", .string(snapshot.interface)), ("capturing", .bool(snapshot.capturing)),
            ("channels", .array(channels)), ("refused", .array(refused)),
            ("memberships", .array(snapshot.memberships.map { .string($0.membership.description) })),
            ("total", IngestStats.sorted(snapshot.stats.total)),
        ]
        if let error = snapshot.lastError { members.append(("error", .string(error))) }
        return JSONValue.object(members).encoded
    }

    static func table(_ snapshot: IngestSnapshot) -> String {
        let total = snapshot.stats.total
        func count(_ table: [String: JSONValue]?, _ key: String) -> String {
            guard case .number(let value)? = table?[key] else { return "-" }
            return String(Int(value))
        }
        var lines: [String] = []
        let state = snapshot.capturing ? "capturing" : "NOT capturing (\(snapshot.lastError ?? "starting"))"
        lines.append("grandstand listen · \(snapshot.interface) · \(state) · "
            + "pcap received \(count(total, "pcap_received")) dropped \(count(total, "pcap_dropped_kernel")) · "
            + "SAP \(count(total, "num_channel_announcements_received")) · groups \(snapshot.memberships.count)")
        var rows = [["ID", "KIND", "GROUP:PORT", "STREAMER"] + columns.map(\.title)]
        for channel in snapshot.channels {
            let stats = snapshot.stats.channels[channel.id]
            rows.append([channel.id, channel.kind.name, channel.srt?.url ?? "\(channel.group?.description ?? "?"):\(channel.port)",
                         channel.streamer?.description ?? "config"] + columns.map { count(stats, $0.key) })
        }
        lines += Self.align(rows)
        if snapshot.channels.isEmpty { lines.append("(no channels heard yet)") }
        for refusal in snapshot.refused {
            lines.append("refused: \(refusal.name) from \(refusal.streamer): \(refusal.reason)")
        }
        return lines.joined(separator: "\n")
    }

    /// Left-aligned columns two spaces apart.
    static func align(_ rows: [[String]]) -> [String] {
        guard let width = rows.first?.count else { return [] }
        let widths = (0..<width).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                column == width - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
            }.joined(separator: "  ")
        }
    }
}
