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
    static var binary: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("grandstand").path
    }

    @Test func sendsAnnouncementsVideoAndDataThatParseBack() throws {
        if TestEnvironment.isQEMUUser {
            // qemu-user 7.2 does not translate IP_MULTICAST_IF: the command must say so and stop.
            let run = try SendProcess(namespace: nil, arguments: [
                "send", "--interface", "lo", "--video", "Bowl=\(Self.sample)@239.255.47.1:47000", "--duration", "1"])
            let output = run.finish()
            #expect(run.status == 1)
            #expect(output.contains("grandstand send: setsockopt(IP_MULTICAST_IF): Protocol not available (errno 92)"), "\(output)")
            return
        }
        let namespace = TestEnvironment.isRoot && !TestEnvironment.isQEMUUser ? try PrivateNetwork() : nil
        defer { namespace?.remove() }
        let sap = try namespace.map { try $0.inside { try SendEndToEndTests.receiver(port: 9875, group: "239.255.255.255") } }
            ?? SendEndToEndTests.receiver(port: 9875, group: "239.255.255.255")
        let video = try namespace.map { try $0.inside { try SendEndToEndTests.receiver(port: 47000, group: "239.255.47.1") } }
            ?? SendEndToEndTests.receiver(port: 47000, group: "239.255.47.1")
        let data = try namespace.map { try $0.inside { try SendEndToEndTests.receiver(port: 47002, group: "239.255.47.2") } }
            ?? SendEndToEndTests.receiver(port: 47002, group: "239.255.47.2")

        let arguments = ["send", "--interface", "lo", "--ttl", "1", "--sap-interval", "0.5", "--compress",
                         "--video", "Bowl Cam=\(Self.sample)@239.255.47.1:47000", "--data", "Scores@239.255.47.2:47002",
                         "--data-interval", "0.2", "--drop-pattern", "every:10", "--duration", "2",
                         "--license", "Test Arena/Test Owner/Test App"]
        let run = try SendProcess(namespace: namespace?.name, arguments: arguments)

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

/// A named network namespace with lo up and IPv4 multicast routed to it (needs root).
final class PrivateNetwork {
    let name = "gs-send-\(getpid())"

    init() throws {
        try PrivateNetwork.ip(["netns", "add", name])
        try PrivateNetwork.ip(["-n", name, "link", "set", "lo", "up"])
        try PrivateNetwork.ip(["-n", name, "route", "add", "224.0.0.0/4", "dev", "lo"])
    }

    func remove() { try? PrivateNetwork.ip(["netns", "del", name]) }

    /// Runs `body` with this thread in the namespace: sockets it creates stay there.
    func inside<R>(_ body: () throws -> R) throws -> R {
        let original = open("/proc/thread-self/ns/net", O_RDONLY)
        let target = open("/run/netns/\(name)", O_RDONLY)
        defer { close(original); close(target) }
        guard original >= 0, target >= 0, PrivateNetwork.setns(target) == 0 else {
            throw PrivateNetworkError(message: "setns into \(name): errno \(errno)")
        }
        defer { _ = PrivateNetwork.setns(original) }
        return try body()
    }

    /// setns(2) for CLONE_NEWNET; Glibc's module map leaves the _GNU_SOURCE declaration out.
    static func setns(_ fd: Int32) -> Int32 {
        typealias SetNS = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(nil, "setns") else { return -1 }
        return unsafeBitCast(symbol, to: SetNS.self)(fd, 0x4000_0000)   // CLONE_NEWNET
    }

    static func ip(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PrivateNetworkError(message: "ip \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
        }
    }
}

struct PrivateNetworkError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// `grandstand send` as a child process (in a namespace via `ip netns exec`, under qemu-user via
/// the runner), its output collected.
final class SendProcess {
    let process = Process()
    private let output = Pipe()

    init(namespace: String?, arguments: [String]) throws {
        var command = [SendEndToEndTests.binary] + arguments
        if let runner = ProcessInfo.processInfo.environment["GRANDSTAND_QEMU_USER_RUNNER"] { command.insert(runner, at: 0) }
        if let namespace { command = ["/usr/sbin/ip", "netns", "exec", namespace] + command }
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.standardOutput = output
        process.standardError = output
        try process.run()
    }

    var isRunning: Bool { process.isRunning }
    var status: Int32 { process.terminationStatus }

    /// Waits for exit and returns stdout + stderr.
    func finish() -> String {
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
