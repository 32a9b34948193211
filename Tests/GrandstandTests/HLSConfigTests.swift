import Foundation
import GrandstandCore
import TestSupport
import Testing
@testable import GrandstandServing

/// The configuration's `hls` section: decoding with JSON-path errors, and its values reaching
/// the live gateway and replay (a different target changes the segmenting).
@Suite struct HLSConfigTests {
    static func document(_ hls: String) -> String {
        """
        {"license":{"venueName":"V","contentOwner":"O","appDeveloper":"D","required":false},
         "listeners":{"fan":"127.0.0.1:0","management":"127.0.0.1:0"},"management":{"token":"t"}\(hls.isEmpty ? "" : ",\"hls\":" + hls)}
        """
    }

    static func decode(_ hls: String) throws -> GatewayConfig { try GatewayConfig.decode(Array(document(hls).utf8)) }

    @Test func defaultsWithoutTheSection() throws {
        let hls = try Self.decode("").hls
        #expect(hls == GatewayConfig.HLS())
        #expect(hls.targetSegmentSeconds == 2)
        #expect(hls.partSeconds == 0.2)
        #expect(hls.rewindWindowSeconds == 30)
        #expect(hls.windowByteCap == 48 << 20)
        #expect(hls.blockingReloadTimeoutSeconds == nil)
        #expect(hls.videoHealth)
        #expect(hls.segmenter == SegmenterConfiguration(partTarget: 0.2))
        #expect(hls.window == WindowConfiguration())
        #expect(MediaWindow(configuration: hls.window, segmenter: hls.segmenter).maximumBlockNanoseconds == 6_000_000_000)
    }

    @Test func everyKeyIsRead() throws {
        let hls = try Self.decode("""
            {"targetSegmentSeconds":4,"partSeconds":0.5,"rewindWindowSeconds":120,"windowByteCap":8388608,
             "blockingReloadTimeoutSeconds":2.5,"videoHealth":false}
            """).hls
        #expect(hls.targetSegmentSeconds == 4)
        #expect(hls.partSeconds == 0.5)
        #expect(hls.rewindWindowSeconds == 120)
        #expect(hls.windowByteCap == 8 << 20)
        #expect(hls.blockingReloadTimeoutSeconds == 2.5)
        #expect(!hls.videoHealth)
        #expect(hls.segmenter.targetDurationTicks == 360_000)
        #expect(hls.segmenter.partTargetTicks == 45_000)
        #expect(hls.window.windowTicks == 120 * 90_000)
        #expect(hls.window.byteCap == 8 << 20)
        #expect(MediaWindow(configuration: hls.window, segmenter: hls.segmenter).maximumBlockNanoseconds == 2_500_000_000)
        let settings = Gateway.Settings(hls: hls)
        #expect(settings.segmenter == hls.segmenter)
        #expect(settings.window == hls.window)
        #expect(!settings.videoHealth)
        #expect(settings.keepRemovedNanoseconds == 120_000_000_000)
    }

    @Test(arguments: [
        (#"{"rewindWindowSeconds":20}"#, "$.hls.rewindWindowSeconds: 20.0 is under the 30 s rewind window the gateway promises (rewind.m3u8?offset=-30)"),
        (#"{"partSeconds":3}"#, "$.hls.partSeconds: 3.0 is out of range 0.1...2.0 seconds"),
        (#"{"targetSegmentSeconds":1,"partSeconds":1.5}"#, "$.hls.partSeconds: 1.5 is longer than targetSegmentSeconds (1.0)"),
        (#"{"targetSegmentSeconds":"2"}"#, "$.hls.targetSegmentSeconds: expected a number of seconds, got a string"),
        (#"{"windowByteCap":1000}"#, "$.hls.windowByteCap: 1000 is out of range 1048576...1073741824"),
        (#"{"windowByteCap":2.5}"#, "$.hls.windowByteCap: expected an integer, got a fraction"),
        (#"{"blockingReloadTimeoutSeconds":0}"#, "$.hls.blockingReloadTimeoutSeconds: 0.0 is out of range 1.0...60.0 seconds"),
        (#"{"videoHealth":"on"}"#, "$.hls.videoHealth: expected true or false, got a string"),
        (#"{"segmentSeconds":2}"#, "$.hls.segmentSeconds: unknown key (expected one of: blockingReloadTimeoutSeconds, cmaf, partSeconds, rewindWindowSeconds, targetSegmentSeconds, videoHealth, windowByteCap)"),
        (#"[2]"#, "$.hls: expected an object, got an array"),
    ])
    func badValuesAreReportedWithTheirPath(hls: String, message: String) {
        let error = thrownError(ConfigError.self) { try Self.decode(hls) }
        #expect(error?.issues.map(\.description) == [message])
    }

    /// The sample (20 s, keyframe every second) through a live `VideoChannel` with the settings
    /// from a 4 s target: four complete 4 s segments instead of nine 2 s ones.
    @Test func aLongerTargetMakesLongerSegmentsLive() throws {
        let ts = try ReplayTests.read(StreamCapture.sample)
        var durations: [[Int64]] = []
        for target in [2, 4] {
            var settings = Gateway.Settings(hls: try Self.decode(#"{"targetSegmentSeconds":\#(target),"videoHealth":false}"#).hls)
            settings.videoHealth = false
            let channel = VideoChannel(id: "bowl", segmenter: settings.segmenter, window: settings.window)
            var time: Int64 = 1_795_000_000_000_000_000
            for offset in stride(from: 0, to: ts.count, by: 1316) {
                channel.ingest(ts[offset..<min(ts.count, offset + 1316)], timestampNanoseconds: time)
                time += 11_700_000   // ~900 kbit/s
            }
            durations.append(channel.completeSegmentDurations)
        }
        #expect(durations[0] == Array(repeating: 180_000, count: 9))
        #expect(durations[1] == Array(repeating: 360_000, count: 4))
    }

    /// Replay reads the same section: `--config` with a 4 s target writes 4 s segments.
    @Test func aLongerTargetMakesLongerSegmentsInReplay() throws {
        let capture = ReplayTests.scratch("hls-config.pcap")
        try StreamCapture.write(capture, ts: try ReplayTests.read(StreamCapture.sample))
        let config = ReplayTests.scratch("hls-config.json")
        try Self.document(#"{"targetSegmentSeconds":4}"#).write(toFile: config, atomically: true, encoding: .utf8)
        defer {
            try? FileManager.default.removeItem(atPath: capture)
            try? FileManager.default.removeItem(atPath: config)
        }
        let out = try StreamCapture.replay(capture, config: config, health: false, into: "hls-config")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let id = try StreamCapture.channelID(out)
        let playlist = String(decoding: try ReplayTests.read("\(out)/hls/\(id)/index.m3u8"), as: UTF8.self)
        #expect(playlist.contains("#EXT-X-TARGETDURATION:4\n"))
        let extinf = playlist.split(separator: "\n").filter { $0.hasPrefix("#EXTINF:") }
        #expect(extinf == Array(repeating: "#EXTINF:4.00000,", count: 5))
    }
}
