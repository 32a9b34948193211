import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GrandstandCore
import Systemd
import GrandstandDaemon
import GrandstandOperations
import GrandstandRuntime

/// `grandstand run --config FILE`: the daemon (systemd `Type=notify`). Exits 0 on SIGTERM,
/// 78 (EX_CONFIG) on a bad configuration, 1 when a listener cannot start.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Run the gateway daemon.")

    @Option(help: "Configuration file (JSON).")
    var config: String = "/etc/grandstand/config.json"

    func run() throws {
        var signals = SignalLoop()
        let events = EventLog()
        let notifier = Notifier()
        let (gatewayConfig, board) = try Self.load(configPath: config, events: events)

        let daemon = Daemon(config: gatewayConfig, board: board, events: events, ingest: Daemon.productIngest(gatewayConfig),
                            configPath: config)
        do {
            try daemon.start()
        } catch {
            printError("grandstand: \(error)")
            throw ExitCode(1)
        }
        guard let status = daemon.status else { throw ExitCode(1) }
        _ = try? notifier.notify(.ready, .status(daemon.statusText))
        events.record(GatewayEvent(.ready, "Grandstand \(status.version) ready: \(status.summary)", fields: [
            ("VERSION", status.version), ("BOARD", board?.name ?? "none"),
            ("FAN_LISTENER", status.fan.description), ("MANAGEMENT_LISTENER", status.management.description),
        ]))

        let watchdogMilliseconds = ((try? notifier.watchdogInterval()) ?? nil).map { Int($0 / 2000) }
        while true {
            switch signals.wait(milliseconds: min(watchdogMilliseconds ?? 1000, 1000)) {
            case .terminate:
                _ = try? notifier.notify(.stopping)
                daemon.stop()
                events.record(GatewayEvent(.stopping, "Grandstand stopping on signal", fields: [("VERSION", status.version)]))
                return
            case .reload:
                // Re-reads and applies what can change live (RELOADING=1 … READY=1 around it);
                // a bad file is logged and the running config stays.
                if case .failure(let rejection)? = daemon.runtime?.reload() {
                    printError("grandstand: reload of \(config) failed, keeping the running configuration:\n\(rejection)")
                }
            case nil:
                break
            }
            // Kick the watchdog only while the capture loop proves alive: a wedged capture thread
            // lets systemd restart the service.
            if watchdogMilliseconds != nil, daemon.isAlive() { _ = try? notifier.notify(.watchdog) }
        }
    }

    /// Reads and validates the config and the board it names; logs and exits EX_CONFIG if bad.
    static func load(configPath: String, events: EventLog) throws -> (GatewayConfig, BoardDescription?) {
        do {
            return try ConfigFiles.gatewayAndBoard(configPath)
        } catch {
            events.record(GatewayEvent(.configRejected, error.description, fields: [("CONFIG", configPath)]))
            printError("grandstand: \(error)")
            throw ExitCode(78)
        }
    }
}
