import Foundation
import Testing
import TestSupport
@testable import GrandstandCore

/// The MP4 sample-table reader (MP4Movie) on ffmpeg's progressive MP4s (Tests/Fixtures/mp4, made
/// by tools/fixtures/make-mp4-clips.sh: 6 s, 25 fps H.264 with B-frames and a keyframe every
/// second, AAC-LC mono 22.05 kHz: 131 frames, the first priming hidden by its edit list), whole, truncated at every box boundary and with every byte of
/// its moov corrupted.
@Suite struct MP4Tests {
    static let files = ["mp4/clip.mp4", "mp4/clip-faststart.mp4"]

    static func movie(_ name: String) throws -> (MP4Movie, [UInt8]) {
        let bytes = try Fixtures.bytes(name)
        return (try MP4Movie(MP4Bytes(bytes)), bytes)
    }

    @Test(arguments: files) func theFixtureReadsAsH264AndAAC(name: String) throws {
        let (movie, bytes) = try Self.movie(name)
        let video = try #require(movie.video)
        let audio = try #require(movie.audio)
        #expect(video.samples.count == 150)
        #expect(video.samples.filter(\.sync).count == 6)
        #expect(video.samples[0].sync && video.samples[25].sync && !video.samples[1].sync)
        guard case .avc(let sps, let pps, let lengthSize) = video.codec else { Issue.record("not avc"); return }
        #expect(sps.count == 1 && pps.count == 1 && lengthSize == 4)
        let nalType = sps[0].first.map { $0 & 0x1F }
        #expect(nalType == 7)
        // B-frames: composition offsets, and an edit list shifting presentation by their delay.
        let reordered = video.samples.contains { $0.compositionOffset != 0 }
        #expect(reordered)
        #expect(video.startOffset > 0)
        #expect(audio.samples.count == 131)
        #expect(audio.codec == .aac(objectType: 2, frequencyIndex: 7, channels: 1))
        // Every sample lies inside the file.
        let inside = (video.samples + audio.samples).allSatisfy { $0.offset >= 0 && $0.offset + Int64($0.size) <= Int64(bytes.count) }
        #expect(inside)
    }

    /// Every box's start, header end and end (nested boxes of the containers included).
    static func boundaries(_ bytes: [UInt8], _ range: Range<Int>, into out: inout Set<Int>) {
        var offset = range.lowerBound
        let containers: Set<String> = ["moov", "trak", "mdia", "minf", "stbl", "edts", "dinf", "udta"]
        while offset + 8 <= range.upperBound {
            let size = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            guard size >= 8, offset + size <= range.upperBound else { return }
            out.formUnion([offset, offset + 4, offset + 8, offset + size - 1, offset + size])
            if containers.contains(type) { boundaries(bytes, offset + 8..<offset + size, into: &out) }
            offset += size
        }
    }

    @Test(arguments: files) func everyTruncationIsATypedError(name: String) throws {
        let bytes = try Fixtures.bytes(name)
        var cuts = Set<Int>()
        Self.boundaries(bytes, 0..<bytes.count, into: &cuts)
        cuts.remove(bytes.count)
        #expect(cuts.count > 60)
        var refused = 0
        for cut in cuts.sorted() {
            do throws(MP4Error) {
                _ = try MP4Movie(MP4Bytes(Array(bytes[..<cut])))
                Issue.record("a file cut at \(cut) of \(bytes.count) bytes was read")
            } catch {
                refused += 1
                #expect(!error.description.isEmpty)
            }
        }
        #expect(refused == cuts.count)
    }

    /// Each byte of the moov set to 0xFF in turn: read or refused with a reason, never a trap, and
    /// what is read makes segments whose samples read back or are refused.
    @Test func aCorruptedMoovIsReadOrRefusedNeverATrap() throws {
        let bytes = try Fixtures.bytes("mp4/clip-faststart.mp4")
        let moovStart = 32   // after ftyp
        let moovSize = Int(bytes[moovStart]) << 24 | Int(bytes[moovStart + 1]) << 16 | Int(bytes[moovStart + 2]) << 8 | Int(bytes[moovStart + 3])
        var refused = 0, read = 0
        let offsets = Array(stride(from: moovStart, to: moovStart + moovSize, by: TestEnvironment.sweepStep))
        for offset in offsets {
            var copy = bytes
            copy[offset] = 0xFF
            do throws(MP4Error) {
                let movie = try MP4Movie(MP4Bytes(copy))
                read += 1
                if offset % 16 == 0, let first = MP4HLS.plan(movie).first {
                    _ = try? MP4HLS.transportStream(first, of: movie, from: MP4Bytes(copy))
                }
            } catch {
                refused += 1
            }
        }
        #expect(refused > 100 / TestEnvironment.sweepStep)
        let total = read + refused
        #expect(total == offsets.count)
    }

    @Test func notAnMP4IsRefusedWithItsReason() {
        let text = Array("#EXTM3U\n#EXT-X-ENDLIST\n".utf8)
        #expect(throws: MP4Error.self) { try MP4Movie(MP4Bytes(text)) }
        #expect(throws: MP4Error.self) { try MP4Movie(MP4Bytes([])) }
        // A box claiming more than the file holds.
        let lying: [UInt8] = [0, 0, 0x10, 0, 0x66, 0x74, 0x79, 0x70, 0, 0, 0, 0]
        do throws(MP4Error) {
            _ = try MP4Movie(MP4Bytes(lying))
            Issue.record("read")
        } catch {
            #expect(error == .truncated("ftyp at 0: 4096 bytes announced, 12 left"))
        }
    }
}
