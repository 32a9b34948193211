import Foundation
import GrandstandCore
import TestSupport
import Testing

/// `grandstand replay --out DIR` writes `hls/ID/`: a VOD playlist (EXT-X-ENDLIST) and its segments.
struct ServingReplayTests {
    @Test func replayWritesAnEndedPlaylistPerVideoChannel() throws {
        let out = try ReplayTests.replay(into: "hls")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let playlist = String(decoding: try ReplayTests.read(out + "/hls/bowl-cam-1/index.m3u8"), as: UTF8.self)
        #expect(playlist.hasPrefix("#EXTM3U\n"))
        #expect(playlist.hasSuffix("#EXT-X-ENDLIST\n"))
        #expect(!playlist.contains("#EXT-X-PART"))
        // Data channels get no HLS folder.
        #expect(!FileManager.default.fileExists(atPath: out + "/hls/live-scores"))
    }
}
