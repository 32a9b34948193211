import Foundation
#if canImport(Glibc)
import Glibc
#endif
import GrandstandCore
import TestSupport
import Testing

/// MPEG-TS over plain UDP from real senders at their default settings (docs/headends.md): FFmpeg's
/// `-f mpegts udp://GROUP:PORT` into a static channel with `"transport":"udp"`, and VLC's
/// `#standard{access=udp,mux=ts,sap}` discovered by its SAP announcement (`m=video PORT udp mpeg`).
/// Both senders run in a private network namespace beside the daemon; the channels' live
/// playlists must decode in FFmpeg. Needs root and packet sockets (not qemu-user).
@Suite(.serialized) struct PlainUDPHeadendTests {
    static let sample = SendEndToEndTests.sample

    static func config(state: String) -> String {
        """
        {"license":{"venueName":"Test Arena","contentOwner":"Test Owner","appDeveloper":"Test App","required":false},
         "listeners":{"fan":"127.0.0.1:0","management":"127.0.0.1:0"},"management":{"token":"secret"},
         "network":{"interface":"gsv1"},"stateDirectory":"\(state)",
         "channels":[{"name":"FFmpeg UDP","kind":"video","group":"239.255.30.1","port":5004,"transport":"udp"}]}
        """
    }

    @Test func ffmpegAndVLCPlainUDPStreamsAreServedAsHLS() throws {
        try NetnsGateway.run(prefix: "gs-udp", config: { Self.config(state: $0) }) { gateway, work in
            let ns = gateway.namespace.name
            // VLC refuses to run as root: as nobody, with the input and a home it can read.
            chmod(work, 0o755)
            try FileManager.default.createDirectory(atPath: work + "/home", withIntermediateDirectories: true)
            _ = try runCommand(["chown", "nobody", work + "/home"])
            _ = try runCommand(["install", "-m", "644", Self.sample, work + "/in.ts"])
            let ffmpeg = try Child(["ip", "netns", "exec", ns, "ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-re",
                                    "-i", Self.sample, "-c", "copy", "-f", "mpegts", "udp://239.255.30.1:5004"])
            defer { ffmpeg.kill() }
            let vlc = try Child(["ip", "netns", "exec", ns, "setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                                 "env", "HOME=\(work)/home", "cvlc", "-q", "--intf", "dummy", "--sout-keep", work + "/in.ts",
                                 "--sout", #"#standard{access=udp,mux=ts,dst=239.255.30.2:5006,sap,name="VLC UDP"}"#])
            defer { vlc.kill() }

            // Both listed as video over udp, and each live playlist has two segments (4 s of the
            // 20 s sample, played once: a looping sender restarts its continuity counters, which on
            // plain UDP is indistinguishable from loss).
            do {
                try gateway.waitForSegments(["ffmpeg-udp", "vlc-udp"])
            } catch {
                let listed = try gateway.get("/channels.json").text
                let stats = try gateway.get("/api/v1/stats", management: true).text
                ffmpeg.kill()
                vlc.kill()
                Issue.record("\(error)\nchannels: \(listed)\nstats: \(stats)\nffmpeg: \(ffmpeg.finish())\nvlc: \(vlc.finish())")
                return
            }
            let channels = try JSONParser.parse(Array(try gateway.get("/api/v1/channels", management: true).body))
            guard case .array(let list) = channels else { Issue.record("channels.json: \(channels)"); return }
            for id in ["ffmpeg-udp", "vlc-udp"] {
                let channel = list.first { $0["id"] == .string(id) }
                #expect(channel?["kind"] == .string("video") && channel?["transport"] == .string("udp"), "\(String(describing: channel))")
            }
            let stats = try JSONParser.parse(Array(try gateway.get("/api/v1/stats", management: true).body))
            for id in ["ffmpeg-udp", "vlc-udp"] {
                #expect((IngestStats.int(stats["channels"]?[id]?["ts_packets"]) ?? 0) > 1_000)
                #expect(IngestStats.int(stats["channels"]?[id]?["gaps"]) == 0, "a clean veth loses nothing")
                #expect(IngestStats.int(stats["channels"]?[id]?["rtp_packets_lost"]) == 0)
            }
            // FFmpeg plays each live playlist from the fan listener: 3 s of video, decoded.
            for id in ["ffmpeg-udp", "vlc-udp"] {
                let decoded = try gateway.decodedFrames(id)
                #expect(decoded.frames >= 25, "\(id): \(decoded.output)")
            }
        }
    }
}
