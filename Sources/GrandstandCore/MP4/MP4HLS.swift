/// An HLS rendition of a progressive MP4: TS segments (ISO/IEC 13818-1) cut at video keyframes
/// near a target duration, H.264 as Annex B (ISO/IEC 14496-10 Annex B) with an access unit
/// delimiter and the SPS/PPS before each keyframe, AAC as ADTS (ISO/IEC 13818-7 §6.2). Samples
/// are read one at a time from the source (a segment's TS is held, never the file).
public enum MP4HLS {
    /// One segment: the video and audio samples it carries (decode order) and its duration.
    public struct Segment: Sendable, Equatable {
        public var video: Range<Int>
        public var audio: Range<Int>
        public var durationSeconds: Double
    }

    /// Presentation and decode times of a movie's samples on one 90 kHz clock (the first edit
    /// applied), shifted so no decode time is negative.
    struct Clock {
        let base: Int64

        init(_ movie: MP4Movie) {
            var lowest: Int64 = 0
            if let video = movie.video, let first = video.samples.first { lowest = min(lowest, Self.ticks(first.dts - video.startOffset, video.timescale)) }
            if let audio = movie.audio, let first = audio.samples.first { lowest = min(lowest, Self.ticks(first.dts - audio.startOffset, audio.timescale)) }
            base = 126_000 - lowest   // 1.4 s, as ffmpeg starts TS
        }

        static func ticks(_ value: Int64, _ timescale: Int64) -> Int64 {
            value.multipliedReportingOverflow(by: 90_000).overflow ? value / timescale * 90_000 : value * 90_000 / timescale
        }

        func dts(_ sample: MP4Sample, _ track: MP4Movie.Track) -> Int64 { Self.ticks(sample.dts - track.startOffset, track.timescale) + base }
        func pts(_ sample: MP4Sample, _ track: MP4Movie.Track) -> Int64 {
            Self.ticks(sample.dts + Int64(sample.compositionOffset) - track.startOffset, track.timescale) + base
        }
    }

    /// Segments cut at the first keyframe (every audio frame, without video) at least
    /// `targetSeconds` after the segment's start.
    public static func plan(_ movie: MP4Movie, targetSeconds: Double = 2) -> [Segment] {
        let clock = Clock(movie)
        let target = Int64(targetSeconds * 90_000) - 90   // 1 ms of slack for rounded timescales
        // The cut points: (video index, time) in decode order.
        var cuts: [(index: Int, time: Int64)] = []
        let timing = movie.video ?? movie.audio
        guard let timing, let firstSample = timing.samples.first else { return [] }
        for (index, sample) in timing.samples.enumerated() where sample.sync {
            let time = clock.pts(sample, timing)
            if let last = cuts.last, time - last.time < target { continue }
            cuts.append((cuts.isEmpty ? 0 : index, time))
        }
        if cuts.isEmpty { cuts = [(0, clock.pts(firstSample, timing))] }
        let audio = movie.video == nil ? nil : movie.audio
        let audioTimes = audio.map { track in track.samples.map { clock.pts($0, track) } } ?? []
        // Durations run from the first keyframe's presentation (audio before it, such as AAC
        // priming an edit list hides, rides in the first segment).
        var start = cuts[0].time
        let end = max(endTime(timing, clock), audio.map { endTime($0, clock) } ?? 0)
        var segments: [Segment] = []
        var audioIndex = 0
        for (n, cut) in cuts.enumerated() {
            let nextIndex = n + 1 < cuts.count ? cuts[n + 1].index : timing.samples.count
            let nextTime = n + 1 < cuts.count ? cuts[n + 1].time : end
            let audioStart = audioIndex
            while audioIndex < audioTimes.count, n + 1 == cuts.count || audioTimes[audioIndex] < nextTime { audioIndex += 1 }
            let video = movie.video == nil ? 0..<0 : cut.index..<nextIndex
            let audioRange = movie.video == nil ? cut.index..<nextIndex : audioStart..<audioIndex
            segments.append(Segment(video: video, audio: audioRange, durationSeconds: Double(max(0, nextTime - start)) / 90_000))
            start = nextTime
        }
        return segments
    }

    /// Where a track's presentation ends: its latest presentation time plus its last sample's duration.
    private static func endTime(_ track: MP4Movie.Track, _ clock: Clock) -> Int64 {
        let samples = track.samples
        let last = samples.map { clock.pts($0, track) }.max() ?? 0
        let duration = samples.count > 1 ? clock.dts(samples[samples.count - 1], track) - clock.dts(samples[samples.count - 2], track) : 0
        return last + duration
    }

    /// The media playlist naming segment `n` as `name(n)`.
    public static func playlist(_ segments: [Segment], name: (Int) -> String) -> String {
        VODPlaylist.render(segments.enumerated().map { VODSegment(uri: name($0.offset), durationSeconds: $0.element.durationSeconds) })
    }

    /// Segment `segment` as TS, its samples read from `source`.
    public static func transportStream(_ segment: Segment, of movie: MP4Movie, from source: some MP4ByteSource) throws(MP4Error) -> [UInt8] {
        let clock = Clock(movie)
        var muxer = TSMuxer(video: movie.video != nil, audio: movie.audio != nil)
        muxer.writeTables()
        var v = segment.video.lowerBound, a = segment.audio.lowerBound
        while v < segment.video.upperBound || a < segment.audio.upperBound {
            let takeVideo: Bool
            if let video = movie.video, v < segment.video.upperBound {
                if let audio = movie.audio, a < segment.audio.upperBound {
                    takeVideo = clock.dts(video.samples[v], video) <= clock.dts(audio.samples[a], audio)
                } else {
                    takeVideo = true
                }
            } else {
                takeVideo = false
            }
            if takeVideo, let video = movie.video {
                let sample = video.samples[v]
                let bytes = try read(sample, number: v, of: video, source)
                muxer.writeVideo(try annexB(bytes, video.codec, keyframe: sample.sync, sample: v), pts: clock.pts(sample, video),
                                 dts: clock.dts(sample, video), keyframe: sample.sync)
                v += 1
            } else if let audio = movie.audio {
                let sample = audio.samples[a]
                let bytes = try read(sample, number: a, of: audio, source)
                muxer.writeAudio(try adts(bytes, audio.codec), pts: clock.pts(sample, audio))
                a += 1
            } else {
                break
            }
        }
        return muxer.take()
    }

    private static func read(_ sample: MP4Sample, number: Int, of track: MP4Movie.Track, _ source: some MP4ByteSource) throws(MP4Error) -> [UInt8] {
        guard let bytes = source.read(at: sample.offset, count: Int(sample.size)) else {
            throw .truncated("track \(track.id) sample \(number + 1): \(sample.size) bytes at \(sample.offset) cannot be read")
        }
        return bytes
    }

    /// Length-prefixed NAL units (14496-15 §5.3.2) as Annex B: an access unit delimiter, the
    /// parameter sets before a keyframe, each NAL unit after a 4-byte start code.
    static func annexB(_ sample: [UInt8], _ codec: MP4Codec, keyframe: Bool, sample number: Int) throws(MP4Error) -> [UInt8] {
        guard case .avc(let sps, let pps, let lengthSize) = codec else { return sample }
        let startCode: [UInt8] = [0, 0, 0, 1]
        var out: [UInt8] = startCode + [0x09, 0xF0]
        out.reserveCapacity(sample.count + 64)
        if keyframe { for set in sps + pps { out += startCode + set } }
        var offset = 0
        while offset < sample.count {
            guard sample.count - offset >= lengthSize else { throw .malformed("video sample \(number + 1): a NAL length cut at byte \(offset)") }
            var length = 0
            for i in 0..<lengthSize { length = length << 8 | Int(sample[offset + i]) }
            offset += lengthSize
            guard length <= sample.count - offset else {
                throw .malformed("video sample \(number + 1): a NAL unit of \(length) bytes, \(sample.count - offset) left")
            }
            let type = length > 0 ? sample[offset] & 0x1F : 0
            if length > 0, type != 9 { out += startCode; out += sample[offset..<offset + length] }
            offset += length
        }
        return out
    }

    /// A raw AAC frame behind a 7-byte ADTS header (13818-7 §6.2.1, no CRC).
    static func adts(_ frame: [UInt8], _ codec: MP4Codec) throws(MP4Error) -> [UInt8] {
        guard case .aac(let objectType, let frequency, let channels) = codec else { return frame }
        let length = frame.count + 7
        guard length <= 0x1FFF else { throw .unsupported("an AAC frame of \(frame.count) bytes (ADTS carries at most 8184)") }
        let header: [UInt8] = [
            0xFF, 0xF1, (objectType - 1) << 6 | frequency << 2 | channels >> 2, (channels & 0x03) << 6 | UInt8(length >> 11),
            UInt8((length >> 3) & 0xFF), UInt8((length & 0x07) << 5) | 0x1F, 0xFC,
        ]
        return header + frame
    }
}
