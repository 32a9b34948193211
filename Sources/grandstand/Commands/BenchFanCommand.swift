import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import GrandstandCore
import GrandstandRuntime
import GrandstandDaemon
import GrandstandOperations
import GrandstandServing

/// `grandstand bench-fan` (hidden): the fan listener alone, for tools/bench/http. Packages a
/// sample file as channel `cam` in memory (no capture, no streamer: nothing else competes for
/// the core), then serves its frozen live playlist, segments and parts until SIGTERM/--duration.
struct BenchFanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-fan", abstract: "Serve a packaged sample on the fan listener only (benchmarks).", shouldDisplay: false)

    @Option(help: "MPEG-TS sample packaged as channel cam.")
    var sample: String = "tools/samples/clean.ts"

    @Option(help: "Fan listener address.")
    var fan: String = "127.0.0.1:8080"

    @Option(help: "Complete segments to package before serving.")
    var segments: Int = 6

    @Option(help: "Segment storage: memfd (answered with sendfile, as the daemon does) or array (from memory).")
    var storage: String = "memfd"

    @Option(help: "Stop after this many seconds (default: until SIGTERM).")
    var duration: Double?

    func run() throws {
        var signals = SignalLoop()
        guard let address = ListenAddress(parsing: fan) else { throw ValidationError("--fan must be numeric HOST:PORT") }
        guard let data = FileManager.default.contents(atPath: sample) else {
            printError("grandstand bench-fan: cannot read \(sample)")
            throw ExitCode(66)
        }
        let bytes = Array(data)
        // wrk opens every connection from 127.0.0.1: no per-client limit below the total.
        let config = try GatewayConfig.decode(Array("""
            {"license":{"venueName":"B","contentOwner":"B","appDeveloper":"B"},"management":{"token":"bench"},
             "listeners":{"fan":"\(address)","management":"127.0.0.1:0",
                          "fanLimits":{"connections":4096,"perClient":4096}}}
            """.utf8))
        var gateway = Gateway.Settings(hls: config.hls)
        gateway.memoryFileSegments = storage != "array"
        let daemon = Daemon(config: config, board: nil, events: EventLog(stderrOnly: true), gateway: gateway)
        try daemon.start()
        let channel = Channel(id: "cam", name: "Cam", kind: .video, group: nil, port: 5000, fec: .none, origin: .config)
        daemon.gateway.handle([.channelsChanged([.added(channel)])])
        var offset = 0
        var time = SystemClock().wallNanoseconds()
        while offset < bytes.count, (daemon.gateway.videoChannel("cam")?.summary.segments ?? 0) < segments {
            let end = min(offset + 7 * 188, bytes.count)
            daemon.gateway.handle([.transportStream(channelID: "cam", packets: bytes[offset..<end], timestampNanoseconds: time)])
            offset = end
            time += 1_000_000
        }
        guard let status = daemon.status else { throw ExitCode(1) }
        print("ready http://\(status.fan)/channels/cam/live.m3u8 segments=\(daemon.gateway.videoChannel("cam")?.summary.segments ?? 0) storage=\(storage)")
        fflush(nil)
        let end = duration.map { SystemClock().monotonicNanoseconds() + Int64($0 * 1e9) }
        while true {
            if signals.wait(milliseconds: 250) == .terminate { break }
            if let end, SystemClock().monotonicNanoseconds() >= end { break }
        }
        daemon.stop()
    }
}
