/// One track out of interleaved CMAF chunks: each `moof` keeps its `mfhd` and that track's
/// `traf` (its `trun` data offset moved), each `mdat` only that track's samples. DASH wants one
/// track per Representation (ISO/IEC 23000-19 §7.3.2: a CMAF track holds one media track) while
/// HLS and MSE players take the interleaved form; the gateway stores that and cuts a track out
/// per request. Chunks without the track are left out.
public enum TrackExtraction {
    public enum Failure: Error, Sendable, Equatable {
        /// A box size or data offset points outside the bytes (not our own output).
        case malformed
    }

    public static func extract(track: UInt32, from bytes: ArraySlice<UInt8>) throws(Failure) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var at = bytes.startIndex
        while at < bytes.endIndex {
            guard let moof = box(bytes, at), moof.type == "moof", let mdat = box(bytes, moof.end), mdat.type == "mdat" else { throw .malformed }
            var mfhd: ArraySlice<UInt8>?
            var traf: (bytes: ArraySlice<UInt8>, trunOffsetField: Int, dataOffset: Int, dataSize: Int)?
            var child = moof.content.lowerBound
            while child < moof.end {
                guard let b = box(bytes, child) else { throw .malformed }
                if b.type == "mfhd" { mfhd = bytes[child..<b.end] }
                if b.type == "traf", let found = try trackFragment(bytes, b, track: track) {
                    traf = (bytes[child..<b.end], found.offsetField - child, found.dataOffset, found.dataSize)
                }
                child = b.end
            }
            at = mdat.end
            guard let mfhd, let traf else { continue }
            let start = moof.start + traf.dataOffset
            guard start >= mdat.content.lowerBound, start + traf.dataSize <= mdat.end else { throw .malformed }
            let moofSize = 8 + mfhd.count + traf.bytes.count
            var w = ISOBoxWriter(capacity: moofSize + 8 + traf.dataSize)
            w.u32(UInt32(moofSize)); w.fourCC("moof")
            w.append(mfhd)
            let trafStart = w.count
            w.append(traf.bytes)
            w.patch32(at: trafStart + traf.trunOffsetField, UInt32(moofSize + 8))
            w.u32(UInt32(8 + traf.dataSize)); w.fourCC("mdat")
            w.append(bytes[start..<(start + traf.dataSize)])
            out += w.bytes
        }
        return out
    }

    struct Box {
        var type: String
        var start: Int
        var content: Range<Int>
        var end: Int { content.upperBound }
    }

    static func box(_ bytes: ArraySlice<UInt8>, _ at: Int) -> Box? {
        guard at >= bytes.startIndex, let size = bytes[at...].be32(at: 0), size >= 8, Int(size) <= bytes.endIndex - at,
              let type = bytes[at...].bytes(at: 4, length: 4) else { return nil }
        return Box(type: String(decoding: type, as: UTF8.self), start: at, content: (at + 8)..<(at + Int(size)))
    }

    /// The `traf`'s trun data offset field position, offset and total sample size, when it is
    /// `track`'s (as our writer lays it out: tfhd, tfdt, one trun with every sample field).
    static func trackFragment(_ bytes: ArraySlice<UInt8>, _ traf: Box, track: UInt32) throws(Failure)
        -> (offsetField: Int, dataOffset: Int, dataSize: Int)? {
        var child = traf.content.lowerBound
        var isTrack = false
        while child < traf.end {
            guard let b = box(bytes, child) else { throw .malformed }
            let body = bytes[b.content]
            if b.type == "tfhd" { isTrack = body.be32(at: 4) == track }
            if b.type == "trun", isTrack {
                guard let flags = body.be32(at: 0), flags & 0xF01 == 0xF01, let count = body.be32(at: 4),
                      let offset = body.be32(at: 8), Int(count) <= body.count / 16 else { throw .malformed }
                var size = 0
                for i in 0..<Int(count) {
                    guard let s = body.be32(at: 12 + 16 * i + 4) else { throw .malformed }
                    size += Int(s)
                }
                return (b.content.lowerBound + 8, Int(Int32(bitPattern: offset)), size)
            }
            child = b.end
        }
        return nil
    }
}
