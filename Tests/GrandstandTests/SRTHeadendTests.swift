import Foundation
#if canImport(Glibc)
import Glibc
#endif
import GrandstandCore
import SRT
@testable import GrandstandDaemon
import TestSupport
import Testing
@testable import GrandstandOperations

/// SRT inputs from real peers (docs/headends.md): FFmpeg (`-f mpegts srt://…`) and
/// `srt-live-transmit`, each as caller and as listener against the gateway's listener and caller,
/// encrypted. The peers run in the gateway's network namespace over its loopback; every
/// channel's live playlist must decode in FFmpeg. Needs root (not qemu-user).
@Suite(.serialized) struct SRTHeadendTests {
    static let sample = SendEndToEndTests.sample
    static let passphrase = "venue-backup-feed"

    static func config(state: String, channels: String) -> String {
        """
        {"license":{"venueName":"Test Arena","contentOwner":"Test Owner","appDeveloper":"Test App","required":false},
         "listeners":{"fan":"127.0.0.1:0","management":"127.0.0.1:0"},"management":{"token":"secret"},
         "network":{"interface":"gsv1"},"stateDirectory":"\(state)","channels":[\(channels)]}
        """
    }

    static func channel(_ name: String, _ url: String, _ mode: String, passphrase: String = Self.passphrase) -> String {
        #"{"name":"\#(name)","kind":"video","srt":{"url":"\#(url)","mode":"\#(mode)","passphrase":"\#(passphrase)"}}"#
    }

    static func stats(_ gateway: NetnsGateway) throws -> JSONValue {
        try JSONParser.parse(Array(try gateway.get("/api/v1/stats", management: true).body))
    }

    static func segments(_ gateway: NetnsGateway, _ id: String) throws -> Int {
        let reply = try gateway.get("/channels/\(id)/live.m3u8")
        return reply.status == 200 ? reply.text.components(separatedBy: "#EXTINF").count - 1 : 0
    }

    @Test func ffmpegAndSrtLiveTransmitInBothModesAreServedAsHLS() throws {
        let channels = [Self.channel("FFmpeg caller", "srt://:9101", "listener"),
                        Self.channel("FFmpeg listener", "srt://127.0.0.1:9102", "caller"),
                        Self.channel("SLT caller", "srt://:9103", "listener"),
                        Self.channel("SLT listener", "srt://127.0.0.1:9104", "caller")].joined(separator: ",")
        try NetnsGateway.run(prefix: "gs-srt", config: { Self.config(state: $0, channels: channels) }) { gateway, _ in
            let ns = gateway.namespace.name
            let secret = "passphrase=\(Self.passphrase)&pbkeylen=16"
            func ffmpeg(_ output: String) throws -> Child {
                try Child(["ip", "netns", "exec", ns, "ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-re",
                           "-i", Self.sample, "-c", "copy", "-f", "mpegts", output])
            }
            let started = Date()
            var peers = [try ffmpeg("srt://127.0.0.1:9101?mode=caller&\(secret)"),
                         try ffmpeg("srt://127.0.0.1:9102?mode=listener&\(secret)")]
            for (udp, srt) in [(9203, "srt://127.0.0.1:9103?\(secret)"), (9204, "srt://:9104?mode=listener&\(secret)")] {
                peers.append(try Child(["ip", "netns", "exec", ns, "srt-live-transmit", "-q", "udp://127.0.0.1:\(udp)", srt]))
                peers.append(try ffmpeg("udp://127.0.0.1:\(udp)?pkt_size=1316"))
            }
            defer { for peer in peers { peer.kill() } }

            let ids = ["ffmpeg-caller", "ffmpeg-listener", "slt-caller", "slt-listener"]
            var firstSegment: [String: Double] = [:]
            do {
                try waitFor("four SRT channels with two segments", timeout: 120) {
                    for id in ids where firstSegment[id] == nil {
                        if try Self.segments(gateway, id) >= 1 { firstSegment[id] = Date().timeIntervalSince(started) }
                    }
                    return try ids.allSatisfy { try Self.segments(gateway, $0) >= 2 }
                }
            } catch {
                for peer in peers { peer.kill() }
                let stats = try gateway.get("/api/v1/stats", management: true).text
                let events = gateway.daemon.events.hub.recentText.joined()
                Issue.record("\(error)\nstats: \(stats)\nevents: \(events)\npeers: \(peers.map { $0.finish() })")
                return
            }
            let firsts = ids.map { "\($0) \(String(format: "%.1f", firstSegment[$0] ?? -1))" }
            print("SRT time to first segment (s): \(firsts.joined(separator: ", "))")
            let stats = try Self.stats(gateway)
            for id in ids {
                let channel = stats["channels"]?[id]
                #expect((IngestStats.int(channel?["ts_packets"]) ?? 0) > 1_000, "\(id)")
                #expect(IngestStats.int(channel?["gaps"]) == 0, "\(id): loopback loses nothing")
                #expect(IngestStats.int(channel?["srt_connected_current"]) == 1, "\(id)")
                #expect((IngestStats.int(channel?["srt_packets_received"]) ?? 0) > 100, "\(id)")
                #expect(IngestStats.int(channel?["srt_packets_undecrypted"]) == 0, "\(id)")
            }
            let listed = try JSONParser.parse(Array(try gateway.get("/api/v1/channels", management: true).body))
            guard case .array(let list) = listed else { Issue.record("channels: \(listed)"); return }
            for id in ids {
                let channel = list.first { $0["id"] == .string(id) }
                #expect(channel?["transport"] == .string("srt") && channel?["srt"]?["encrypted"] == .bool(true),
                        "\(String(describing: channel))")
            }
            #expect(gateway.daemon.events.hub.recentKinds.filter { $0 == "srt-connected" }.count >= 4)
            for id in ids {
                let decoded = try gateway.decodedFrames(id)
                #expect(decoded.frames >= 25, "\(id): \(decoded.output)")
            }
        }
    }

    /// A wrong passphrase is refused on both sides with the reason in the journal; a peer that
    /// sends garbage is counted and dropped; a peer that stalls is disconnected after the idle
    /// timeout; and the channel still plays from the next good peer.
    @Test func wrongPassphraseGarbageAndAStallAreSurvived() throws {
        let channels = [Self.channel("Guarded", "srt://:9111", "listener"),
                        Self.channel("Outbound", "srt://127.0.0.1:9112", "caller")].joined(separator: ",")
        try NetnsGateway.run(prefix: "gs-srtbad", config: { Self.config(state: $0, channels: channels) }) { gateway, _ in
            let ns = gateway.namespace.name
            func refusals() -> [String] {
                gateway.daemon.events.hub.recentText.filter { $0.contains("event: srt-refused") }
            }
            // Wrong passphrase: FFmpeg calling our listener, and our caller calling FFmpeg's listener.
            let intruder = try ffmpeg(ns, "srt://127.0.0.1:9111?mode=caller&passphrase=not-the-venue-secret")
            let impostor = try ffmpeg(ns, "srt://127.0.0.1:9112?mode=listener&passphrase=not-the-venue-secret")
            defer { intruder.kill(); impostor.kill() }
            try waitFor("both refusals journaled", timeout: 30) {
                refusals().contains { $0.contains("guarded") } && refusals().contains { $0.contains("outbound") }
            }
            #expect(refusals().contains { $0.contains("guarded") && $0.contains("BADSECRET") }, "\(refusals())")
            #expect(refusals().contains { $0.contains("outbound") && $0.contains("Incorrect passphrase") }, "\(refusals())")
            intruder.kill()
            impostor.kill()

            // Garbage from a peer with the right passphrase: counted, dropped, no segment.
            var garbage: SRTSocket? = try gateway.namespace.enter { () throws -> SRTSocket in
                let socket = try SRTSocket(settings: SRTSettings(passphrase: Self.passphrase))
                try socket.connect(try SRTAddress.resolve(host: "127.0.0.1", port: 9111))
                try waitFor("the garbage peer connected", timeout: 10) { try socket.waitConnected(timeoutMilliseconds: 50) }
                var random = SystemRandomNumberGenerator()
                for _ in 0..<300 {
                    let junk = (0..<1316).map { _ in UInt8.random(in: 0...255, using: &random) }
                    _ = try socket.send(junk[...])
                }
                return socket
            }
            try waitFor("the garbage counted", timeout: 20) {
                (IngestStats.int(try Self.stats(gateway)["channels"]?["guarded"]?["packets_received"]) ?? 0) >= 300
            }
            let afterGarbage = try Self.stats(gateway)["channels"]?["guarded"]
            #expect((IngestStats.int(afterGarbage?["drops"]?["ts_lost_sync"]) ?? 0) > 0, "\(String(describing: afterGarbage))")
            #expect(try Self.segments(gateway, "guarded") == 0, "garbage makes no segment")
            // A second caller while the first is connected is refused (one peer at a time).
            let second = try ffmpeg(ns, "srt://127.0.0.1:9111?mode=caller&passphrase=\(Self.passphrase)")
            defer { second.kill() }
            try waitFor("the second caller refused", timeout: 30) {
                (IngestStats.int(try Self.stats(gateway)["channels"]?["guarded"]?["srt_peers_refused"]) ?? 0) >= 1
            }
            second.kill()
            garbage = nil   // closed: the gateway sees the connection end and listens again
            _ = garbage

            // A good peer plays; frozen (SIGSTOP), it is disconnected after the peer idle timeout.
            let good = try ffmpeg(ns, "srt://127.0.0.1:9111?mode=caller&passphrase=\(Self.passphrase)")
            defer { good.kill() }
            try waitFor("a segment from the good peer", timeout: 60) { try Self.segments(gateway, "guarded") >= 1 }
            let disconnects = gateway.daemon.events.hub.recentKinds.filter { $0 == "srt-disconnected" }.count
            Glibc.kill(good.process.processIdentifier, SIGSTOP)
            defer { Glibc.kill(good.process.processIdentifier, SIGCONT) }
            let frozen = Date()
            try waitFor("the frozen peer disconnected", timeout: 30) {
                gateway.daemon.events.hub.recentKinds.filter { $0 == "srt-disconnected" }.count > disconnects
            }
            print("SRT frozen peer disconnected after \(String(format: "%.1f", Date().timeIntervalSince(frozen))) s")
            #expect(IngestStats.int(try Self.stats(gateway)["channels"]?["guarded"]?["srt_connected_current"]) == 0)
            #expect(try Self.segments(gateway, "guarded") >= 1, "the playlist stays")
        }
    }

    /// A lossy link (tools/srt/lossy-relay.py: 3 % loss each way, 30 ms each way; the kernel here
    /// has no netem): with a latency well above the round trip SRT's retransmissions repair every
    /// loss (lost > 0, dropped 0, no gap); with a latency below it packets arrive too late, are
    /// dropped by libsrt, and show as gaps found from the TS continuity counters.
    @Test func lossOnTheLinkIsRepairedWithinTheLatencyAndAGapBeyondIt() throws {
        let channels = #"{"name":"Patient","kind":"video","srt":{"url":"srt://:9120","mode":"listener","latencyMilliseconds":600}},"#
            + #"{"name":"Hasty","kind":"video","srt":{"url":"srt://:9130","mode":"listener","latencyMilliseconds":20}}"#
        try NetnsGateway.run(prefix: "gs-srtloss", config: { Self.config(state: $0, channels: channels) }) { gateway, _ in
            let ns = gateway.namespace.name
            let relay = URL(fileURLWithPath: Self.sample).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("srt/lossy-relay.py").path
            var children: [Child] = []
            defer { for child in children { child.kill() } }
            for (port, latency) in [(9120, 600_000), (9130, 20_000)] {
                children.append(try Child(["ip", "netns", "exec", ns, "python3", relay, "--listen", String(port + 1), "--to", String(port),
                                           "--loss", "0.03", "--delay-ms", "30", "--seconds", "90", "--seed", String(port)]))
                _ = children.last?.output(containing: "relay 127.0.0.1", timeout: 10)
                children.append(try ffmpeg(ns, "srt://127.0.0.1:\(port + 1)?mode=caller&latency=\(latency)"))
            }
            func channel(_ id: String) throws -> JSONValue? { try Self.stats(gateway)["channels"]?[id] }
            try waitFor("loss on both links, repaired on one", timeout: 90) {
                let patient = try channel("patient"), hasty = try channel("hasty")
                return try Self.segments(gateway, "patient") >= 3 && (IngestStats.int(patient?["srt_packets_lost"]) ?? 0) > 0
                    && (IngestStats.int(hasty?["srt_packets_dropped"]) ?? 0) > 0 && (IngestStats.int(hasty?["gaps"]) ?? 0) > 0
            }
            let patient = try channel("patient"), hasty = try channel("hasty")
            print("SRT lossy link, latency 600 ms: \(Self.srtCounters(patient)); latency 20 ms: \(Self.srtCounters(hasty))")
            #expect(IngestStats.int(patient?["srt_packets_dropped"]) == 0, "\(Self.srtCounters(patient))")
            #expect(IngestStats.int(patient?["gaps"]) == 0, "\(Self.srtCounters(patient))")
            #expect((IngestStats.int(patient?["srt_rtt_ms"]) ?? 0) >= 60, "two 30 ms hops each way")
        }
    }

    static func srtCounters(_ channel: JSONValue?) -> String {
        ["srt_packets_received", "srt_packets_lost", "srt_packets_retransmitted", "srt_packets_dropped", "gaps", "gap_packets", "srt_rtt_ms"]
            .map { "\($0)=\(IngestStats.int(channel?[$0]) ?? -1)" }.joined(separator: " ")
    }

    /// FFmpeg sending the sample as MPEG-TS to `output` from inside namespace `ns`.
    func ffmpeg(_ ns: String, _ output: String) throws -> Child {
        try Child(["ip", "netns", "exec", ns, "ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-re",
                   "-i", Self.sample, "-c", "copy", "-f", "mpegts", output])
    }
}
