import Foundation
import Testing
import TestSupport
@testable import GrandstandCore

/// A real decoder reads what the packager made: segments, parts and playlists written to a
/// directory go through Debian's ffmpeg (5.1 on bookworm). Under qemu-user the test process is
/// arm64 but ffmpeg is the host's x86-64 binary (qemu-user execs host programs directly), so
/// these run there too; a missing ffmpeg is a failure with the reason, never a skip.
@Suite(.serialized) struct SegmenterDecodeTests {
    static let ffmpeg = "/usr/bin/ffmpeg"

    /// Runs ffmpeg (or `tool`) with `arguments` in `directory`; killed after `timeout` seconds.
    static func ffmpeg(_ arguments: [String], in directory: URL, tool: String = ffmpeg, timeout: Double = 60) throws -> ToolResult {
        guard FileManager.default.isExecutableFile(atPath: tool) else {
            throw ToolMissing(description: "\(tool) not found: install Debian's ffmpeg (make deps); the decode check needs it")
        }
        return try runTool(tool, ["-hide_banner"] + (tool == ffmpeg ? ["-nostdin"] : []) + ["-v", "error"] + arguments,
                           in: directory, timeout: timeout)
    }

    struct ToolMissing: Error, CustomStringConvertible { var description: String }

    /// A fresh directory for one test's files.
    static func directory(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("grandstand-hls-\(name)-\(getpid())")
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Writes every listed segment (and part) of `packager` and its playlist to `directory`.
    static func write(_ packager: HLSPackager, to directory: URL, playlist: String = "live.m3u8") throws {
        for segment in packager.window.segments {
            try Data(segment.bytes.array).write(to: directory.appendingPathComponent(packager.window.segmentName(segment.mediaSequence)))
            for part in segment.parts {
                try Data(segment.bytes[part.range].array).write(
                    to: directory.appendingPathComponent(packager.window.partName(segment.mediaSequence, part.index)))
            }
        }
        try packager.livePlaylist().write(to: directory.appendingPathComponent(playlist), atomically: true, encoding: .utf8)
    }

    /// The frame hashes (last framemd5 column) of stream `map` decoded from `input`; any message
    /// on stderr is a failure unless it contains `tolerating`.
    static func frameHashes(_ input: String, map: String, in directory: URL, tolerating: String? = nil) throws -> [String] {
        let result = try ffmpeg(["-i", input, "-map", map, "-f", "framemd5", "-"], in: directory)
        let complaints = result.stderr.split(separator: "\n").filter { line in tolerating.map { !line.contains($0) } ?? true }
        #expect(result.status == 0 && complaints.isEmpty, "\(input): \(result.stderr)")
        return result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map(String.init) }
    }

    static let audioVideo = "media/testsrc-160x90-25fps-4s-h264-aac.ts"

    /// The fixture's packets with capture times following its video DTS.
    static func timed(_ fixture: String) throws -> [SyntheticStream.Packet] {
        let ts = try Fixtures.bytes(fixture)
        var out: [SyntheticStream.Packet] = []
        var clock = TSFixture.epoch
        for offset in stride(from: 0, to: ts.count, by: 188) {
            let p = Array(ts[offset..<(offset + 188)])
            if (UInt16(p[1] & 0x1F) << 8 | UInt16(p[2])) == TSFixture.videoPID, p[1] & 0x40 != 0,
               case .success(let packet) = TSPacket.parse(p[...]), case .header(let h) = PESHeader.parse(packet.payload),
               let dts = h.dts ?? h.pts {
                clock = TSFixture.epoch + MediaClock.nanoseconds(ticks: dts - TSFixture.firstDTS)
            }
            out.append(SyntheticStream.Packet(bytes: p, frame: 0, capture: clock))
        }
        return out
    }

    @Test func playlistDecodesFrameIdenticalToTheSource() throws {
        let dir = try Self.directory("steady")
        defer { try? FileManager.default.removeItem(at: dir) }
        let packager = package(try Self.timed(Self.audioVideo), finish: true)
        try Self.write(packager, to: dir)
        try Data(try Fixtures.bytes(Self.audioVideo)).write(to: dir.appendingPathComponent("source.ts"))

        let decode = try Self.ffmpeg(["-i", "live.m3u8", "-f", "null", "-"], in: dir)
        #expect(decode.status == 0, "ffmpeg exit \(decode.status)")
        #expect(decode.stderr.isEmpty, "ffmpeg reported: \(decode.stderr)")
        let video = try Self.frameHashes("live.m3u8", map: "0:v", in: dir)
        #expect(video.count == 100)
        let sourceVideo = try Self.frameHashes("source.ts", map: "0:v", in: dir)
        #expect(video == sourceVideo)
        let audio = try Self.frameHashes("live.m3u8", map: "0:a", in: dir)
        #expect(audio.count > 150)
        let sourceAudio = try Self.frameHashes("source.ts", map: "0:a", in: dir)
        #expect(audio == sourceAudio)
    }

    /// The project's sample stream (tools/samples/clean.ts: 20 s, 640×360 H.264 without B-frames,
    /// AAC stereo, CBR with null packets, PAT/PMT/SDT repeated).
    @Test func sampleStreamGivesTenTwoSecondSegmentsThatDecodeFrameIdentical() throws {
        let dir = try Self.directory("sample")
        defer { try? FileManager.default.removeItem(at: dir) }
        let sample = "../../tools/samples/clean.ts"
        let packager = package(try Self.timed(sample), finish: true)
        let durations = packager.window.segments.map(\.durationTicks)
        #expect(durations == Array(repeating: 180_000, count: 10))
        #expect(packager.window.segments.allSatisfy { $0.parts.count == 5 && $0.independent })
        #expect(packager.segmenter.statistics.discontinuityCount == 0 && packager.segmenter.statistics.accessUnitsDropped == 0)
        // Null packets and the SDT stay out of the segments.
        #expect(packager.segmenter.statistics.packetsNotInProgram > 434)
        try Self.write(packager, to: dir)
        try Data(try Fixtures.bytes(sample)).write(to: dir.appendingPathComponent("source.ts"))
        let video = try Self.frameHashes("live.m3u8", map: "0:v", in: dir)
        let sourceVideo = try Self.frameHashes("source.ts", map: "0:v", in: dir)
        #expect(video.count == 500)
        #expect(video == sourceVideo)
        let audio = try Self.frameHashes("live.m3u8", map: "0:a", in: dir)
        let sourceAudio = try Self.frameHashes("source.ts", map: "0:a", in: dir)
        #expect(audio == sourceAudio)
    }

    @Test func hevcPlaylistDecodesFrameIdenticalToTheSource() throws {
        let dir = try Self.directory("hevc")
        defer { try? FileManager.default.removeItem(at: dir) }
        let fixture = "media/testsrc-160x90-25fps-4s-hevc.ts"
        let packager = package(try Self.timed(fixture), finish: true)
        #expect(packager.segmenter.timing?.streamType == .hevc)
        #expect(segmentEnds(packager.window.segments.map { .segmentCompleted(mediaSequence: $0.mediaSequence, durationTicks: $0.durationTicks) })
                == [180_000, 180_000])
        try Self.write(packager, to: dir)
        try Data(try Fixtures.bytes(fixture)).write(to: dir.appendingPathComponent("source.ts"))
        let video = try Self.frameHashes("live.m3u8", map: "0:v", in: dir)
        let source = try Self.frameHashes("source.ts", map: "0:v", in: dir)
        #expect(video.count == 100)
        #expect(video == source)
    }

    /// A classic client (FFmpeg's HLS demuxer knows no LL-HLS tags) reads the live playlist,
    /// parts and preload hint included, as an ordinary live playlist.
    @Test func aClassicClientProbesTheLiveLowLatencyPlaylist() throws {
        let dir = try Self.directory("live")
        defer { try? FileManager.default.removeItem(at: dir) }
        let packager = package(try Self.timed(Self.audioVideo))
        #expect(packager.livePlaylist().contains("#EXT-X-PRELOAD-HINT"))
        try Self.write(packager, to: dir)
        let probe = try Self.ffmpeg(["-show_entries", "stream=codec_name", "-of", "csv=p=0", "live.m3u8"], in: dir,
                                    tool: "/usr/bin/ffprobe", timeout: 30)
        #expect(probe.status == 0 && probe.stderr.isEmpty, "ffprobe: \(probe.stderr)")
        #expect(probe.stdout.split(separator: "\n").map(String.init).prefix(2) == ["h264", "aac"])
    }

    @Test func eachSegmentAndEachIndependentPartDecodesAlone() throws {
        let dir = try Self.directory("alone")
        defer { try? FileManager.default.removeItem(at: dir) }
        let packager = package(try Self.timed(Self.audioVideo), finish: true)
        try Self.write(packager, to: dir)
        var names = packager.window.segments.map { packager.window.segmentName($0.mediaSequence) }
        for s in packager.window.segments {
            for p in s.parts where p.independent { names.append(packager.window.partName(s.mediaSequence, p.index)) }
        }
        #expect(names.count == 4)
        for name in names {
            let hashes = try Self.frameHashes(name, map: "0:v", in: dir)
            #expect(!hashes.isEmpty, "\(name) gave no frames")
        }
        // The parts in order are the stream too: a playlist of parts decodes 100 frames cleanly.
        var parts = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:0\n"
        for s in packager.window.segments {
            for p in s.parts {
                parts += "#EXTINF:\(PlaylistFormat.seconds(p.durationTicks)),\n\(packager.window.partName(s.mediaSequence, p.index))\n"
            }
        }
        parts += "#EXT-X-ENDLIST\n"
        try parts.write(to: dir.appendingPathComponent("parts.m3u8"), atomically: true, encoding: .utf8)
        #expect(try Self.frameHashes("parts.m3u8", map: "0:v", in: dir).count == 100)
    }

    @Test func aGapInTheInputDecodesWithoutErrors() throws {
        let dir = try Self.directory("gap")
        defer { try? FileManager.default.removeItem(at: dir) }
        var packets = try Self.timed(Self.audioVideo)
        // Lose 21 packets (three RTP datagrams' worth) in the middle of the first GOP.
        let lostFrom = packets.count / 8
        packets.removeSubrange(lostFrom..<(lostFrom + 21))
        let packager = package(packets, gapBefore: [lostFrom], finish: true)
        try Self.write(packager, to: dir)
        let playlist = packager.livePlaylist()
        #expect(playlist.contains("#EXT-X-GAP\n"))
        let decode = try Self.ffmpeg(["-i", "live.m3u8", "-f", "null", "-"], in: dir)
        #expect(decode.status == 0 && decode.stderr.isEmpty, "ffmpeg reported: \(decode.stderr)")
        // Exactly the frames the gap segment stands for are missing; the rest decode cleanly.
        let missing = Int(packager.segmenter.statistics.gapTicks / TSFixture.frameTicks)
        #expect(missing > 0 && packager.segmenter.statistics.gapSegments == 1)
        let frames = try Self.frameHashes("live.m3u8", map: "0:v", in: dir)
        #expect(frames.count == 100 - missing)
    }

    /// The packet with every PTS/DTS and PCR moved by `ticks` (90 kHz), as an encoder restarted
    /// with another clock would send it.
    static func shifted(_ p: [UInt8], by ticks: Int64) -> [UInt8] {
        var b = p
        var offset = 4
        if b[3] & 0x20 != 0 {
            let length = Int(b[4])
            if length >= 7, b[5] & 0x10 != 0 {
                let base = (Int64(b[6]) << 25 | Int64(b[7]) << 17 | Int64(b[8]) << 9 | Int64(b[9]) << 1 | Int64(b[10] >> 7))
                let moved = (base + ticks) & 0x1_FFFF_FFFF
                b[6] = UInt8(truncatingIfNeeded: moved >> 25); b[7] = UInt8(truncatingIfNeeded: moved >> 17)
                b[8] = UInt8(truncatingIfNeeded: moved >> 9); b[9] = UInt8(truncatingIfNeeded: moved >> 1)
                b[10] = (b[10] & 0x7F) | UInt8(truncatingIfNeeded: (moved & 1) << 7)
            }
            offset = 5 + length
        }
        let pid = UInt16(b[1] & 0x1F) << 8 | UInt16(b[2])
        guard b[1] & 0x40 != 0, pid == 0x100 || pid == 0x101, offset + 19 <= 188,
              b[offset] == 0, b[offset + 1] == 0, b[offset + 2] == 1 else { return b }
        let flags = b[offset + 7] >> 6
        func move(_ at: Int) {
            let v = Int64(b[at] >> 1 & 0x07) << 30 | Int64(b[at + 1]) << 22 | Int64(b[at + 2] >> 1) << 15
                | Int64(b[at + 3]) << 7 | Int64(b[at + 4] >> 1)
            let m = (v + ticks) & 0x1_FFFF_FFFF
            b[at] = (b[at] & 0xF1) | UInt8(truncatingIfNeeded: (m >> 29) & 0x0E)
            b[at + 1] = UInt8(truncatingIfNeeded: m >> 22)
            b[at + 2] = UInt8(truncatingIfNeeded: (m >> 14) & 0xFE) | 1
            b[at + 3] = UInt8(truncatingIfNeeded: m >> 7)
            b[at + 4] = UInt8(truncatingIfNeeded: (m << 1) & 0xFE) | 1
        }
        if flags & 0x2 != 0 { move(offset + 9) }
        if flags == 3 { move(offset + 14) }
        return b
    }

    /// `first` played again 5 s later by a playout switch: continuity counters carry on, the
    /// media clock jumps by `shiftSeconds`.
    static func restarted(_ first: [SyntheticStream.Packet], shiftSeconds: Int64) -> [SyntheticStream.Packet] {
        var second = first
        var lastCC: [UInt16: UInt8] = [:], ccShift: [UInt16: UInt8] = [:]
        for p in first where p.bytes[3] & 0x10 != 0 { lastCC[UInt16(p.bytes[1] & 0x1F) << 8 | UInt16(p.bytes[2])] = p.bytes[3] & 0x0F }
        for i in second.indices {
            second[i].capture += 5_000_000_000
            second[i].bytes = shifted(second[i].bytes, by: shiftSeconds * 90_000)
            let pid = UInt16(second[i].bytes[1] & 0x1F) << 8 | UInt16(second[i].bytes[2])
            let cc = second[i].bytes[3] & 0x0F
            if ccShift[pid] == nil, let last = lastCC[pid] { ccShift[pid] = (last &+ 1 &- cc) & 0x0F }
            second[i].bytes[3] = (second[i].bytes[3] & 0xF0) | ((cc &+ (ccShift[pid] ?? 0)) & 0x0F)
        }
        return second
    }

    struct RestartCase: Sendable, CustomStringConvertible {
        var shiftSeconds: Int64
        var description: String { "clock moved \(shiftSeconds) s" }
    }

    /// The encoder restarts 5 s later with its clock moved back (the usual case) or far ahead.
    @Test(arguments: [RestartCase(shiftSeconds: -3), RestartCase(shiftSeconds: 600)])
    func aRestartDecodesAcrossTheDiscontinuity(c: RestartCase) throws {
        let dir = try Self.directory("restart\(c.shiftSeconds)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let first = try Self.timed(Self.audioVideo)
        let packager = package(first + Self.restarted(first, shiftSeconds: c.shiftSeconds), finish: true)
        try Self.write(packager, to: dir)
        let parsed = ParsedPlaylist(packager.livePlaylist())
        #expect(parsed.tags.filter { $0 == "#EXT-X-DISCONTINUITY" }.count == 1)
        #expect(parsed.entries.map(\.discontinuitySequence) == [0, 0, 1, 1])
        // FFmpeg's CLI does not act on EXT-X-DISCONTINUITY: when the clock goes back its muxer
        // notes the non-monotonic DTS at the seam (its own check, not a decoding error).
        let tolerated = c.shiftSeconds < 0 ? "non monotonically increasing dts" : nil
        let frames = try Self.frameHashes("live.m3u8", map: "0:v", in: dir, tolerating: tolerated)
        #expect(frames.count == 200)
        #expect(Array(frames[100...]) == Array(frames[..<100]))
    }
}
