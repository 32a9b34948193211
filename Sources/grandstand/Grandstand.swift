import ArgumentParser
import CGSBuildStamp

/// The venue gateway: one binary, one subcommand per job (daemon, offline replay, streamer,
/// management clients). See docs/architecture.md for how the pieces fit.
@main
struct Grandstand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "grandstand",
        abstract: "Venue gateway: multicast ingest, FEC, HLS serving, LEDs and journald reporting.",
        version: "grandstand \(String(cString: gs_build_version())) (commit \(String(cString: gs_build_commit())))",
        subcommands: [RunCommand.self, DemoCommand.self, ReplayCommand.self, SendCommand.self, ListenCommand.self,
                      StatusCommand.self, ChannelsCommand.self, StatsCommand.self, LogsCommand.self, LedsCommand.self,
                      VersionCommand.self, BenchFanCommand.self, RecordCommand.self, UpdateCommand.self])
}
