/// A live break's media on a CMAF channel (docs/inserts.md "Live channels on CMAF"): the
/// inserts' TS, transmuxed once through the channel's own packaging (`Segmenter`,
/// `CMAFFragmenter`), kept as samples timed from the break's first video frame. The break
/// *replaces* the channel's media for its duration: each live chunk (segment or part) the break
/// covers is answered with the insert samples of the same time span, re-timed onto the live
/// chunk's own decode times, so a player's buffer runs on without a timestamp jump and the
/// channel's numbering, parts and blocking reloads stay as they are.
public struct BreakMedia: Sendable {
    public enum Failure: Error, Sendable, Equatable {
        /// No H.264/HEVC/AAC media came out of the inserts' TS.
        case noMedia
        /// The inserts change codec parameters part way: one header must serve the whole break.
        case headerChanged
    }

    /// One sample, its decode time relative to the break's start in its track's timescale.
    struct Timed: Sendable {
        var relative: Int64
        var sample: FragmentSample
        var data: ArraySlice<UInt8>
    }

    /// The break's init segment (`ftyp`+`moov`) and its tracks.
    public let initSegment: [UInt8]
    public let tracks: [CMAFTrack]
    /// Samples per track, in decode order (same order as `tracks`).
    let samples: [[Timed]]
    /// The break's length in 90 kHz ticks: the end of its timing track (video, else audio).
    public let durationTicks: Int64

    /// The inserts' TS segments, in playing order, packaged the way the channel packages its own.
    public static func transmux(_ segments: [[UInt8]]) throws(Failure) -> BreakMedia {
        var configuration = SegmenterConfiguration(targetDuration: 2, partTarget: 2)
        configuration.collectsSamples = true
        var segmenter = Segmenter(configuration: configuration)
        var fragmenter = CMAFFragmenter()
        var header: [UInt8]?, chunks: [UInt8] = [], changed = false
        func take(_ events: [SegmenterEvent]) {
            for event in events {
                for output in fragmenter.apply(event) {
                    if let fresh = output.newInit {
                        if header != nil, header != fresh.bytes { changed = true }
                        header = header ?? fresh.bytes
                    }
                    if case .part(let part) = output.event { chunks += part.bytes }
                }
            }
        }
        for segment in segments { take(segmenter.ingest(segment[...], timestampNanoseconds: 0)) }
        take(segmenter.finish())
        guard !changed else { throw .headerChanged }
        guard let header, let tracks = fragmenter.current?.tracks, let runs = try? FragmentReader.runs(chunks[...]) else { throw .noMedia }
        return try BreakMedia(header: header, tracks: tracks, runs: runs)
    }

    init(header: [UInt8], tracks: [CMAFTrack], runs: [TrackRun]) throws(Failure) {
        guard let timing = tracks.first(where: { $0.codec.isVideo }) ?? tracks.first,
              let origin = runs.first(where: { $0.trackID == timing.id && !$0.samples.isEmpty })?.baseDecodeTime else { throw .noMedia }
        var samples: [[Timed]] = []
        for track in tracks {
            // The break starts at the timing track's first sample; other tracks keep their distance.
            let start = Self.convert(Int64(origin), from: timing.timescale, to: track.timescale)
            var list: [Timed] = []
            for run in runs where run.trackID == track.id {
                var time = Int64(run.baseDecodeTime) - start, offset = 0
                for sample in run.samples {
                    list.append(Timed(relative: time, sample: sample, data: run.data[offset..<(offset + Int(sample.size))]))
                    time += Int64(sample.duration); offset += Int(sample.size)
                }
            }
            samples.append(list)
        }
        let index = tracks.firstIndex { $0.id == timing.id } ?? 0
        let end = samples[index].last.map { $0.relative + Int64($0.sample.duration) } ?? 0
        guard end > 0 else { throw .noMedia }
        initSegment = header
        self.tracks = tracks
        self.samples = samples
        durationTicks = Self.convert(end, from: timing.timescale, to: UInt32(MediaClock.ticksPerSecond))
    }

    /// `ticks` of timescale `from` in timescale `to`, rounded down.
    static func convert(_ ticks: Int64, from: UInt32, to: UInt32) -> Int64 {
        from == to ? ticks : (ticks * Int64(to)).dividedFloor(by: Int64(from))
    }

    /// What one live chunk of the break holds: the insert samples whose decode time falls in
    /// `span` (90 kHz, relative to the break's start). The first chunk also takes what precedes
    /// the break's start (audio leading the video), the chunk reaching the break's end whatever
    /// trails it; a span from the end on holds nothing.
    func selection(_ span: Range<Int64>) -> [ArraySlice<Timed>] {
        zip(tracks, samples).map { track, list in
            guard span.lowerBound < durationTicks else { return list[list.endIndex...] }
            let low = span.lowerBound <= 0 ? Int64.min : Self.convert(span.lowerBound, from: 90_000, to: track.timescale)
            let high = span.upperBound >= durationTicks ? Int64.max : Self.convert(span.upperBound, from: 90_000, to: track.timescale)
            let first = list.firstIndex { $0.relative >= low } ?? list.endIndex
            let end = list[first...].firstIndex { $0.relative >= high } ?? list.endIndex
            return list[first..<end]
        }
    }

    /// Whether the chunk for `span` has samples, and starts with a sync sample of the timing
    /// track (EXT-X-PART INDEPENDENT=YES).
    public func describe(_ span: Range<Int64>) -> (empty: Bool, independent: Bool) {
        let chosen = selection(span)
        let empty = chosen.allSatisfy(\.isEmpty)
        let timing = tracks.firstIndex { $0.codec.isVideo } ?? 0
        let first = chosen[timing].first
        return (empty, first.map { $0.sample.flags & SampleFlags.sync == SampleFlags.sync || !tracks[timing].codec.isVideo } ?? false)
    }

    /// The chunk answering a live chunk of the break: the samples of `span` (90 kHz, relative to
    /// the break's start) re-timed so the break's start is `anchorTicks` (90 kHz, the live
    /// chunk timeline's decode time where the break begins). Nil when the span holds nothing.
    public func chunk(sequence: UInt32, span: Range<Int64>, anchorTicks: Int64) -> [UInt8]? {
        var runs: [TrackRun] = []
        for (track, chosen) in zip(tracks, selection(span)) where !chosen.isEmpty {
            let base = Self.convert(anchorTicks, from: 90_000, to: track.timescale) + chosen[chosen.startIndex].relative
            guard base >= 0 else { return nil }
            var run = TrackRun(trackID: track.id, baseDecodeTime: UInt64(base))
            run.samples = chosen.map(\.sample)
            run.data.reserveCapacity(chosen.reduce(0) { $0 + $1.data.count })
            for timed in chosen { run.data += timed.data }
            runs.append(run)
        }
        return runs.isEmpty ? nil : MovieFragment.bytes(sequence: sequence, runs: runs)
    }
}

extension Int64 {
    /// Division rounding toward −∞ (decode times before the break's start are negative).
    func dividedFloor(by divisor: Int64) -> Int64 {
        let (q, r) = quotientAndRemainder(dividingBy: divisor)
        return r != 0 && (r < 0) != (divisor < 0) ? q - 1 : q
    }
}
