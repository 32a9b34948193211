import Foundation
import GrandstandCore
import GrandstandRuntime
import TestSupport
import Testing
@testable import GrandstandServing

/// Removed channels in the merged stats (docs/serving.md, "Removed channels"): their per-channel
/// tables stay while the gateway still serves them, then only their share of the totals remains.
struct GatewayStatsTests {
    static func counter(_ stats: IngestStats, _ key: String) -> Int64 {
        if case .number(let value)? = stats.total[key] { return Int64(value) }
        return 0
    }

    @Test func aRemovedChannelLeavesTheTablesAfterItsWindowAndStaysInTheTotals() throws {
        var settings = Gateway.Settings()
        settings.keepRemovedNanoseconds = 1_000_000_000
        let gateway = Gateway(settings: settings)
        defer { gateway.stop() }
        let cam = Channel(id: "cam", name: "Cam", kind: .video, group: nil, port: 5000, fec: .none, origin: .config)
        let scores = Channel(id: "scores", name: "Scores", kind: .data, group: nil, port: 5002, fec: .none, origin: .config)
        gateway.handle([.channelsChanged([.added(cam), .added(scores)])])
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: SendEndToEndTests.sample)))
        var time: Int64 = 1_700_000_000_000_000_000
        for offset in stride(from: 0, to: min(bytes.count, 400 * 7 * 188), by: 7 * 188) {
            let chunk = bytes[offset..<min(offset + 7 * 188, bytes.count)]
            gateway.handle([.transportStream(channelID: "cam", packets: chunk, timestampNanoseconds: time)])
            time += 1_000_000
        }
        gateway.handle([.channelsChanged([.removed(cam, reason: .deleted), .removed(scores, reason: .deleted)])])
        let removedAt = SystemClock().wallNanoseconds()

        // What the ingest pipeline reports: every id it ever listed, with `listed`.
        let ingest = IngestStats(total: ["packets_received": .number(30)],
                                 channels: ["cam": ["listed": .bool(false), "packets_received": .number(10)],
                                            "scores": ["listed": .bool(false), "packets_received": .number(10)],
                                            "news": ["listed": .bool(true), "packets_received": .number(10)]])
        // The decode-health worker finishes the removed channel's input, then its counters settle.
        gateway.videoChannel("cam")?.waitForHealthDrained()
        let decoded = Self.counter(gateway.stats(merging: ingest), "video_frames_decoded")
        let before = gateway.stats(merging: ingest)
        #expect(decoded > 0)
        #expect(Set(before.channels.keys) == ["cam", "news"])   // cam is still served (its window)
        #expect(before.channel("cam", "packets_received") == 10)
        #expect(before.channel("cam", "hls_segments") != nil)

        gateway.dropExpired(now: removedAt + settings.keepRemovedNanoseconds)
        #expect(gateway.videoChannel("cam") == nil)
        let after = gateway.stats(merging: ingest)
        #expect(Set(after.channels.keys) == ["news"])
        #expect(after.total("packets_received") == 30)
        // The dropped channel's worker is stopped and joined: its share of the totals is exactly what
        // it had decoded, and nothing can move it any more.
        let kept = Self.counter(after, "video_frames_decoded")
        #expect(kept == decoded)
        #expect(Self.counter(after, "num_dropped_video_frames") == Self.counter(before, "num_dropped_video_frames"))
        #expect(Self.counter(gateway.stats(merging: ingest), "video_frames_decoded") == kept)
    }

    @Test func tablesWithoutAListedFlagAreKept() {
        let gateway = Gateway(settings: Gateway.Settings())
        let merged = gateway.stats(merging: IngestStats(total: [:], channels: ["x": ["packets_received": .number(1)]]))
        #expect(merged.channel("x", "packets_received") == 1)
    }
}
