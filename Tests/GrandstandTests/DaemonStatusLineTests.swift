import Foundation
import GrandstandCore
import GrandstandRuntime
import HTTPClient
import TestSupport
import Testing
@testable import GrandstandDaemon
@testable import GrandstandIngest
@testable import GrandstandOperations

/// What systemd sees of the daemon: the STATUS= line on every service-state change, and the
/// watchdog's fault switch still hanging the capture after a live config change.
@Suite(.serialized) struct DaemonStatusLineTests {
    /// Lines the health thread hands to its sink (the daemon sends them as STATUS=).
    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [String] = []
        func append(_ line: String) { lock.lock(); list.append(line); lock.unlock() }
        var all: [String] { lock.lock(); defer { lock.unlock() }; return list }
    }

    /// Channels the fake observation reports (changed by the test).
    final class Channels: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        var count: Int {
            get { lock.lock(); defer { lock.unlock() }; return value }
            set { lock.lock(); value = newValue; lock.unlock() }
        }
    }

    @Test func eachStateChangeSendsOneStatusLine() throws {
        let config = try GatewayConfig.decode(Array("""
        {"license":{"venueName":"V","contentOwner":"O","appDeveloper":"D"},"health":{"enterSeconds":0,"exitSeconds":0}}
        """.utf8))
        let channels = Channels()
        let clock = ManualClock()
        let health = HealthLoop(config: config, board: nil, leds: nil, events: EventLog(stderrOnly: true), evaluateMilliseconds: 20,
                                clock: clock,
                                observe: { lifecycle, _ in HealthObservation(lifecycle: lifecycle, validChannels: channels.count) },
                                traffic: { 0 })
        let lines = Lines()
        // The sink before the thread: it gets the initial line at once, ahead of any evaluation
        // (after start, a loaded machine let the first evaluation's line come first).
        health.onStatusLine { lines.append($0) }
        try health.start()
        defer { health.stop() }
        health.setLifecycle(.running)
        /// Steps the health thread's clock one 25 ms tick at a time (it evaluates every 20 ms).
        func step(_ ticks: Int = 1, until condition: () -> Bool = { false }) {
            for _ in 0..<ticks where !condition() {
                #expect(clock.waitForSleepers(1))
                clock.advance(by: 25_000_000)
            }
            #expect(clock.waitForSleepers(1))
        }
        step(40) { lines.all.last == "down (no-channels; blink code 3), 0 channels, out of venue" }
        #expect(lines.all.last == "down (no-channels; blink code 3), 0 channels, out of venue", "\(lines.all)")
        channels.count = 2
        step(40) { lines.all.last == "up, 2 channels, out of venue" }
        #expect(lines.all.last == "up, 2 channels, out of venue", "\(lines.all)")
        step(20)   // half a second of evaluations with nothing changing
        // One line per change, no repeats while nothing changes.
        let all = lines.all
        #expect(zip(all, all.dropFirst()).allSatisfy { $0 != $1 }, "\(all)")
        #expect(all.first?.hasPrefix("down (not-running") == true, "\(all)")
    }

    @Test func theDaemonsStatusTextHasStateReasonsAndListeners() throws {
        let daemon = Daemon(config: try DaemonTests.config(), board: nil)
        try daemon.start()
        defer { daemon.stop() }
        try waitFor("the first evaluation as running", timeout: 20) { !daemon.statusText.contains("not-running") }
        let text = daemon.statusText
        let status = try #require(daemon.status)
        // The host has no wlan0 and the daemon no ingest: wifi-down and no-channels.
        #expect(text == "down (wifi-down, no-channels; blink code 2), 0 channels, out of venue; \(status.summary)")
    }

    @Test func hangPipelineHitsTheCaptureThatRunsAfterAConfigChange() throws {
        let directory = try ManagementTokenTests.scratch("fault")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/config.json"
        let text = """
        {"license":{"venueName":"V","contentOwner":"O","appDeveloper":"D"},
         "listeners":{"fan":"127.0.0.1:0","management":"127.0.0.1:0"},"management":{"token":"secret"},
         "stateDirectory":"\(directory)","channels":[{"name":"Bowl","kind":"video","group":"239.255.91.1","port":5000}]}
        """
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let config = try GatewayConfig.decode(Array(text.utf8))
        let settings = LiveIngest.Settings(interface: "gs-none0", configuration: IngestConfiguration.product(config))
        let daemon = Daemon(config: config, board: nil, ingest: settings, configPath: path)
        daemon.debugFaults = true
        try daemon.start()
        defer { daemon.stop() }
        try waitFor("the capture loop", timeout: 20) { daemon.isAlive(within: 1_000_000_000) }
        let first = try #require(daemon.ingest)

        let edited = text.replacingOccurrences(of: "239.255.91.1", with: "239.255.91.2")
        let port = try #require(daemon.status?.management.port)
        let put = try HTTPClient(HTTPEndpoint(host: "127.0.0.1", port: port))
            .request("PUT", "/api/v1/config", headers: [("Authorization", "Bearer secret")], body: Array(edited.utf8))
        #expect(put.status == 200, "\(put.text)")
        let second = try #require(daemon.ingest)
        #expect(second !== first)
        try waitFor("the new capture loop", timeout: 20) { daemon.isAlive(within: 1_000_000_000) }

        let fault = try DaemonHealthTests.call(daemon, "POST", "/api/v1/debug/fault?name=hang-pipeline")
        #expect(fault.status == 200, "\(fault.body)")
        try waitFor("the watchdog proof to fail", timeout: 20) { !daemon.isAlive(within: 1_000_000_000) }
        #expect(!second.isAlive(within: 1_000_000_000))
    }
}
