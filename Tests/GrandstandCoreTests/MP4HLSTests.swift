import Foundation
import Testing
import TestSupport
@testable import GrandstandCore

/// The HLS rendition of an MP4 (MP4HLS, TSMuxer): segments cut at keyframes near 2 s, every
/// sample read back by our TSDemuxer as the Annex B / ADTS the muxer was given, and ffprobe
/// reading the muxed TS.
@Suite struct MP4HLSTests {
    @Test func segmentsAreCutAtKeyframesNearTwoSeconds() throws {
        let (movie, _) = try MP4Tests.movie("mp4/clip.mp4")
        let segments = MP4HLS.plan(movie)
        #expect(segments.map(\.video.count) == [50, 50, 50])
        #expect(segments.map(\.video.lowerBound) == [0, 50, 100])
        let audio = segments.reduce(0) { $0 + $1.audio.count }
        #expect(audio == 131)
        let durations = segments.map { ($0.durationSeconds * 100).rounded() / 100 }
        #expect(durations[0] == 2 && durations[1] == 2)
        let lastOff = abs(durations[2] - 2)
        #expect(lastOff < 0.1)
        let playlist = MP4HLS.playlist(segments) { "seg\($0).ts" }
        #expect(VODPlaylist.segments(playlist)?.map(\.uri) == ["seg0.ts", "seg1.ts", "seg2.ts"])
        #expect(playlist.contains("#EXT-X-TARGETDURATION:2\n") && playlist.hasSuffix("#EXT-X-ENDLIST\n"))
    }

    @Test func ourDemuxerReadsBackEverySample() throws {
        let (movie, bytes) = try MP4Tests.movie("mp4/clip.mp4")
        let video = try #require(movie.video), audio = try #require(movie.audio)
        let clock = MP4HLS.Clock(movie)
        for segment in MP4HLS.plan(movie) {
            let ts = try MP4HLS.transportStream(segment, of: movie, from: MP4Bytes(bytes))
            let whole = ts.count % 188 == 0
            #expect(whole)
            var demuxer = TSDemuxer()
            var events = demuxer.feed(ts[...], timestampNanoseconds: 0)
            events += demuxer.flush()
            let streams = demuxer.pmt?.streams.map(\.streamType) ?? []
            #expect(streams == [.h264, .aacADTS])
            #expect(demuxer.statistics.continuityErrors == 0 && demuxer.statistics.sectionErrors == 0)
            let pes = events.compactMap { event -> PESPacket? in if case .pes(let packet) = event { return packet } else { return nil } }
            let pictures = pes.filter { $0.pid == TSMuxer.videoPID }
            let frames = pes.filter { $0.pid == TSMuxer.audioPID }
            #expect(pictures.count == segment.video.count && frames.count == segment.audio.count)
            let complete = pes.allSatisfy { $0.complete }
            #expect(complete)
            for (picture, index) in zip(pictures, segment.video) {
                let sample = video.samples[index]
                let raw = Array(bytes[Int(sample.offset)..<Int(sample.offset) + Int(sample.size)])
                let expected = try MP4HLS.annexB(raw, video.codec, keyframe: sample.sync, sample: index)
                #expect(picture.payload == expected, "video sample \(index)")
                #expect(picture.pts == clock.pts(sample, video) && picture.dts == clock.dts(sample, video))
                #expect(picture.randomAccess == sample.sync)
            }
            for (frame, index) in zip(frames, segment.audio) {
                let sample = audio.samples[index]
                let raw = Array(bytes[Int(sample.offset)..<Int(sample.offset) + Int(sample.size)])
                let expected = try MP4HLS.adts(raw, audio.codec)
                #expect(frame.payload == expected, "audio sample \(index)")
                #expect(ADTSFrame.frames(frame.payload[...]).frames.count == 1)
            }
            // A keyframe's access unit starts with the delimiter, then the SPS and PPS.
            let first = try #require(pictures.first)
            #expect(Array(first.payload.prefix(6)) == [0, 0, 0, 1, 0x09, 0xF0])
            let spsFirst = first.payload.count > 11 && first.payload[10] & 0x1F == 7
            #expect(spsFirst)
        }
    }

    @Test func ffprobeReadsTheMuxedTS() throws {
        let (movie, bytes) = try MP4Tests.movie("mp4/clip-faststart.mp4")
        var ts: [UInt8] = []
        for segment in MP4HLS.plan(movie) { ts += try MP4HLS.transportStream(segment, of: movie, from: MP4Bytes(bytes)) }
        let path = NSTemporaryDirectory() + "gs-mp4hls-\(UUID().uuidString).ts"
        try Data(ts).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let video = try runCommand(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                    "stream=codec_name,nb_read_frames", "-of", "csv=p=0", path])
        #expect(video.contains("h264,150"), "\(video)")
        let audio = try runCommand(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "a:0", "-show_entries",
                                    "stream=codec_name,nb_read_frames", "-of", "csv=p=0", path])
        #expect(audio.contains("aac,131"), "\(audio)")
    }

    /// One track alone: a video-only MP4 cuts as before; an audio-only one every 2 s of frames,
    /// with the PCR on the audio PID. Every sample is carried exactly once.
    @Test func aVideoOnlyOrAudioOnlyMovieMuxesEverySample() throws {
        let (movie, bytes) = try MP4Tests.movie("mp4/clip.mp4")
        var videoOnly = movie, audioOnly = movie
        videoOnly.audio = nil
        audioOnly.video = nil
        for (single, pid, count) in [(videoOnly, TSMuxer.videoPID, 150), (audioOnly, TSMuxer.audioPID, 131)] {
            let segments = MP4HLS.plan(single)
            let carried = segments.reduce(0) { $0 + $1.video.count + $1.audio.count }
            #expect(carried == count)
            let longEnough = segments.dropLast().allSatisfy { $0.durationSeconds >= 1.99 }
            #expect(segments.count == 3 && longEnough, "\(segments)")
            var pes = 0
            for segment in segments {
                var demuxer = TSDemuxer()
                var events = demuxer.feed(try MP4HLS.transportStream(segment, of: single, from: MP4Bytes(bytes))[...], timestampNanoseconds: 0)
                events += demuxer.flush()
                #expect(demuxer.pmt?.pcrPID == pid && demuxer.pmt?.streams.count == 1)
                pes += events.filter { if case .pes(let packet) = $0 { return packet.pid == pid } else { return false } }.count
            }
            #expect(pes == count)
        }
    }

    @Test func aNALLengthPastItsSampleIsRefused() {
        let codec = MP4Codec.avc(sps: [[0x67, 1, 2, 3]], pps: [[0x68, 1]], lengthSize: 4)
        #expect(throws: MP4Error.self) { try MP4HLS.annexB([0, 0, 0, 9, 0x65, 1], codec, keyframe: true, sample: 0) }
        #expect(throws: MP4Error.self) { try MP4HLS.annexB([0, 0, 0], codec, keyframe: false, sample: 0) }
        let ok = try? MP4HLS.annexB([0, 0, 0, 2, 0x41, 9], codec, keyframe: false, sample: 0)
        #expect(ok == [0, 0, 0, 1, 0x09, 0xF0, 0, 0, 0, 1, 0x41, 9])
    }
}
