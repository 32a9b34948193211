import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Capture
import GrandstandCore
import GrandstandRuntime
import GrandstandIngest
import GrandstandOperations

/// `grandstand listen [--interface IF] [--config FILE] [--json]`: a field diagnostic. Captures
/// live through the same pipeline as the daemon (joins, filter, registry) and keeps printing the
/// channels it sees with their packet, loss and discontinuity counters: a refreshing table on a
/// terminal, one JSON object per line with --json. Stops on Ctrl-C or after --duration.
struct ListenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen", abstract: "Capture live and print the channels heard, with their counters.")

    @Option(help: "Interface to capture on (default: the config's network.interface, else eth0).")
    var interface: String?

    @Option(help: "Configuration file (JSON); without it no license is enforced and every streamer is allowed.")
    var config: String?

    @Flag(help: "Print one JSON object per refresh instead of a table.")
    var json = false

    @Option(help: "Seconds between refreshes.")
    var interval: Double = 1

    @Option(help: "Stop after this many seconds (default: run until interrupted).")
    var duration: Double?

    func validate() throws {
        guard interval > 0, interval <= 3600 else { throw ValidationError("--interval must be in (0, 3600] seconds") }
        if let duration, duration <= 0 { throw ValidationError("--duration must be positive") }
    }

    func run() throws {
        var signals = SignalLoop()
        let loaded = try ReplayCommand.loadConfig(configPath: config, command: "listen")
        let interfaceName = interface ?? loaded?.network.interface ?? "eth0"
        let configuration = IngestConfiguration.product(loaded)
        let events = EventLog(stderrOnly: true)
        let ingest: LiveIngest
        do {
            ingest = try LiveIngest(settings: LiveIngest.Settings(interface: interfaceName, configuration: configuration),
                                    events: events) { _ in }
        } catch {
            printError("grandstand listen: \(error)")
            throw ExitCode(1)
        }
        do {
            try ingest.start()
        } catch {
            printError("grandstand listen: \(error)")
            throw ExitCode(1)
        }
        let view = ListenView(json: json, terminal: isatty(STDOUT_FILENO) == 1)
        let start = SystemClock().wallNanoseconds()
        let end = duration.map { start + Int64($0 * 1e9) }
        var stop = false
        while !stop {
            let now = SystemClock().wallNanoseconds()
            var wait = Int64(interval * 1000)
            if let end { wait = min(wait, max(1, (end - now + 999_999) / 1_000_000)) }
            if signals.wait(milliseconds: Int(wait)) == .terminate { stop = true }
            if let end, SystemClock().wallNanoseconds() >= end { stop = true }
            view.print(ingest.snapshot)
        }
        ingest.stop()
    }
}
