import Foundation
#if canImport(Glibc)
import Glibc
#endif
import GrandstandCore
import TestSupport
import Testing
@testable import GrandstandDaemon
@testable import GrandstandOperations

/// Second paths from real senders (docs/ingest.md, "Two paths"; docs/headends.md): multicast
/// paired with SRT, and one RTP stream on two capture interfaces. Needs root and packet sockets
/// (not qemu-user); elsewhere the configurations are only checked to refuse live capture.
@Suite(.serialized) struct PathPairHeadendTests {
    static let sample = SendEndToEndTests.sample
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func config(state: String, channels: String) -> String {
        """
        {"license":{"venueName":"Test Arena","contentOwner":"Test Owner","appDeveloper":"Test App","required":false},
         "listeners":{"fan":"127.0.0.1:0","management":"127.0.0.1:0"},"management":{"token":"secret"},
         "network":{"interface":"gsv1"},"stateDirectory":"\(state)","channels":[\(channels)]}
        """
    }

    static func stats(_ gateway: NetnsGateway) throws -> JSONValue {
        try JSONParser.parse(Array(try gateway.get("/api/v1/stats", management: true).body))
    }

    static func counter(_ gateway: NetnsGateway, _ id: String, _ key: String) throws -> Int {
        IngestStats.int(try stats(gateway)["channels"]?[id]?[key]) ?? -1
    }

    /// The number of the newest segment in the channel's live playlist (media sequence + count − 1), −1 without one.
    static func newestSegment(_ gateway: NetnsGateway, _ id: String) throws -> Int {
        let reply = try gateway.get("/channels/\(id)/live.m3u8")
        guard reply.status == 200 else { return -1 }
        let lines = reply.text.split(whereSeparator: \.isNewline)
        let sequence = lines.first { $0.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") }.flatMap { Int($0.dropFirst("#EXT-X-MEDIA-SEQUENCE:".count)) } ?? 0
        let count = lines.filter { $0.hasPrefix("#EXTINF") }.count
        return count == 0 ? -1 : sequence + count - 1
    }

    static func kinds(_ gateway: NetnsGateway) -> [String] { gateway.daemon.events.hub.recentKinds }

    static func ffmpeg(_ ns: String, _ output: String, seconds: Int = 60) throws -> Child {
        try Child(["ip", "netns", "exec", ns, "ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-re", "-stream_loop", "-1",
                   "-i", sample, "-t", String(seconds), "-c", "copy", "-f", "mpegts", output])
    }

    /// (a) FFmpeg's plain-UDP MPEG-TS on multicast as the primary, FFmpeg calling the gateway's SRT
    /// listener as the secondary. The primary sender is killed: the output fails over to SRT
    /// (journald `path-failover`, `path-down`, `/health` warning) and keeps making segments; a
    /// new primary sender brings the path back up (`path-up`) while the output stays on SRT.
    @Test func multicastWithAnSRTBackupFailsOverAndTheChannelKeepsPlaying() throws {
        let channel = #"{"name":"Pair","kind":"video","group":"239.255.30.9","port":5040,"transport":"udp","#
            + #""secondary":{"srt":{"url":"srt://:9140","mode":"listener","passphrase":"venue-backup-feed"},"silenceMilliseconds":300}}"#
        try NetnsGateway.run(prefix: "gs-srtpair", config: { Self.config(state: $0, channels: channel) }) { gateway, _ in
            let ns = gateway.namespace.name
            var primary = try Self.ffmpeg(ns, "udp://239.255.30.9:5040?pkt_size=1316&ttl=4")
            let backup = try Self.ffmpeg(ns, "srt://127.0.0.1:9140?mode=caller&passphrase=venue-backup-feed&pbkeylen=16")
            defer { primary.kill(); backup.kill() }
            func report(_ error: any Error) {
                let events = gateway.daemon.events.hub.recentText.joined()
                Issue.record("\(error)\nstats: \((try? gateway.get("/api/v1/stats", management: true).text) ?? "")\nevents: \(events)")
            }
            do {
                try waitFor("segments from the primary, the SRT backup connected", timeout: 120) {
                    try Self.newestSegment(gateway, "pair") >= 1 && Self.counter(gateway, "pair", "srt_connected_current") == 1
                        && Self.counter(gateway, "pair", "path_secondary_packets") > 100
                }
            } catch { report(error); return }
            #expect(try Self.counter(gateway, "pair", "path_secondary_dropped") > 0, "the backup is received but not used")
            #expect(!Self.kinds(gateway).contains("path-failover"))

            // The primary sender dies.
            primary.kill()
            let killed = Date()
            do {
                try waitFor("failover to SRT", timeout: 30) { Self.kinds(gateway).contains("path-failover") }
            } catch { report(error); return }
            let failover = Date().timeIntervalSince(killed)
            print("multicast + SRT: failover \(String(format: "%.2f", failover)) s after the primary sender was killed (silence 300 ms)")
            #expect(Self.kinds(gateway).contains("path-down"))
            // The stats snapshot is published on the ingest thread's next tick, after the event.
            try waitFor("the primary's down event counted", timeout: 10) {
                try Self.counter(gateway, "pair", "path_primary_down_events") >= 1
            }
            #expect(try Self.counter(gateway, "pair", "path_primary_down_events") == 1)
            try waitFor("the health warning", timeout: 30) {
                try gateway.get("/api/v1/health", management: true).text.contains("path-down:pair")
            }
            let atFailover = try Self.newestSegment(gateway, "pair")
            do {
                try waitFor("two more segments from the SRT path", timeout: 60) { try Self.newestSegment(gateway, "pair") >= atFailover + 2 }
            } catch { report(error); return }
            let gaps = try Self.counter(gateway, "pair", "gaps")
            print("multicast + SRT: gaps after the failover: \(gaps) (\(try Self.counter(gateway, "pair", "gap_packets")) TS packets)")

            // The primary returns: up again; the output stays on SRT while SRT delivers.
            primary = try Self.ffmpeg(ns, "udp://239.255.30.9:5040?pkt_size=1316&ttl=4")
            do {
                try waitFor("the primary path up again", timeout: 60) {
                    try Self.kinds(gateway).contains("path-up") && Self.counter(gateway, "pair", "paths_down_current") == 0
                }
            } catch { report(error); return }
            #expect(Self.kinds(gateway).filter { $0 == "path-failover" }.count == 1, "no switch back while SRT delivers")
            let before = try Self.counter(gateway, "pair", "path_primary_dropped")
            try waitFor("the returned primary's datagrams dropped", timeout: 30) {
                try Self.counter(gateway, "pair", "path_primary_dropped") > before + 100
            }
            let decoded = try gateway.decodedFrames("pair")
            #expect(decoded.frames >= 25, "decodes: \(decoded.output)")
        }
    }

    /// (b) One RTP stream (FFmpeg `rtp_mpegts`) sent by tools/redundancy/st2022-7-dup.py to the
    /// same group and port on two networks: veth gsv0→gsv1 (the main interface) and gsv2→gsv3
    /// (`secondary.interface`), the secondary 10 ms behind. Each link in turn is taken down on the
    /// gateway's side until a segment was made without it: hitless (no gap), the path reported
    /// down and up, the capture re-opened. (No random loss here: with one link down, the other's
    /// losses would be real.)
    @Test func twoInterfacesCarryingTheSameGroupAreMergedHitlesslyThroughALinkDown() throws {
        let channel = #"{"name":"Red Blue","kind":"video","group":"239.255.32.8","port":5032,"#
            + #""secondary":{"group":"239.255.32.8","port":5032,"interface":"gsv3"}}"#
        try NetnsGateway.run(prefix: "gs-twoif", config: { Self.config(state: $0, channels: channel) }, before: { namespace in
            try namespace.ip("link", "add", "gsv2", "type", "veth", "peer", "name", "gsv3")
            for (device, host) in [("gsv2", "1"), ("gsv3", "2")] {
                try namespace.ip("addr", "add", "10.201.0.\(host)/24", "dev", device)
                try namespace.ip("link", "set", device, "up")
            }
        }) { gateway, _ in
            let ns = gateway.namespace.name
            let duplicator = try Child(["ip", "netns", "exec", ns, "python3",
                                        Self.repository.appendingPathComponent("tools/redundancy/st2022-7-dup.py").path,
                                        "--listen", "6032", "--primary", "239.255.32.8:5032", "--secondary", "239.255.32.8:5032",
                                        "--primary-interface", "10.200.0.1", "--secondary-interface", "10.201.0.1",
                                        "--lag-ms", "10", "--idle", "2"])
            defer { duplicator.kill() }
            let sender = try Child(["ip", "netns", "exec", ns, "ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-re",
                                    "-stream_loop", "-1", "-i", Self.sample, "-t", "60", "-c", "copy", "-f", "rtp_mpegts",
                                    "rtp://127.0.0.1:6032"])
            defer { sender.kill() }
            func report(_ error: any Error) {
                let events = gateway.daemon.events.hub.recentText.joined()
                Issue.record("\(error)\nstats: \((try? gateway.get("/api/v1/stats", management: true).text) ?? "")\nevents: \(events)")
            }
            do {
                try waitFor("segments, both paths delivering", timeout: 120) {
                    try Self.newestSegment(gateway, "red-blue") >= 1 && Self.counter(gateway, "red-blue", "path_secondary_packets") > 200
                        && Self.counter(gateway, "red-blue", "path_primary_packets") > 200
                }
            } catch { report(error); return }
            #expect(try gateway.namespace.igmpMemberships().contains { $0.device == "gsv3" && $0.group == "239.255.32.8" },
                    "joined on the second interface")
            let health = try gateway.get("/api/v1/health", management: true).text
            #expect(health.contains("\"interface\":\"gsv3\"") && health.contains("\"capturing\":true"), "\(health)")

            for (link, path) in [("gsv3", "secondary"), ("gsv1", "primary")] {
                let downEvents = try Self.counter(gateway, "red-blue", "path_\(path)_down_events")
                try gateway.namespace.ip("link", "set", link, "down")
                let taken = Date()
                do {
                    try waitFor("the \(path) path down", timeout: 30) {
                        try Self.counter(gateway, "red-blue", "path_\(path)_down_events") == downEvents + 1
                    }
                } catch { report(error); return }
                print("two interfaces: \(link) down, \(path) path reported down after \(String(format: "%.2f", Date().timeIntervalSince(taken))) s")
                let atDown = try Self.newestSegment(gateway, "red-blue")
                do {
                    try waitFor("a segment while \(link) is down", timeout: 30) { try Self.newestSegment(gateway, "red-blue") > atDown }
                } catch { report(error); return }
                try gateway.namespace.ip("link", "set", link, "up")
                do {
                    try waitFor("the \(path) path up again", timeout: 60) { try Self.counter(gateway, "red-blue", "paths_down_current") == 0 }
                } catch { report(error); return }
            }
            let stats = try Self.stats(gateway)["channels"]?["red-blue"]
            func count(_ key: String) -> Int { IngestStats.int(stats?[key]) ?? -1 }
            print("two interfaces: gaps \(count("gaps")), duplicates \(count("path_primary_duplicates"))+\(count("path_secondary_duplicates"))")
            #expect(count("gaps") == 0 && count("gap_packets") == 0, "hitless: \(String(describing: stats))")
            #expect(count("path_primary_duplicates") + count("path_secondary_duplicates") > 0)
            #expect(count("path_refused_current") == 0)
            #expect(Self.kinds(gateway).contains("capture-down") && Self.kinds(gateway).contains("capture-up"))
            let decoded = try gateway.decodedFrames("red-blue")
            #expect(decoded.frames >= 25, "decodes: \(decoded.output)")
        }
    }
}
