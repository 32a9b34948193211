import Foundation
import Testing
import TestSupport
@testable import GrandstandCore

/// FFmpeg reads the CMAF the packager made from the fixtures: the LL-HLS playlist with its
/// EXT-X-MAP, every segment, and the parts in order decode frame-identical to the source TS
/// (framemd5), audio included. Same tools and rules as SegmenterDecodeTests.
@Suite(.serialized) struct CMAFDecodeTests {
    typealias Decode = SegmenterDecodeTests

    /// Writes the CMAF window's segments, parts, headers and live playlist to `directory`.
    static func write(_ packager: HLSPackager, to directory: URL, playlist: String = "live.m3u8") throws {
        let cmaf = try #require(packager.cmaf)
        for segment in cmaf.window.segments where !segment.isGap {
            try Data(segment.bytes.array).write(to: directory.appendingPathComponent(cmaf.window.segmentName(segment.mediaSequence)))
            for part in segment.parts {
                try Data(segment.bytes[part.range].array).write(
                    to: directory.appendingPathComponent(cmaf.window.partName(segment.mediaSequence, part.index)))
            }
        }
        for (id, bytes) in cmaf.inits {
            try Data(bytes).write(to: directory.appendingPathComponent(MediaWindow.mapName(id)))
        }
        try packager.livePlaylist(.cmaf).write(to: directory.appendingPathComponent(playlist), atomically: true, encoding: .utf8)
    }

    /// The DASH manifest FFmpeg's dash demuxer reads (static: the window ended).
    static func writeManifest(_ packager: HLSPackager, to directory: URL) throws -> String {
        let cmaf = try #require(packager.cmaf)
        let text = DASHManifest(headers: cmaf.headerTracks, bandwidth: 100_000).render(cmaf.window, nowNanoseconds: 0)
        // The per-track resources the manifest names, as the gateway serves them.
        for (id, tracks) in cmaf.headerTracks {
            for track in tracks {
                let name = CMAFName.header(id, track: track.id)
                guard case .media(let bytes) = packager.resource(named: name) else { Issue.record("no \(name)"); continue }
                try Data(bytes.array).write(to: directory.appendingPathComponent(name))
                for segment in cmaf.window.segments where !segment.isGap {
                    let name = CMAFName.trackSegment(segment.mediaSequence, track: track.id)
                    guard case .media(let bytes) = packager.resource(named: name) else { Issue.record("no \(name)"); continue }
                    try Data(bytes.array).write(to: directory.appendingPathComponent(name))
                }
            }
        }
        try text.write(to: directory.appendingPathComponent("live.mpd"), atomically: true, encoding: .utf8)
        return text
    }

    static let fixtures: [(name: String, frames: Int, audio: Bool)] = [
        ("media/testsrc-160x90-25fps-4s-h264-aac.ts", 100, true),
        ("media/testsrc-160x90-25fps-4s-h264.ts", 100, false),
        ("media/testsrc-160x90-25fps-4s-hevc.ts", 100, false),
        ("../../tools/samples/clean.ts", 500, true),
    ]

    @Test(arguments: fixtures.indices)
    func playlistDecodesFrameIdenticalToTheSource(_ index: Int) throws {
        let fixture = Self.fixtures[index]
        let dir = try Decode.directory("cmaf-\(index)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let packager = package(try Decode.timed(fixture.name), finish: true, cmaf: true)
        #expect(packager.offers(.cmaf))
        try Self.write(packager, to: dir)
        try Data(try Fixtures.bytes(fixture.name)).write(to: dir.appendingPathComponent("source.ts"))
        let playlist = packager.livePlaylist(.cmaf)
        #expect(playlist.contains("#EXT-X-MAP:URI=\"init0.mp4\"\n"), "\(playlist)")
        #expect(!playlist.contains(".ts"))

        let video = try Decode.frameHashes("live.m3u8", map: "0:v", in: dir)
        #expect(video.count == fixture.frames)
        let identical = video == (try Decode.frameHashes("source.ts", map: "0:v", in: dir))
        #expect(identical, "video frames differ from the source")
        if fixture.audio {
            let audio = try Decode.frameHashes("live.m3u8", map: "0:a", in: dir)
            #expect(audio.count > 150)
            let source = try Decode.frameHashes("source.ts", map: "0:a", in: dir)
            let identical = audio == source
            #expect(identical, "\(audio.count) frames, source \(source.count); first difference at \(Array(zip(audio, source)).firstIndex { $0 != $1 } ?? -1)")
        }
    }

    /// FFmpeg's DASH demuxer reads the ended channel's manifest (static, an exact
    /// SegmentTimeline) over the per-track segments: frame-identical video and audio.
    @Test(arguments: [0, 2, 3])
    func dashManifestDecodesFrameIdenticalToTheSource(_ index: Int) throws {
        let fixture = Self.fixtures[index]
        let dir = try Decode.directory("dash-\(index)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let packager = package(try Decode.timed(fixture.name), finish: true, cmaf: true)
        try Self.write(packager, to: dir)
        let manifest = try Self.writeManifest(packager, to: dir)
        #expect(manifest.contains("type=\"static\"") && manifest.contains("media=\"seg$Number$.t1.m4s\"")
                && manifest.contains("<SegmentTimeline>"))
        try Data(try Fixtures.bytes(fixture.name)).write(to: dir.appendingPathComponent("source.ts"))
        let video = try Decode.frameHashes("live.mpd", map: "0:v", in: dir)
        let identical = video == (try Decode.frameHashes("source.ts", map: "0:v", in: dir))
        #expect(video.count == fixture.frames && identical, "\(video.count) frames")
        if fixture.audio {
            let audio = try Decode.frameHashes("live.mpd", map: "0:a", in: dir)
            let same = audio == (try Decode.frameHashes("source.ts", map: "0:a", in: dir))
            #expect(same, "\(audio.count) audio frames")
        }
    }
}
