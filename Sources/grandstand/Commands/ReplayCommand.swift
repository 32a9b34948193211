import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GrandstandCore
import GrandstandIngest
import GrandstandOperations

/// `grandstand replay --pcap FILE [--config FILE] --out DIR`: runs a pcap/pcapng capture through
/// the live ingest pipeline and writes channels.json, stats.json, events.jsonl, data/ID.jsonl and
/// ts/ID.ts into DIR. Deterministic. Without --config no license is enforced and every streamer
/// is allowed; with one, the file's license, allow-list, static channels and SAP groups apply.
/// Exits 78 (EX_CONFIG) on a bad configuration, 1 when the capture cannot be read or DIR written.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay", abstract: "Feed a pcap/pcapng capture through the ingest pipeline and write the results.")

    @Option(help: "Capture file (pcap or pcapng).")
    var pcap: String

    @Option(help: "Configuration file (JSON); without it no license is enforced.")
    var config: String?

    @Option(help: "Output directory (created if needed).")
    var out: String

    @Option(help: "BPF filter (pcap-filter(7)) applied while reading, as live capture would; none by default.")
    var filter: String?

    @Flag(help: "Print nothing on success.")
    var quiet = false

    func run() throws {
        let gatewayConfig = try Self.loadConfig(configPath: config, command: "replay")
        let configuration = IngestConfiguration.product(gatewayConfig)
        let started = ContinuousClock.now
        let summary: Replay.Summary
        do {
            summary = try Replay(capturePath: pcap, outputDirectory: out, configuration: configuration, filter: filter,
                                 hls: gatewayConfig?.hls ?? GatewayConfig.HLS()).run()
        } catch {
            printError("grandstand replay: \(error)")
            throw ExitCode(1)
        }
        guard !quiet else { return }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = seconds > 0 ? Int(Double(summary.frames) / seconds) : 0
        print("replayed \(summary.frames) frames (\(summary.bytes) bytes) from \(pcap) into \(out) in \(Int(seconds * 1000)) ms (\(rate) frames/s)")
        print("capture filter for the channels known at the end: \(summary.captureFilter)")
    }

    /// The configuration file for a diagnostic command, nil without one; exits 78 when it is bad.
    static func loadConfig(configPath: String?, command: String) throws -> GatewayConfig? {
        guard let configPath else { return nil }
        do {
            return try ConfigFiles.gateway(configPath)
        } catch {
            printError("grandstand \(command): \(error)")
            throw ExitCode(78)
        }
    }
}
