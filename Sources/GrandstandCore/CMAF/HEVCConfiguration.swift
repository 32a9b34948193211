/// What an HEVC track's sample entry needs (ISO/IEC 14496-15 §8.3.3): the VPS, SPS and PPS, and
/// from the SPS (ITU-T H.265 §7.3.2.2) the general profile/tier/level, chroma format, bit
/// depths and the picture size inside the conformance window.
public struct HEVCConfiguration: Sendable, Equatable {
    public var vps: [UInt8]
    public var sps: [UInt8]
    public var pps: [[UInt8]]
    /// general_profile_space … general_level_idc: the 12 bytes of profile_tier_level(1, …) §7.3.3.
    public var generalProfileTierLevel: [UInt8]
    public var subLayers: UInt8
    public var temporalIDNested: Bool
    public var chromaFormat: UInt8
    public var bitDepthLumaMinus8: UInt8
    public var bitDepthChromaMinus8: UInt8
    public var width: Int
    public var height: Int

    /// Parses `sps` (a whole NAL unit with its 2-byte header); nil when it is not a valid SPS.
    public init?(vps: [UInt8], sps: [UInt8], pps: [[UInt8]]) {
        // The record stores each unit's length and each array's count in 16 bits (§8.3.3.1.2).
        guard sps.count >= 16, sps.count <= 0xFFFF, vps.count <= 0xFFFF, (sps[0] >> 1) & 0x3F == 33, vps.count >= 2,
              (vps[0] >> 1) & 0x3F == 32, !pps.isEmpty, pps.count <= 0xFFFF, pps.allSatisfy({ $0.count <= 0xFFFF }) else { return nil }
        self.vps = vps; self.sps = sps; self.pps = pps
        let rbsp = NALUnits.rbsp(sps[2...])
        guard rbsp.count >= 13 else { return nil }
        subLayers = (rbsp[0] >> 1 & 0x07) + 1
        temporalIDNested = rbsp[0] & 1 == 1
        generalProfileTierLevel = Array(rbsp[1..<13])
        var r = BitstreamReader(rbsp)
        guard r.skip(8 + 96) else { return nil }
        let maxSubLayersMinus1 = Int(subLayers) - 1
        var profilePresent: [Bool] = [], levelPresent: [Bool] = []
        for _ in 0..<maxSubLayersMinus1 {
            guard let p = r.flag(), let l = r.flag() else { return nil }
            profilePresent.append(p); levelPresent.append(l)
        }
        if maxSubLayersMinus1 > 0 { guard r.skip(2 * (8 - maxSubLayersMinus1)) else { return nil } }
        for i in 0..<maxSubLayersMinus1 {
            guard r.skip((profilePresent[i] ? 88 : 0) + (levelPresent[i] ? 8 : 0)) else { return nil }
        }
        guard r.ue() != nil, let chroma = r.ue(), chroma <= 3 else { return nil }   // sps_seq_parameter_set_id
        chromaFormat = UInt8(chroma)
        if chroma == 3 { guard r.skip(1) else { return nil } }
        guard let w = r.ue(), let h = r.ue(), w > 0, h > 0, w <= 16384, h <= 16384, let window = r.flag() else { return nil }
        var crop: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
        if window {
            guard let l = r.ue(), let rt = r.ue(), let t = r.ue(), let b = r.ue() else { return nil }
            crop = (l, rt, t, b)
        }
        guard let luma = r.ue(), luma <= 8, let chromaDepth = r.ue(), chromaDepth <= 8 else { return nil }
        bitDepthLumaMinus8 = UInt8(luma); bitDepthChromaMinus8 = UInt8(chromaDepth)
        // Table 6-1: SubWidthC / SubHeightC scale the conformance window offsets.
        let subWidth = chroma == 1 || chroma == 2 ? 2 : 1, subHeight = chroma == 1 ? 2 : 1
        width = Int(w) - subWidth * (Int(crop.0) + Int(crop.1))
        height = Int(h) - subHeight * (Int(crop.2) + Int(crop.3))
        guard width > 0, height > 0 else { return nil }
    }

    /// The RFC 6381 / ISO/IEC 14496-15 Annex E `codecs` value, e.g. `hvc1.1.6.L93.B0`.
    public var codecString: String {
        let ptl = generalProfileTierLevel
        let space = ptl[0] >> 6, tier = ptl[0] >> 5 & 1, idc = ptl[0] & 0x1F
        // The compatibility flags in reverse bit order, hexadecimal.
        let flags = UInt32(ptl[1]) << 24 | UInt32(ptl[2]) << 16 | UInt32(ptl[3]) << 8 | UInt32(ptl[4])
        var reversed: UInt32 = 0
        for i in 0..<32 where flags >> i & 1 == 1 { reversed |= 1 << (31 - i) }
        var out = "hvc1." + (space == 0 ? "" : String(UnicodeScalar(UInt8(64) + space))) + String(idc)
        out += "." + String(reversed, radix: 16).uppercased()
        out += "." + (tier == 1 ? "H" : "L") + String(ptl[11])
        // Constraint bytes, trailing zero bytes omitted.
        var constraints = Array(ptl[5..<11])
        while let last = constraints.last, last == 0 { constraints.removeLast() }
        for b in constraints { out += "." + String(b, radix: 16).uppercased() }
        return out
    }

    /// HEVCDecoderConfigurationRecord (ISO/IEC 14496-15 §8.3.3.1.2), 4-byte NAL lengths, with
    /// one complete array each of VPS, SPS and PPS.
    public var decoderConfigurationRecord: [UInt8] {
        var w = ISOBoxWriter(capacity: 64 + vps.count + sps.count)
        w.u8(1)
        w.append(generalProfileTierLevel)
        w.u16(0xF000)   // min_spatial_segmentation_idc 0
        w.u8(0xFC)      // parallelismType 0 (unknown)
        w.u8(0xFC | chromaFormat)
        w.u8(0xF8 | bitDepthLumaMinus8)
        w.u8(0xF8 | bitDepthChromaMinus8)
        w.u16(0)        // avgFrameRate unknown
        w.u8((subLayers & 0x07) << 3 | (temporalIDNested ? 0x04 : 0) | 3)
        let arrays: [(UInt8, [[UInt8]])] = [(32, [vps]), (33, [sps]), (34, pps)]
        w.u8(UInt8(arrays.count))
        for (type, units) in arrays {
            w.u8(0x80 | type)
            w.u16(UInt16(units.count))
            for unit in units { w.u16(UInt16(unit.count)); w.append(unit) }
        }
        return w.bytes
    }
}
