import Foundation
import GrandstandCore
import Multicast
import TestSupport
import Testing

/// Runs the built `grandstand send` for ~2 s on `lo` and receives its SAP and RTP with joined
/// sockets. As root it runs in a private network namespace (lo up, 224.0.0.0/4 routed to lo)
/// so nothing else on the host sees or disturbs the traffic; otherwise on the host's lo.
@Suite(.serialized) struct SendEndToEndTests {
    static let sample = Fixtures.directory.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("tools/samples/clean.ts").path

    /// The `grandstand` executable built beside the test bundle.
    static var binary: String { grandstandBinary }

    @Test func sendsAnnouncementsVideoAndDataThatParseBack() throws {
        if TestEnvironment.isQEMUUser {
            // qemu-user 7.2 does not translate IP_MULTICAST_IF: the command must say so and stop.
            let run = try SendProcess.start(namespace: nil, arguments: [
                "send", "--interface", "lo", "--video", "Bowl=\(Self.sample)@239.255.47.1:47000", "--duration", "1"])
            let output = run.finish()
            #expect(run.status == 1)
            #expect(output.contains("grandstand send: setsockopt(IP_MULTICAST_IF): Protocol not available (errno 92)"), "\(output)")
            return
        }
        let namespace = TestEnvironment.isRoot && !TestEnvironment.isQEMUUser ? try NetworkNamespace(prefix: "gs-send") : nil
        try namespace?.ip("route", "add", "224.0.0.0/4", "dev", "lo")
        let sap = try namespace.map { try $0.enter { try SendEndToEndTests.receiver(port: 9875, group: "239.255.255.255") } }
            ?? SendEndToEndTests.receiver(port: 9875, group: "239.255.255.255")
        let video = try namespace.map { try $0.enter { try SendEndToEndTests.receiver(port: 47000, group: "239.255.47.1") } }
            ?? SendEndToEndTests.receiver(port: 47000, group: "239.255.47.1")
        let data = try namespace.map { try $0.enter { try SendEndToEndTests.receiver(port: 47002, group: "239.255.47.2") } }
            ?? SendEndToEndTests.receiver(port: 47002, group: "239.255.47.2")

        let arguments = ["send", "--interface", "lo", "--ttl", "1", "--sap-interval", "0.5", "--compress",
                         "--video", "Bowl Cam=\(Self.sample)@239.255.47.1:47000", "--data", "Scores@239.255.47.2:47002",
                         "--data-interval", "0.2", "--drop-pattern", "every:10", "--duration", "2",
                         "--license", "Test Arena/Test Owner/Test App"]
        let run = try SendProcess.start(namespace: namespace?.name, arguments: arguments)

        var sapMessages: [SAPMessage] = []
        var rtp: [RTPPacket] = []
        var messages: [String] = []
        var quiet = 0
        while run.isRunning || quiet < 20 {
            var got = false
            if let (payload, _) = try sap.receive(timeoutMilliseconds: 5) {
                sapMessages.append(try SAPMessage.parse(payload).get()); got = true
            }
            while let (payload, _) = try video.receive(timeoutMilliseconds: 0) {
                rtp.append(try RTPPacket.parse(payload).get()); got = true
            }
            if let (payload, _) = try data.receive(timeoutMilliseconds: 0) {
                messages.append(String(decoding: try RTPPacket.parse(payload).get().payload, as: UTF8.self)); got = true
            }
            quiet = got || run.isRunning ? 0 : quiet + 1
        }
        let output = run.finish()
        #expect(run.status == 0, "grandstand send: \(output)")

        // SAP: both channels announced (compressed, licensed), then both deleted.
        let announcements = try sapMessages.filter { $0.kind == .announcement }
            .map { ChannelAnnouncement(sdp: try SDPParser.parse($0.payload[...]), sap: $0) }
        #expect(sapMessages.allSatisfy { $0.wasCompressed })
        #expect(sapMessages.allSatisfy { $0.origin == IPAddress(parsing: "127.0.0.1") })
        let bowl = try #require(announcements.first { $0.name == "Bowl Cam" })
        let scores = try #require(announcements.first { $0.name == "Scores" })
        #expect(bowl.kind == .video && bowl.group == IPAddress(parsing: "239.255.47.1") && bowl.port == 47000)
        #expect(scores.kind == .data && scores.port == 47002)
        #expect(bowl.license == LicenseTriplet(venueName: "Test Arena", contentOwner: "Test Owner", appDeveloper: "Test App"))
        #expect((bowl.bandwidthKbps ?? 0) > 850 && (bowl.bandwidthKbps ?? 0) < 950)
        let deleted = Set(sapMessages.filter { $0.kind == .deletion }.map(\.messageIDHash))
        #expect(deleted == [bowl.messageIDHash, scores.messageIDHash])

        let first = try #require(rtp.first)
        // RTP: ~1.5 s of the 900 kbit/s sample, every 10th packet dropped on purpose.
        // "bowl-cam: video 239.255.47.1:47000: SENT packets sent (… MiB), DROPPED dropped"
        let summary = try #require(output.split(separator: "\n").first { $0.hasPrefix("bowl-cam: video") })
        #expect(rtp.count > 90 && rtp.count < 200, "\(rtp.count) RTP packets")
        #expect(summary.contains(": \(rtp.count) packets sent"), "\(summary)")
        let judged = (rtp.last.map { Int($0.sequenceNumber &- first.sequenceNumber) } ?? 0) + 1
        #expect(summary.hasSuffix(", \(judged / 10) dropped") || summary.hasSuffix(", \(judged / 10 + 1) dropped"), "\(summary)")
        for (n, packet) in rtp.enumerated() {
            #expect(packet.payloadType == 33 && packet.ssrc == first.ssrc)
            // Sent sequence k is dropped when (k + 1) % 10 == 0, so received n maps to sent n + n / 9.
            #expect(packet.sequenceNumber == first.sequenceNumber &+ UInt16(n + n / 9))
            #expect(packet.payload.count == 7 * 188)
        }
        // Data: a counter every 0.2 s (every 10th dropped too), as JSON.
        #expect(messages.count >= 5)
        #expect(messages.first?.hasPrefix("{\"channel\":\"Scores\",\"counter\":0,") == true)
    }

    static func receiver(port: UInt16, group: String) throws -> MulticastReceiver {
        let receiver = try MulticastReceiver(port: port, interface: "lo")
        try receiver.join(try #require(IPAddress(parsing: group)))
        return receiver
    }
}

/// `grandstand send` as a child process (in a namespace via `ip netns exec`, under qemu-user via
/// the runner), its output collected.
enum SendProcess {
    static func start(namespace: String?, arguments: [String]) throws -> Child {
        var command = builtProgram("grandstand") + arguments
        if let namespace { command = ["ip", "netns", "exec", namespace] + command }
        return try Child(command)
    }
}
