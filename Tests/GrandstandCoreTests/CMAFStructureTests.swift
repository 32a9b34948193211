import Testing
import TestSupport
@testable import GrandstandCore

/// Every header and chunk the packager writes, read back box by box (CMAFBoxChecker): required
/// fields, data offsets, decode-time continuity across parts, segments, gaps and restarts.
@Suite struct CMAFStructureTests {
    typealias Decode = SegmenterDecodeTests

    /// Checks the whole CMAF window of `packager`; returns samples per track and the timeline.
    static func checkWindow(_ packager: HLSPackager, sourceLocation: SourceLocation = #_sourceLocation)
        -> (samples: [UInt32: Int], timeline: CMAFChecker.Timeline, tracks: [CheckedTrack]) {
        guard let cmaf = packager.cmaf, let header = cmaf.inits[0] else {
            Issue.record("no CMAF header", sourceLocation: sourceLocation)
            return ([:], CMAFChecker.Timeline(), [])
        }
        let tracks = CMAFChecker.checkHeader(header, sourceLocation: sourceLocation)
        var timeline = CMAFChecker.Timeline()
        var samples: [UInt32: Int] = [:]
        for segment in cmaf.window.segments where !segment.isGap {
            #expect(segment.map == 0, sourceLocation: sourceLocation)
            for part in segment.parts {
                let counts = CMAFChecker.checkChunks(segment.bytes[part.range].array, tracks: tracks, timeline: &timeline,
                                                     independent: part.independent, sourceLocation: sourceLocation)
                samples.merge(counts, uniquingKeysWith: +)
            }
        }
        return (samples, timeline, tracks)
    }

    @Test func audioAndVideoChunksAreWellFormedAndContinuous() throws {
        let packager = package(try Decode.timed(Decode.audioVideo), finish: true, cmaf: true)
        let (samples, timeline, tracks) = Self.checkWindow(packager)
        #expect(tracks.map(\.sampleEntry) == ["avc1", "mp4a"])
        #expect(tracks.map(\.timescale) == [90_000, 48_000])
        #expect(samples == [1: 100, 2: 189])
        #expect(timeline.jumps.isEmpty, "decode times jumped: \(timeline.jumps)")
        // Segments sit on the presentation timeline back to back, from the first one's date-time.
        let segments = packager.cmaf!.window.segments
        #expect(segments.first!.presentationTicks == segments.first!.programDateTimeNanoseconds / 100_000 * 9)
        #expect(segments[1].presentationTicks == segments[0].presentationTicks + segments[0].durationTicks)
        #expect(packager.cmaf!.fragmenter.current?.tracks.map(\.codec.codecString) == ["avc1.64000b", "mp4a.40.2"])
    }

    /// What CMAF holds against TS for the same media (issue 18: CMAF ≤ TS + 10 %): fMP4 has no
    /// 4-byte header per 188 bytes, no PES headers, adaptation stuffing or PAT/PMT copies.
    @Test func aCMAFWindowHoldsLessThanTheTSWindow() throws {
        let packager = package(try Decode.timed("../../tools/samples/clean.ts"), finish: true, cmaf: true)
        let ts = packager.window.bytes, cmaf = packager.cmaf!.window.bytes
        #expect(ts > 1_000_000 && cmaf > 0)
        #expect(Double(cmaf) <= Double(ts) * 1.10, "CMAF \(cmaf) B, TS \(ts) B")
        print("window bytes: TS \(ts), CMAF \(cmaf), CMAF/TS \(Double(cmaf) / Double(ts))")
    }

    @Test func hevcHeaderCarriesItsParameterSets() throws {
        let packager = package(try Decode.timed("media/testsrc-160x90-25fps-4s-hevc.ts"), finish: true, cmaf: true)
        let (samples, timeline, tracks) = Self.checkWindow(packager)
        #expect(tracks.map(\.sampleEntry) == ["hvc1"])
        #expect(samples == [1: 100] && timeline.jumps.isEmpty)
        guard case .hevc(let c)? = packager.cmaf?.fragmenter.current?.tracks.first?.codec else { Issue.record("not HEVC"); return }
        #expect(c.width == 160 && c.height == 90)
        #expect(c.codecString.hasPrefix("hvc1.1.6.L"))
    }

    /// The same bytes in any split give the same CMAF, byte for byte.
    @Test(arguments: [1, 7, 188, 1316, 5000])
    func anySplitOfTheInputGivesTheSameChunks(chunk: Int) throws {
        let packets = try Decode.timed(Decode.audioVideo)
        // One capture time for all, so only the split differs (capture times anchor date-times).
        let capture = packets[0].capture
        let whole = package(packets.map { SyntheticStream.Packet(bytes: $0.bytes, frame: 0, capture: capture) }, finish: true, cmaf: true)
        var split = HLSPackager(cmaf: true)
        var pending: [UInt8] = []
        for p in packets {
            pending += p.bytes
            while pending.count >= chunk {
                _ = split.ingest(pending[..<chunk], timestampNanoseconds: capture)
                pending.removeFirst(chunk)
            }
        }
        _ = split.ingest(pending[...], timestampNanoseconds: capture)
        _ = split.finish()
        let a = whole.cmaf!.window.segments.map(\.bytes.array), b = split.cmaf!.window.segments.map(\.bytes.array)
        #expect(a.count == b.count && a == b)
        #expect(whole.cmaf!.inits == split.cmaf!.inits)
    }

    @Test func aGapLeavesAHoleOfItsLengthInEveryTrack() throws {
        var packets = try Decode.timed(Decode.audioVideo)
        let lostFrom = packets.count / 8
        packets.removeSubrange(lostFrom..<(lostFrom + 21))
        let packager = package(packets, gapBefore: [lostFrom], finish: true, cmaf: true)
        #expect(packager.livePlaylist(.cmaf).contains("#EXT-X-GAP\nseg"))
        let (_, timeline, _) = Self.checkWindow(packager)
        let gapTicks = packager.segmenter.statistics.gapTicks
        #expect(gapTicks > 0)
        // Video resumes exactly one gap later. Audio lost nothing here (only video packets were
        // lost): its frames of the hole stay, as they do in the TS segments, never going back.
        #expect(timeline.jumps[1] == [UInt64(gapTicks)], "\(timeline.jumps)")
    }

    @Test func aRestartKeepsDecodeTimesGoingForward() throws {
        let first = try Decode.timed(Decode.audioVideo)
        let packager = package(first + Decode.restarted(first, shiftSeconds: -3), finish: true, cmaf: true)
        let playlist = packager.livePlaylist(.cmaf)
        #expect(playlist.components(separatedBy: "#EXT-X-DISCONTINUITY\n").count == 2)
        let (samples, timeline, _) = Self.checkWindow(packager)
        #expect(samples[1] == 200)
        // The restart is re-anchored on its program date-time: 5 s after the first start, so
        // 1 s after the first run's 4 s end.
        #expect(timeline.jumps[1] == [90_000], "\(timeline.jumps)")
    }
}

/// The codec configuration parsers on the fixtures' parameter sets and on damaged input.
@Suite struct CMAFCodecConfigurationTests {
    static func nalUnits(_ fixture: String) throws -> [ArraySlice<UInt8>] {
        NALUnits.split(try Fixtures.bytes(fixture)[...])
    }

    @Test func h264SequenceParameterSetGivesSizeProfileAndRecord() throws {
        let units = try Self.nalUnits("media/testsrc-160x90-25fps-2s.h264")
        let sps = try #require(units.first { $0.first! & 0x1F == 7 }), pps = try #require(units.first { $0.first! & 0x1F == 8 })
        let c = try #require(AVCConfiguration(sps: Array(sps), pps: [Array(pps)]))
        #expect(c.width == 160 && c.height == 90)
        #expect(c.codecString == "avc1.64000b")
        let record = c.decoderConfigurationRecord
        #expect(record[0] == 1 && record[1] == 0x64 && record[4] == 0xFF && record[5] == 0xE1)
        // High profile: chroma format and bit depths follow the PPS (4:2:0, 8 bit).
        #expect(Array(record.suffix(4)) == [0xFD, 0xF8, 0xF8, 0x00])
    }

    @Test func hevcSequenceParameterSetGivesSizeAndRecord() throws {
        let units = try Self.nalUnits("media/testsrc-160x90-25fps-2s.hevc")
        func unit(_ type: UInt8) throws -> [UInt8] { Array(try #require(units.first { ($0.first! >> 1) & 0x3F == type })) }
        let c = try #require(HEVCConfiguration(vps: try unit(32), sps: try unit(33), pps: [try unit(34)]))
        #expect(c.width == 160 && c.height == 90 && c.chromaFormat == 1)
        #expect(c.decoderConfigurationRecord[22] == 3)
    }

    /// Every prefix of a parameter set is refused or parsed, never read out of bounds.
    @Test func truncatedParameterSetsAreRefused() throws {
        let units = try Self.nalUnits("media/testsrc-160x90-25fps-2s.h264")
        let sps = Array(try #require(units.first { $0.first! & 0x1F == 7 }))
        for n in 0..<sps.count {
            let c = AVCConfiguration(sps: Array(sps.prefix(n)), pps: [[0x68]])
            if let c { #expect(c.width == 160 && c.height == 90) }
        }
        #expect(AVCConfiguration(sps: [0x67, 0x64, 0, 0x0B, 0xFF, 0xFF, 0xFF, 0xFF], pps: [[0x68]]) == nil)
        #expect(AVCConfiguration(sps: sps, pps: []) == nil)
    }

    /// The skipping start-code scan finds what a byte-by-byte one finds, on streams made mostly
    /// of 0s and 1s (where start codes and near misses crowd) and on the fixtures.
    @Test func nalUnitSplitMatchesAPlainScan() throws {
        func plain(_ s: [UInt8]) -> [[UInt8]] {
            var codes: [Int] = []
            var i = 0
            while i + 2 < s.count { if s[i] == 0, s[i + 1] == 0, s[i + 2] == 1 { codes.append(i + 3); i += 3 } else { i += 1 } }
            return codes.enumerated().compactMap { k, start in
                var end = k + 1 < codes.count ? codes[k + 1] - 3 : s.count
                while end > start, s[end - 1] == 0 { end -= 1 }
                return end > start ? Array(s[start..<end]) : nil
            }
        }
        var generator = SystemRandomNumberGenerator()
        for length in [0, 1, 2, 3, 4, 7, 64, 1000] {
            for _ in 0..<50 {
                let s = (0..<length).map { _ in [0, 0, 1, 2, 0x65][Int.random(in: 0..<5, using: &generator)] as UInt8 }
                #expect(NALUnits.split(s[...]).map(Array.init) == plain(s), "\(s)")
            }
        }
        for fixture in ["media/testsrc-160x90-25fps-2s.h264", "media/testsrc-160x90-25fps-2s.hevc"] {
            let bytes = try Fixtures.bytes(fixture)
            #expect(NALUnits.split(bytes[...]).map(Array.init) == plain(bytes))
            #expect(NALUnits.split(bytes[5...]).map(Array.init) == plain(Array(bytes[5...])))
        }
    }

    struct ADTSCase: Sendable, CustomStringConvertible {
        var bytes: [UInt8]
        var error: ADTSFrame.ParseError?
        var frames: Int
        var description: String { "\(bytes.count) bytes" }
    }

    /// One AAC LC 48 kHz mono frame header (7 bytes) with 3 payload bytes.
    static let frame: [UInt8] = [0xFF, 0xF1, 0x4C, 0x40, 0x01, 0x5F, 0xFC, 1, 2, 3]

    @Test(arguments: [
        ADTSCase(bytes: frame + frame, error: nil, frames: 2),
        ADTSCase(bytes: frame + [0xFF, 0xF1], error: .truncated, frames: 1),
        ADTSCase(bytes: [0x47] + frame, error: .noSyncWord, frames: 0),
        ADTSCase(bytes: [0xFF, 0xF1, 0x4C, 0x40, 0x00, 0x1F, 0xFC, 1], error: .badLength, frames: 0),
        ADTSCase(bytes: [0xFF, 0xF1, 0x74, 0x40, 0x01, 0x5F, 0xFC, 1, 2, 3], error: .reservedSamplingFrequency, frames: 0),
        ADTSCase(bytes: [0xFF, 0xF1, 0x4C, 0x40, 0x01, 0x5F, 0xFD, 1, 2, 3], error: .multipleRawDataBlocks, frames: 0),
    ])
    func adtsFramesAndTheirErrors(c: ADTSCase) {
        let (frames, error) = ADTSFrame.frames(c.bytes[...])
        #expect(frames.count == c.frames && error == c.error)
        if let first = frames.first {
            #expect(first.configuration == AACConfiguration(objectType: 2, frequencyIndex: 3, channelConfiguration: 1))
            #expect(first.configuration.audioSpecificConfig == [0x11, 0x88] && Array(first.payload) == [1, 2, 3])
        }
    }
}
