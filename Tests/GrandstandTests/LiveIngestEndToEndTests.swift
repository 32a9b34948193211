import Foundation
#if canImport(Glibc)
import Glibc
#endif
import GrandstandCore
import TestSupport
import Testing
@testable import GrandstandIngest
@testable import GrandstandOperations

/// Live ingest end to end on the real kernel: `grandstand send` on one end of a veth pair in a
/// private network namespace, `LiveIngest` (libpcap + IGMP joins + the pipeline) on the other,
/// tcpdump recording the same wire. Checks the joins in /proc/net/igmp, the registry and the
/// counters against what the sender says it sent, and that `replay` of the recording gives the
/// same registry and counts as live. Needs root; under qemu-user (no packet sockets) the clear
/// capture error is checked instead, and the VM runs this for real.
@Suite(.serialized) struct LiveIngestEndToEndTests {
    static let config = """
        {"license":{"venueName":"Test Arena","contentOwner":"Test Owner","appDeveloper":"Test App"},
         "management":{"token":"t"},"network":{"interface":"gsv1"}}
        """

    @Test func sendThenLiveCaptureThenReplayAgree() throws {
        let gatewayConfig = try GatewayConfig.decode(Array(Self.config.utf8))
        var settings = LiveIngest.Settings(interface: "gsv1", configuration: .product(gatewayConfig))
        // No silence re-join while a loaded, emulated machine is still starting the sender.
        settings.silenceNanoseconds = 60_000_000_000
        guard TestEnvironment.isRoot, !TestEnvironment.isQEMUUser else {
            // No packet capture here: the driver must say why, keep retrying and not crash.
            let settings = LiveIngest.Settings(interface: "gs-no-such-if0", configuration: .product(gatewayConfig))
            let ingest = try LiveIngest(settings: settings, events: EventLog(stderrOnly: true)) { _ in }
            try ingest.start()
            try waitFor("the capture error", timeout: 30) { ingest.snapshot.lastError != nil }
            let snapshot = ingest.snapshot
            ingest.stop()
            #expect(!snapshot.capturing)
            #expect(snapshot.lastError != nil)
            return
        }
        let namespace = try NetworkNamespace(prefix: "gs-live")
        try namespace.addVethPair()
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("gs-live-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let recording = work.appendingPathComponent("wire.pcap").path

        // The recording starts first, then live ingest, then the streamer. tcpdump takes each
        // packet at once (--immediate-mode: no ring-block delay) and writes it as it comes (-U),
        // and is stopped with SIGKILL: the test process blocks SIGINT and SIGTERM (the daemon's
        // signal loop), and children inherit that.
        let tcpdump = try Child(["ip", "netns", "exec", namespace.name, "tcpdump", "-q", "-U", "--immediate-mode",
                                 "-i", "gsv1", "-w", recording])
        defer { tcpdump.kill() }
        try waitFor("tcpdump to start") { FileManager.default.fileExists(atPath: recording) }

        let actions = ActionLog()
        let ingest = try LiveIngest(settings: settings, events: EventLog(stderrOnly: true)) { actions.append($0) }
        try namespace.enter { try ingest.start() }
        defer { ingest.stop() }
        try waitFor("capture on gsv1") { ingest.snapshot.capturing }
        // SAP groups are joined at once, before any channel is known.
        let sapJoined = try namespace.igmpMemberships().filter { $0.device == "gsv1" }.map(\.group)
        #expect(Set(sapJoined).isSuperset(of: ["224.2.127.254", "239.255.255.255"]), "\(sapJoined)")

        let sample = SendEndToEndTests.sample
        // Media starts 8 s after the first announcement (--lead-in): the capture filter admits a
        // channel's group only once its announcement is processed, which on a loaded emulated
        // machine (TCG, a debug build, other VMs) has taken 4 s.
        let send = try Child(["ip", "netns", "exec", namespace.name, SendEndToEndTests.binary, "send", "--interface", "gsv0",
                              "--sap-interval", "0.5", "--license", "Test Arena/Test Owner/Test App",
                              "--video", "Bowl Cam=\(sample)@239.255.47.1:47000", "--data", "Scores@239.255.47.2:47002",
                              "--data-interval", "0.2", "--drop-pattern", "every:10", "--duration", "10", "--lead-in", "8"])
        // While it sends: both channels listed and their groups joined on the capture side.
        var joined: Set<String> = []
        try waitFor("both channels and their joins") {
            joined.formUnion(try namespace.igmpMemberships().filter { $0.device == "gsv1" }.map(\.group))
            return Set(actions.addedChannels) == ["bowl-cam", "scores"] && joined.isSuperset(of: ["239.255.47.1", "239.255.47.2"])
        }
        #expect(actions.addedChannels.sorted() == ["bowl-cam", "scores"])
        let output = send.finish()
        #expect(send.status == 0, "\(output)")
        // The deletions retire both channels.
        try waitFor("the SAP deletions") { ingest.snapshot.channels.isEmpty }
        ingest.stop()   // the loop publishes its last snapshot as it ends
        let live = ingest.snapshot
        try waitForQuietFile(recording)
        tcpdump.kill()

        // Counters against the sender's own summary: "bowl-cam: video …: N packets sent (…), D dropped".
        let sent = try Self.summary(output, channel: "bowl-cam")
        let bowl = live.stats.channels["bowl-cam"] ?? [:]
        #expect(IngestStats.int(bowl["packets_received"]) == sent.packets, "\(bowl); total \(live.stats.total)")
        let lost = IngestStats.int(bowl["rtp_packets_lost"]) ?? -1
        #expect(lost == sent.dropped || lost == sent.dropped - 1, "lost \(lost) of \(sent.dropped) dropped")
        #expect(IngestStats.int(live.stats.channels["scores"]?["data_messages"]) ?? 0 >= 5)
        #expect(live.stats.total(SilenceWatch.statsKey) == 0)
        #expect(actions.gaps("bowl-cam") == lost)
        #expect(actions.dataMessages("scores") == IngestStats.int(live.stats.channels["scores"]?["data_messages"]))

        // Replay of the recording: the same channels came and went, with the same counters.
        let out = work.appendingPathComponent("replay").path
        let configPath = work.appendingPathComponent("config.json").path
        try Self.config.write(toFile: configPath, atomically: true, encoding: .utf8)
        let replay = try Child([SendEndToEndTests.binary, "replay", "--pcap", recording, "--config", configPath, "--out", out, "--quiet"])
        let replayOutput = replay.finish()
        #expect(replay.status == 0, "\(replayOutput)")
        let stats = try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: out + "/stats.json"))))
        for id in ["bowl-cam", "scores"] {
            for key in ["packets_received", "rtp_packets_lost", "rtp_packets_reordered", "rtp_packets_duplicate",
                        "num_ts_discontinuities", "ts_packets", "data_messages", "gap_packets"] {
                let replayed = IngestStats.int(stats["channels"]?[id]?[key])
                #expect(replayed == IngestStats.int(live.stats.channels[id]?[key]), "\(id).\(key)")
            }
        }
        for key in ["num_channel_announcements_received", "num_channels_deleted", "num_license_key_mismatches"] {
            #expect(IngestStats.int(stats["total"]?[key]) == live.stats.total(key), "total.\(key)")
        }
    }

    /// The interface going down stops the capture (logged, retried); back up, the capture
    /// re-opens and every membership is re-joined and counted (`num_channel_announcement_igmp_restarts`).
    @Test func interfaceDownAndUpReopensAndRejoins() throws {
        guard TestEnvironment.isRoot, !TestEnvironment.isQEMUUser else { return } // covered above
        let gatewayConfig = try GatewayConfig.decode(Array(Self.config.utf8))
        let namespace = try NetworkNamespace(prefix: "gs-flap")
        try namespace.addVethPair()
        var settings = LiveIngest.Settings(interface: "gsv1", configuration: .product(gatewayConfig))
        settings.retryNanoseconds = 200_000_000
        let ingest = try LiveIngest(settings: settings, events: EventLog(stderrOnly: true)) { _ in }
        try namespace.enter { try ingest.start() }
        defer { ingest.stop() }
        try waitFor("capture on gsv1") { ingest.snapshot.capturing && !ingest.snapshot.memberships.isEmpty }
        let held = ingest.snapshot.memberships.count
        #expect(held == 3, "SAP groups 224.2.127.254, 239.255.255.255, ff0e::2:7ffe")

        try namespace.ip("link", "set", "gsv1", "down")
        try waitFor("the capture to notice the link went down") { !ingest.snapshot.capturing }
        #expect(ingest.snapshot.lastError?.contains("gsv1") == true)
        try namespace.ip("link", "set", "gsv1", "up")
        try waitFor("the capture to re-open") { ingest.snapshot.capturing && ingest.snapshot.stats.total("capture_opens") == 2 }
        let snapshot = ingest.snapshot
        #expect(snapshot.stats.total(SilenceWatch.statsKey) == held)
        #expect(snapshot.memberships.allSatisfy { $0.restarts == 1 })
        let joined = try namespace.igmpMemberships().filter { $0.device == "gsv1" }.map(\.group)
        #expect(Set(joined).isSuperset(of: ["224.2.127.254", "239.255.255.255"]), "\(joined)")
    }

    static func summary(_ output: String, channel: String) throws -> (packets: Int, dropped: Int) {
        let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("\(channel): ") })
        let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        // "<group octets…>:<port>: N packets sent (X.Y MiB), D dropped"
        let words = line.split(separator: " ")
        let packets = try #require(words.firstIndex(of: "packets").flatMap { Int(words[$0 - 1]) })
        let dropped = try #require(numbers.last)
        return (packets, dropped)
    }
}

/// What the pipeline handed to the sink, counted per channel.
final class ActionLog: @unchecked Sendable {
    private let lock = NSLock()
    private var gapPackets: [String: Int] = [:]
    private var messages: [String: Int] = [:]
    private var added: [String] = []

    func append(_ actions: [IngestAction]) {
        lock.lock()
        defer { lock.unlock() }
        for action in actions {
            switch action {
            case .gap(let id, let lost, _): gapPackets[id, default: 0] += lost
            case .dataMessage(let id, _, _): messages[id, default: 0] += 1
            case .channelsChanged(let changes):
                for case .added(let channel) in changes { added.append(channel.id) }
            default: break
            }
        }
    }

    func gaps(_ id: String) -> Int { lock.lock(); defer { lock.unlock() }; return gapPackets[id] ?? 0 }
    func dataMessages(_ id: String) -> Int { lock.lock(); defer { lock.unlock() }; return messages[id] ?? 0 }
    /// Channel ids in the order they were added, even if removed since (a slow machine may see a
    /// channel come and go between two looks at the snapshot).
    var addedChannels: [String] { lock.lock(); defer { lock.unlock() }; return added }
}
