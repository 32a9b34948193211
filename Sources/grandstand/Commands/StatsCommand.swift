import ArgumentParser
import GrandstandCore

/// `grandstand stats`: the stats dictionary (`GET /api/v1/stats`): totals, then one column per
/// channel (or only `--channel ID`).
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stats", abstract: "Show the daemon's stats (totals and per channel).")

    @OptionGroup var management: ManagementOptions

    @Option(help: "Only this channel's stats.")
    var channel: String?

    func run() throws {
        try ManagementClientError.run {
            guard let document = try management.document("/api/v1/stats") else { return }
            if let channel, document["channels"]?[channel] == nil {
                throw ManagementClientError("no channel \"\(channel)\" in the daemon's stats", exitCode: 1)
            }
            print(Self.render(document, channel: channel), terminator: "")
        }
    }

    static func render(_ document: JSONValue, channel only: String? = nil) -> String {
        var out = ""
        if only == nil, let total = document["total"] {
            var table = TextTable(["TOTAL", "VALUE"])
            for (name, value) in TextTable.flattened(total) { table.append([name, value]) }
            out += table.text
            let wifi = WiFiStatsTable.render(document)
            if !wifi.isEmpty { out += "\n" + wifi }
        }
        guard case .object(let channels)? = document["channels"] else { return out }
        let chosen = channels.filter { only == nil || $0.key == only }
        guard !chosen.isEmpty else { return out }
        var rows: [String: [String: String]] = [:]
        for (id, stats) in chosen {
            for (name, value) in TextTable.flattened(stats) { rows[name, default: [:]][id] = value }
        }
        var table = TextTable(["CHANNEL"] + chosen.map(\.key))
        for name in rows.keys.sorted() {
            table.append([name] + chosen.map { rows[name]?[$0.key] ?? "-" })
        }
        return out + (out.isEmpty ? "" : "\n") + table.text
    }
}
