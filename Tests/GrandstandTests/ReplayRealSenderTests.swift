import Foundation
import GrandstandCore
import TestSupport
import Testing

/// What a technician sees for real senders: captures of VLC's and FFmpeg's own SAP output
/// (tools/fixtures/make-sap-captures.sh) through the whole `replay` path (the same pipeline as
/// `listen` and the daemon), not just the parsers.
struct ReplayRealSenderTests {
    @Test func vlcChannelIsListedAndItsTransportStreamCounted() throws {
        let out = try ReplayTests.replay("discovery/vlc-sap.pcap", config: false, into: "vlc")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let channels = try ReplayTests.json(out + "/channels.json")
        guard case .array(let list) = channels else { Issue.record("channels.json is not an array"); return }
        #expect(list.count == 1)
        let channel = try #require(list.first)
        #expect(channel["id"] == .string("bowl-cam-1"))
        #expect(channel["kind"] == .string("video"))
        #expect(channel["group"] == .string("239.255.1.1"))
        #expect(channel["port"] == .number(5004))
        let stats = try ReplayTests.json(out + "/stats.json")
        let counted = IngestStats.int(stats["channels"]?["bowl-cam-1"]?["packets_received"])
        let tsPackets = IngestStats.int(stats["channels"]?["bowl-cam-1"]?["ts_packets"])
        #expect(counted == 3)
        #expect(tsPackets == 21)
        let written = try ReplayTests.read(out + "/ts/bowl-cam-1.ts")
        #expect(written.count == 21 * 188)
    }

    @Test func ffmpegH264SessionIsUnsupportedWithReasonThenDeleted() throws {
        let out = try ReplayTests.replay("discovery/ffmpeg-sap.pcap", config: false, into: "ffmpeg")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let events = String(decoding: try ReplayTests.read(out + "/events.jsonl"), as: UTF8.self)
            .split(separator: "\n").map(String.init)
        #expect(events.count == 2)
        #expect(events.first?.contains(#""change":"added""#) == true && events.first?.contains(#""kind":"unsupported""#) == true,
                "\(events)")
        #expect(events.last?.contains(#""change":"removed""#) == true && events.last?.contains(#""reason":"deleted""#) == true,
                "\(events)")
        #expect(try ReplayTests.json(out + "/channels.json") == .array([]))
    }
}
