import Foundation
#if canImport(Glibc)
import Glibc
#endif
import GrandstandCore
import TestSupport
import Testing

/// SMPTE ST 2022-7 from a real RTP sender (docs/headends.md): FFmpeg's `rtp_mpegts` muxer at its
/// defaults feeds tools/redundancy/st2022-7-dup.py, which sends every datagram unchanged to two
/// groups (a 2022-7 sender's two outputs; no Debian package sends 2022-7 itself). Each path loses
/// packets the other delivers, the secondary lags 20 ms, and the primary goes silent for 3 s.
/// The channel plays with no gap, the primary is reported down and back up, and the HLS decodes.
/// Needs root and packet sockets (not qemu-user).
@Suite(.serialized) struct DualPathHeadendTests {
    static let sample = SendEndToEndTests.sample
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func config(state: String) -> String {
        """
        {"license":{"venueName":"Test Arena","contentOwner":"Test Owner","appDeveloper":"Test App","required":false},
         "listeners":{"fan":"127.0.0.1:0","management":"127.0.0.1:0"},"management":{"token":"secret"},
         "network":{"interface":"gsv1"},"stateDirectory":"\(state)",
         "channels":[{"name":"Dual","kind":"video","group":"239.255.30.8","port":5030,
                      "secondary":{"group":"239.255.31.8","port":5030}}]}
        """
    }

    @Test func lossOnEitherPathAndAPathOutageAreHitless() throws {
        try NetnsGateway.run(prefix: "gs-dual", config: { Self.config(state: $0) }) { gateway, work in
            let ns = gateway.namespace.name
            let duplicator = try Child(["ip", "netns", "exec", ns, "python3",
                                        Self.repository.appendingPathComponent("tools/redundancy/st2022-7-dup.py").path,
                                        "--listen", "6030", "--primary", "239.255.30.8:5030", "--secondary", "239.255.31.8:5030",
                                        "--drop-primary", "20:3", "--drop-secondary", "20:13", "--lag-ms", "20",
                                        "--primary-off", "4:7", "--idle", "2"])
            defer { duplicator.kill() }
            let ffmpeg = try Child(["ip", "netns", "exec", ns, "ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-re",
                                    "-i", Self.sample, "-t", "12", "-c", "copy", "-f", "rtp_mpegts", "rtp://127.0.0.1:6030"])
            defer { ffmpeg.kill() }

            func stats() throws -> JSONValue { try JSONParser.parse(Array(try gateway.get("/api/v1/stats", management: true).body)) }
            func value(_ key: String) throws -> Int { IngestStats.int(try stats()["channels"]?["dual"]?[key]) ?? -1 }
            do {
                // The outage (4–7 s) is over and the primary is back: down once, up again.
                try waitFor("the primary path down and back", timeout: 120) {
                    try value("path_primary_down_events") == 1 && value("paths_down_current") == 0
                }
            } catch {
                Issue.record("\(error)\nstats: \(try gateway.get("/api/v1/stats", management: true).text)\nffmpeg: \(ffmpeg.finish())\ndup: \(duplicator.finish())")
                return
            }
            let summary = duplicator.output(containing: "st2022-7-dup:", timeout: 60)
            #expect(summary.contains("primary_dropped=") && !summary.contains("primary_dropped=0 "), "\(summary)")
            let channel = try stats()["channels"]?["dual"]
            func count(_ key: String) -> Int { IngestStats.int(channel?[key]) ?? -1 }
            #expect(count("gaps") == 0 && count("gap_packets") == 0, "hitless: \(String(describing: channel))")
            #expect(count("path_secondary_duplicates") > 0 || count("path_primary_duplicates") > 0)
            #expect(count("path_refused_current") == 0)
            #expect(count("path_primary_packets") < count("path_secondary_packets"), "the primary lost its outage and its drops")

            let decoded = try gateway.decodedFrames("dual")
            #expect(decoded.frames >= 25, "decodes: \(decoded.output)")
        }
    }
}
