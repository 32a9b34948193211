import Foundation
import GrandstandCore
import TestSupport
import Testing
@testable import GrandstandServing

/// Video health in replay's stats.json (libavcodec decode of each video channel, inline so the
/// counters are deterministic) and in the live gateway's channel statistics.
@Suite(.serialized) struct VideoHealthReplayTests {
    static func counter(_ stats: JSONValue, _ id: String, _ key: String) -> Int? {
        guard case .number(let value)? = stats["channels"]?[id]?[key] else { return nil }
        return Int(value)
    }

    @Test func cleanCaptureDropsNoFrames() throws {
        let capture = ReplayTests.scratch("health-clean.pcap")
        try StreamCapture.write(capture, ts: try ReplayTests.read(StreamCapture.sample))
        defer { try? FileManager.default.removeItem(atPath: capture) }
        let out = try StreamCapture.replay(capture, into: "health-clean")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let id = try StreamCapture.channelID(out)
        let stats = try ReplayTests.json(out + "/stats.json")
        #expect(Self.counter(stats, id, "num_dropped_video_frames") == 0)
        #expect(Self.counter(stats, id, "num_decode_errors") == 0)
        #expect(Self.counter(stats, id, "video_frames_decoded") == 500)
        #expect(Self.counter(stats, id, "video_access_units") == 500)
        #expect(stats["total"]?["num_dropped_video_frames"] == .number(0))
        #expect(stats["total"]?["video_frames_decoded"] == .number(500))
    }

    /// RTP packets lost without FEC: frames are dropped and counted, the same in every run.
    @Test func lossIsCountedAndReplayStaysDeterministic() throws {
        let capture = ReplayTests.scratch("health-loss.pcap")
        try StreamCapture.write(capture, ts: try ReplayTests.read(StreamCapture.sample), loss: .indices([300...300, 900...902]))
        defer { try? FileManager.default.removeItem(atPath: capture) }
        let first = try StreamCapture.replay(capture, into: "health-loss-1")
        let second = try StreamCapture.replay(capture, into: "health-loss-2")
        defer {
            try? FileManager.default.removeItem(atPath: first)
            try? FileManager.default.removeItem(atPath: second)
        }
        let id = try StreamCapture.channelID(first)
        let stats = try ReplayTests.json(first + "/stats.json")
        let dropped = try #require(Self.counter(stats, id, "num_dropped_video_frames"))
        #expect(dropped > 0)
        #expect(dropped < 60)   // two losses cost at most the rest of their GOPs (25 frames each) plus the hit ones
        let lost = Self.counter(stats, id, "video_frames_lost") ?? 0
        let damaged = Self.counter(stats, id, "video_frames_damaged") ?? 0
        let missing = Self.counter(stats, id, "video_frames_missing_reference") ?? 0
        #expect(lost + damaged >= 2)
        #expect(lost + damaged + missing == dropped)
        #expect(Self.counter(stats, id, "video_frames_skipped") == 0)
        #expect(Self.counter(stats, id, "video_frames_decoded") == 500 - lost - missing)
        #expect(try ReplayTests.read(first + "/stats.json") == (try ReplayTests.read(second + "/stats.json")))
    }

    @Test func switchedOffInTheConfigurationLeavesTheKeysOut() throws {
        let capture = ReplayTests.scratch("health-off.pcap")
        try StreamCapture.write(capture, ts: try ReplayTests.read(StreamCapture.sample))
        let config = ReplayTests.scratch("health-off.json")
        try HLSConfigTests.document(#"{"videoHealth":false}"#).write(toFile: config, atomically: true, encoding: .utf8)
        defer {
            try? FileManager.default.removeItem(atPath: capture)
            try? FileManager.default.removeItem(atPath: config)
        }
        let out = try StreamCapture.replay(capture, config: config, into: "health-off")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let id = try StreamCapture.channelID(out)
        let stats = try ReplayTests.json(out + "/stats.json")
        #expect(stats["channels"]?[id]?["packets_received"] != nil)
        #expect(stats["channels"]?[id]?["num_dropped_video_frames"] == nil)
        #expect(stats["total"]?["num_decode_errors"] == nil)
    }

    /// The live path: a `VideoChannel` hands its TS to the health worker; its summary (what
    /// /api/v1/stats merges per channel) carries the counters once the worker caught up.
    @Test func liveChannelReportsHealthFromItsWorker() throws {
        let ts = try ReplayTests.read(StreamCapture.sample)
        let channel = VideoChannel(id: "bowl", healthQueueBytes: 4 << 20)
        defer { channel.stopHealth() }
        var time: Int64 = 1_795_000_000_000_000_000
        for offset in stride(from: 0, to: ts.count, by: 1316) {
            channel.ingest(ts[offset..<min(ts.count, offset + 1316)], timestampNanoseconds: time)
            time += 11_700_000
        }
        channel.finish(at: time)
        channel.waitForHealthDrained()   // the worker is through everything it kept
        let rows = Dictionary(channel.summary.statistics, uniquingKeysWith: { $1 })
        #expect(rows["video_access_units"] == 500)
        #expect(rows["video_frames_decoded"] == 500)
        #expect(rows["num_dropped_video_frames"] == 0)
        #expect(rows["num_decode_errors"] == 0)
        #expect(rows["video_health_bytes_skipped"] == 0)
    }

    /// A queue too small for the input: the capture side never waits and never grows the queue;
    /// what was left out is counted as skipped frames once the worker reaches the next picture.
    @Test func aFullQueueSkipsInsteadOfGrowing() throws {
        // About 1.5 s of the sample (~165 KB) at once, then the next 0.3 s: the skipped span stays
        // under the 2 s the monitor counts as a loss rather than a restart.
        let sample = try ReplayTests.read(StreamCapture.sample)
        let burst = sample[0..<(128 * 1316)], following = sample[(128 * 1316)..<(152 * 1316)]
        let channel = VideoChannel(id: "bowl", healthQueueBytes: 64 << 10)
        defer { channel.stopHealth() }
        var time: Int64 = 0
        func offer(_ bytes: ArraySlice<UInt8>) {
            for offset in stride(from: bytes.startIndex, to: bytes.endIndex, by: 1316) {
                channel.ingest(bytes[offset..<min(bytes.endIndex, offset + 1316)], timestampNanoseconds: time)
                time += 1000
            }
        }
        // The counters once the worker is through everything it kept (an event, not a poll).
        func settle() -> [String: Int64] {
            channel.waitForHealthDrained()
            return Dictionary(channel.summary.statistics, uniquingKeysWith: { $1 })
        }
        // 165 KB offered while the worker is held (a decoder that fell behind, on any machine's
        // schedule): 64 KiB is queued, the rest left out.
        channel.holdHealth()
        offer(burst)
        channel.resumeHealth()
        let afterBurst = settle()
        #expect((afterBurst["video_health_bytes_skipped"] ?? 0) > 0)
        // The stream goes on: the next picture the worker decodes follows the skipped input.
        offer(following)
        channel.finish(at: time)
        let rows = settle()
        #expect((rows["video_health_queue_peak_bytes"] ?? .max) <= 64 << 10)
        #expect((rows["video_frames_skipped"] ?? 0) > 0)
        #expect((rows["video_frames_decoded"] ?? 0) + (rows["num_dropped_video_frames"] ?? 0) <= 60)
    }
}
