/// What an H.264 track's sample entry needs (ISO/IEC 14496-15 §5.3.3): the sequence and
/// picture parameter sets, and from the SPS (ITU-T H.264 §7.3.2.1.1) the profile, level, chroma
/// format, bit depths and the cropped picture size.
public struct AVCConfiguration: Sendable, Equatable {
    public var sps: [UInt8]
    public var pps: [[UInt8]]
    public var profile: UInt8
    public var compatibility: UInt8
    public var level: UInt8
    public var chromaFormat: UInt8 = 1
    public var bitDepthLumaMinus8: UInt8 = 0
    public var bitDepthChromaMinus8: UInt8 = 0
    public var width: Int
    public var height: Int

    /// Parses `sps` (a whole NAL unit, header included); nil when it is not a valid SPS.
    public init?(sps: [UInt8], pps: [[UInt8]]) {
        // The record stores each set's length in 16 bits and the PPS count in 8 (§5.3.3.1).
        guard sps.count >= 4, sps.count <= 0xFFFF, sps[0] & 0x1F == 7, !pps.isEmpty, pps.count <= 255,
              pps.allSatisfy({ $0.count <= 0xFFFF }) else { return nil }
        self.sps = sps
        self.pps = pps
        profile = sps[1]; compatibility = sps[2]; level = sps[3]
        var r = BitstreamReader(NALUnits.rbsp(sps[4...]))
        guard r.ue() != nil else { return nil }   // seq_parameter_set_id
        if [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].contains(profile) {
            guard let chroma = r.ue(), chroma <= 3 else { return nil }
            chromaFormat = UInt8(chroma)
            if chroma == 3 { guard r.skip(1) else { return nil } }
            guard let luma = r.ue(), luma <= 6, let chromaDepth = r.ue(), chromaDepth <= 6 else { return nil }
            bitDepthLumaMinus8 = UInt8(luma); bitDepthChromaMinus8 = UInt8(chromaDepth)
            guard r.skip(1), let scaling = r.flag() else { return nil }   // qpprime_y_zero_transform_bypass_flag
            if scaling {
                for i in 0..<(chroma == 3 ? 12 : 8) {
                    guard let present = r.flag() else { return nil }
                    if present, !Self.skipScalingList(&r, size: i < 6 ? 16 : 64) { return nil }
                }
            }
        }
        guard r.ue() != nil, let pocType = r.ue() else { return nil }   // log2_max_frame_num_minus4
        switch pocType {
        case 0: guard r.ue() != nil else { return nil }
        case 1:
            guard r.skip(1), r.se() != nil, r.se() != nil, let cycle = r.ue(), cycle <= 255 else { return nil }
            for _ in 0..<cycle { guard r.se() != nil else { return nil } }
        case 2: break
        default: return nil
        }
        guard r.ue() != nil, r.skip(1), let widthMBs = r.ue(), let heightMaps = r.ue(),
              let frameMBsOnly = r.flag(), widthMBs < 1024, heightMaps < 1024 else { return nil }
        if !frameMBsOnly { guard r.skip(1) else { return nil } }   // mb_adaptive_frame_field_flag
        guard r.skip(1), let cropping = r.flag() else { return nil }   // direct_8x8_inference_flag
        var crop: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
        if cropping {
            guard let l = r.ue(), let rt = r.ue(), let t = r.ue(), let b = r.ue() else { return nil }
            crop = (l, rt, t, b)
        }
        // §7.4.2.1.1: crop units follow the chroma subsampling and field coding.
        let unitX = chromaFormat == 1 || chromaFormat == 2 ? 2 : 1
        let unitY = (chromaFormat == 1 ? 2 : 1) * (frameMBsOnly ? 1 : 2)
        // Offsets are ue(v) up to 2^32 − 1: summed as Int, never in UInt32 (found by the `cmaf` fuzz target).
        width = (Int(widthMBs) + 1) * 16 - unitX * (Int(crop.0) + Int(crop.1))
        height = (frameMBsOnly ? 1 : 2) * (Int(heightMaps) + 1) * 16 - unitY * (Int(crop.2) + Int(crop.3))
        guard width > 0, height > 0 else { return nil }
    }

    /// scaling_list() (§7.3.2.1.1.1): read only to get past it.
    private static func skipScalingList(_ r: inout BitstreamReader, size: Int) -> Bool {
        var last: Int32 = 8, next: Int32 = 8
        for _ in 0..<size {
            if next != 0 {
                // delta_scale is in −128…127 (§7.4.2.1.1.1); anything else is not an SPS.
                guard let delta = r.se(), (-128...127).contains(delta) else { return false }
                next = (last + delta + 256) % 256
            }
            if next != 0 { last = next }
        }
        return true
    }

    /// The RFC 6381 `codecs` value, e.g. `avc1.64001f`.
    public var codecString: String {
        "avc1." + [profile, compatibility, level].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// AVCDecoderConfigurationRecord (ISO/IEC 14496-15 §5.3.3.1), 4-byte NAL lengths.
    public var decoderConfigurationRecord: [UInt8] {
        var w = ISOBoxWriter(capacity: 64 + sps.count)
        w.u8(1); w.u8(profile); w.u8(compatibility); w.u8(level)
        w.u8(0xFC | 3)   // lengthSizeMinusOne
        w.u8(0xE0 | 1); w.u16(UInt16(sps.count)); w.append(sps)
        w.u8(UInt8(pps.count))
        for p in pps { w.u16(UInt16(p.count)); w.append(p) }
        if [100, 110, 122, 144].contains(profile) {
            w.u8(0xFC | chromaFormat); w.u8(0xF8 | bitDepthLumaMinus8); w.u8(0xF8 | bitDepthChromaMinus8); w.u8(0)
        }
        return w.bytes
    }
}
