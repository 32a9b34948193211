import ArgumentParser
import GrandstandCore
import GrandstandOperations

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
            print(ManagementText.stats(document, channel: channel), terminator: "")
        }
    }
}
