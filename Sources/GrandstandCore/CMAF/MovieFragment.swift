/// A CMAF chunk (ISO/IEC 23000-19 §7.3.2.3): one `moof` with a `traf` per track and the `mdat`
/// holding their samples, track after track. `tfhd` sets default-base-is-moof, so each `trun`
/// data_offset counts from the start of the `moof` (§8.8.7, §8.8.8); `tfdt` is version 1 and
/// `trun` version 1 (signed composition offsets, as CMAF's `cmf2` brand asks).
public enum MovieFragment {
    /// trun flags: data-offset, sample duration, size, flags and composition offset present.
    static let trunFlags: UInt32 = 0x000001 | 0x000100 | 0x000200 | 0x000400 | 0x000800

    public static func bytes(sequence: UInt32, runs: [TrackRun]) -> [UInt8] {
        let dataBytes = runs.reduce(0) { $0 + $1.data.count }
        var w = ISOBoxWriter(capacity: 256 + runs.reduce(0) { $0 + 16 * $1.samples.count } + dataBytes)
        var offsetFields: [Int] = []
        w.box("moof") { w in
            w.fullBox("mfhd", version: 0, flags: 0) { w in w.u32(sequence) }
            for run in runs {
                w.box("traf") { w in
                    w.fullBox("tfhd", version: 0, flags: 0x020000) { w in w.u32(run.trackID) }
                    w.fullBox("tfdt", version: 1, flags: 0) { w in w.u64(run.baseDecodeTime) }
                    w.fullBox("trun", version: 1, flags: trunFlags) { w in
                        w.u32(UInt32(run.samples.count))
                        offsetFields.append(w.count)
                        w.i32(0)
                        for s in run.samples {
                            w.u32(s.duration); w.u32(s.size); w.u32(s.flags); w.i32(s.compositionOffset)
                        }
                    }
                }
            }
        }
        // The mdat header follows the moof; each track's bytes follow the previous track's.
        var offset = w.count + 8
        for (field, run) in zip(offsetFields, runs) {
            w.patch32(at: field, UInt32(offset))
            offset += run.data.count
        }
        w.u32(UInt32(8 + dataBytes)); w.fourCC("mdat")
        for run in runs { w.append(run.data) }
        return w.bytes
    }
}
