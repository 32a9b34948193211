/// Reads CMAF chunks back into their track runs: each `moof`'s `traf`s (`tfhd` track, `tfdt`
/// decode time, `trun` samples) with the samples' bytes out of the `mdat` that follows
/// (ISO/IEC 14496-12 §8.8.7–8.8.8). Takes the layout `MovieFragment` writes (default-base-is-moof,
/// every trun sample field present), which is what the gateway keeps and re-times for live
/// breaks (`BreakMedia`); anything else is `malformed`.
public enum FragmentReader {
    /// The runs of every chunk in `bytes`, chunk after chunk, track after track.
    public static func runs(_ bytes: ArraySlice<UInt8>) throws(TrackExtraction.Failure) -> [TrackRun] {
        var out: [TrackRun] = []
        var at = bytes.startIndex
        while at < bytes.endIndex {
            guard let moof = TrackExtraction.box(bytes, at), moof.type == "moof",
                  let mdat = TrackExtraction.box(bytes, moof.end), mdat.type == "mdat" else { throw .malformed }
            var child = moof.content.lowerBound
            while child < moof.end {
                guard let b = TrackExtraction.box(bytes, child) else { throw .malformed }
                if b.type == "traf" { out.append(try run(bytes, b, moofStart: moof.start, mdat: mdat.content)) }
                child = b.end
            }
            at = mdat.end
        }
        return out
    }

    /// Decode time of `track`'s first sample and the total duration of its samples in `bytes`
    /// (its timescale), nil when the chunks hold none of it.
    public static func span(_ bytes: ArraySlice<UInt8>, track: UInt32) throws(TrackExtraction.Failure) -> (start: UInt64, duration: UInt64)? {
        let mine = try runs(bytes).filter { $0.trackID == track && !$0.samples.isEmpty }
        guard let first = mine.first else { return nil }
        return (first.baseDecodeTime, mine.reduce(0) { $0 + $1.samples.reduce(0) { $0 + UInt64($1.duration) } })
    }

    static func run(_ bytes: ArraySlice<UInt8>, _ traf: TrackExtraction.Box, moofStart: Int, mdat: Range<Int>) throws(TrackExtraction.Failure) -> TrackRun {
        var run = TrackRun(trackID: 0, baseDecodeTime: 0)
        var child = traf.content.lowerBound
        while child < traf.end {
            guard let b = TrackExtraction.box(bytes, child) else { throw .malformed }
            let body = bytes[b.content]
            switch b.type {
            case "tfhd":
                guard let track = body.be32(at: 4) else { throw .malformed }
                run.trackID = track
            case "tfdt":
                guard let version = body.octet(at: 0) else { throw .malformed }
                if version == 1 {
                    guard let high = body.be32(at: 4), let low = body.be32(at: 8) else { throw .malformed }
                    run.baseDecodeTime = UInt64(high) << 32 | UInt64(low)
                } else {
                    guard let time = body.be32(at: 4) else { throw .malformed }
                    run.baseDecodeTime = UInt64(time)
                }
            case "trun":
                guard let flags = body.be32(at: 0), flags & 0xF01 == 0xF01, let count = body.be32(at: 4),
                      let offset = body.be32(at: 8), Int(count) <= (body.count - 12) / 16 else { throw .malformed }
                var size = 0
                for i in 0..<Int(count) {
                    let field = 12 + 16 * i
                    guard let duration = body.be32(at: field), let bytes = body.be32(at: field + 4),
                          let sampleFlags = body.be32(at: field + 8), let composition = body.be32(at: field + 12) else { throw .malformed }
                    run.samples.append(FragmentSample(duration: duration, size: bytes, flags: sampleFlags,
                                                      compositionOffset: Int32(bitPattern: composition)))
                    size += Int(bytes)
                }
                let start = moofStart + Int(Int32(bitPattern: offset))
                guard start >= mdat.lowerBound, start <= mdat.upperBound - size else { throw .malformed }
                run.data = Array(bytes[start..<(start + size)])
            default: break
            }
            child = b.end
        }
        return run
    }
}
