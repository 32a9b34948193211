import Foundation
#if canImport(Glibc)
import Glibc
#endif
import GrandstandCore
import TestSupport
import Testing

/// A headend multiplex (docs/headends.md): FFmpeg muxes three programs into one transport stream
/// with a DVB SDT naming them, sent live over plain UDP as `udp://GROUP:PORT` at FFmpeg's
/// defaults. The daemon lists one channel per program under its service name, the multiplex as
/// kind `multiplex`, and each program's live playlist holds only its own streams and decodes
/// alone in FFmpeg. Needs root and packet sockets (not qemu-user).
@Suite(.serialized) struct MultiplexHeadendTests {
    static let programs = [("bowl-cam", "Bowl Cam", 101), ("tunnel-cam", "Tunnel Cam", 102), ("stadium-radio", "Stadium Radio", 103)]
    /// What ffprobe must find in each program's playlist, in stream order.
    static let streams = ["bowl-cam": ["video", "audio"], "tunnel-cam": ["video"], "stadium-radio": ["audio"]]

    static func config(state: String) -> String {
        """
        {"license":{"venueName":"Test Arena","contentOwner":"Test Owner","appDeveloper":"Test App","required":false},
         "listeners":{"fan":"127.0.0.1:0","management":"127.0.0.1:0"},"management":{"token":"secret"},
         "network":{"interface":"gsv1"},"stateDirectory":"\(state)",
         "channels":[{"name":"Venue Mux","kind":"video","group":"239.255.30.5","port":5010,"transport":"udp"}]}
        """
    }

    /// FFmpeg as a headend: two cameras and a radio service, encoded live, one multiplex.
    static func headend(namespace: String) -> [String] {
        let x264 = "keyint=25:min-keyint=25:scenecut=0"
        return ["ip", "netns", "exec", namespace, "ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin",
                "-re", "-f", "lavfi", "-i", "testsrc=size=320x180:rate=25:duration=40",
                "-re", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=40",
                "-re", "-f", "lavfi", "-i", "smptebars=size=320x180:rate=25:duration=40",
                "-re", "-f", "lavfi", "-i", "sine=frequency=660:sample_rate=48000:duration=40",
                "-map", "0:v", "-map", "1:a", "-map", "2:v", "-map", "3:a",
                "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-x264-params", x264, "-pix_fmt", "yuv420p",
                "-c:a", "aac", "-b:a", "64k", "-ac", "1"]
            + programs.enumerated().flatMap { index, program in
                ["-program", "program_num=\(program.2):title=\(program.1):" + (index == 0 ? "st=0:st=1" : "st=\(index + 1)")]
            }
            + ["-f", "mpegts", "udp://239.255.30.5:5010"]
    }

    @Test func eachProgramOfALiveMultiplexIsAChannelThatDecodesAlone() throws {
        try NetnsGateway.run(prefix: "gs-mux", config: { Self.config(state: $0) }) { gateway, work in
            let ns = gateway.namespace.name
            let ffmpeg = try Child(Self.headend(namespace: ns))
            defer { ffmpeg.kill() }

            do {
                try gateway.waitForSegments(Self.programs.map(\.0))
            } catch {
                let listed = try gateway.get("/channels.json").text
                let stats = try gateway.get("/api/v1/stats", management: true).text
                ffmpeg.kill()
                Issue.record("\(error)\nchannels: \(listed)\nstats: \(stats)\nffmpeg: \(ffmpeg.finish())")
                return
            }
            let channels = try JSONParser.parse(Array(try gateway.get("/api/v1/channels", management: true).body))
            guard case .array(let list) = channels else { Issue.record("channels: \(channels)"); return }
            let mux = list.first { $0["id"] == .string("venue-mux") }
            #expect(mux?["kind"] == .string("multiplex"), "\(String(describing: mux))")
            #expect(mux?["programs"] == .array(Self.programs.map { .string($0.0) }))
            for (id, name, number) in Self.programs {
                let channel = list.first { $0["id"] == .string(id) }
                #expect(channel?["kind"] == .string("video") && channel?["name"] == .string(name), "\(String(describing: channel))")
                #expect(channel?["multiplex"] == .string("venue-mux") && channel?["programNumber"] == .number(Double(number)))
            }

            // Fans see the programs, not the multiplex.
            let fan = try JSONParser.parse(Array(try gateway.get("/channels.json").body))
            guard case .array(let fanList) = fan else { Issue.record("channels.json: \(fan)"); return }
            let fanIDs = fanList.compactMap { item -> String? in if case .string(let id)? = item["id"] { id } else { nil } }
            #expect(Set(fanIDs) == Set(Self.programs.map(\.0)), "\(fanIDs)")

            // FFmpeg reads each program's live playlist from the fan listener: only its streams, decoded.
            for (id, _, _) in Self.programs {
                let url = "http://127.0.0.1:\(gateway.status.fan.port)/channels/\(id)/live.m3u8"
                let probe = try runCommand(["ip", "netns", "exec", ns, "ffprobe", "-v", "error", "-read_intervals", "%+3",
                                            "-count_frames", "-show_entries", "stream=codec_type,nb_read_frames",
                                            "-of", "csv=p=0", url])
                // ffprobe lists each stream once per program it is in and once alone: keep the first set.
                let rows = probe.split(whereSeparator: \.isNewline).map { $0.split(separator: ",") }
                let expected = Self.streams[id] ?? []
                let first = Array(rows.prefix(expected.count))
                #expect(first.map { String($0.first ?? "") } == expected, "\(id): \(probe)")
                #expect(rows.count % max(expected.count, 1) == 0, "\(id) carries no other program's streams: \(probe)")
                for row in first {
                    #expect((row.count > 1 ? Int(row[1]) ?? 0 : 0) >= 25, "\(id) decodes: \(probe)")
                }
            }
        }
    }
}
