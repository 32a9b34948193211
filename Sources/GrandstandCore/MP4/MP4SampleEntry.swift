/// A track's codec as its sample entry (`stsd`) describes it: H.264 with its parameter sets and
/// NAL length size (`avc1`/`avc3` + `avcC`, ISO/IEC 14496-15 §5.3.3), or AAC with its
/// AudioSpecificConfig (`mp4a` + `esds`, ISO/IEC 14496-14 §5.6, ISO/IEC 14496-3 §1.6.2.1).
public enum MP4Codec: Sendable, Equatable {
    case avc(sps: [[UInt8]], pps: [[UInt8]], lengthSize: Int)
    /// `objectType` 1–4 (ADTS carries profile = objectType − 1), the sampling frequency index and channel configuration.
    case aac(objectType: UInt8, frequencyIndex: UInt8, channels: UInt8)

    static let sampleRates = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]

    /// The sample entry of `stsd`'s payload (its first entry).
    static func parse(stsd bytes: [UInt8], _ range: Range<Int>) throws(MP4Error) -> MP4Codec {
        var cursor = MP4Cursor(bytes, range, box: "stsd")
        try cursor.skip(4)   // version, flags
        guard try cursor.u32() >= 1 else { throw .malformed("stsd has no sample entry") }
        guard let entry = try MP4Box.children(bytes, cursor.offset..<cursor.end).first else { throw .malformed("stsd has no sample entry") }
        switch entry.type {
        case "avc1", "avc3": return try avc(bytes, entry.payload, inBand: entry.type == "avc3")
        case "mp4a": return try aac(bytes, entry.payload)
        default: throw .unsupported("sample entry \(entry.type) (H.264 avc1/avc3 and AAC mp4a are played)")
        }
    }

    /// VisualSampleEntry (14496-12 §12.1.3: 78 bytes) then `avcC` (14496-15 §5.3.3.1); `avc3`
    /// may carry its parameter sets in the samples only (§5.4.2.1).
    private static func avc(_ bytes: [UInt8], _ range: Range<Int>, inBand: Bool) throws(MP4Error) -> MP4Codec {
        guard range.count >= 78 else { throw .truncated("avc1: \(range.count) bytes, a visual sample entry takes 78") }
        let config = try MP4Box.child("avcC", bytes, range.lowerBound + 78..<range.upperBound, in: "avc1")
        var cursor = MP4Cursor(bytes, config, box: "avcC")
        guard try cursor.u8() == 1 else { throw .unsupported("avcC configurationVersion is not 1") }
        try cursor.skip(3)   // profile, compatibility, level
        let lengthSize = Int(try cursor.u8() & 0x03) + 1
        guard lengthSize != 3 else { throw .malformed("avcC lengthSizeMinusOne is 2") }
        var sps: [[UInt8]] = [], pps: [[UInt8]] = []
        for _ in 0..<(try cursor.u8() & 0x1F) { sps.append(try cursor.take(Int(try cursor.u16()))) }
        for _ in 0..<(try cursor.u8()) { pps.append(try cursor.take(Int(try cursor.u16()))) }
        guard inBand || (!sps.isEmpty && !pps.isEmpty) else { throw .malformed("avcC has no SPS or no PPS") }
        return .avc(sps: sps, pps: pps, lengthSize: lengthSize)
    }

    /// AudioSampleEntry (14496-12 §12.2.3: 28 bytes; QuickTime versions 1 and 2 are longer) then `esds`.
    private static func aac(_ bytes: [UInt8], _ range: Range<Int>) throws(MP4Error) -> MP4Codec {
        var cursor = MP4Cursor(bytes, range, box: "mp4a")
        try cursor.skip(8)
        let version = try cursor.u16()
        try cursor.skip(18)
        switch version {
        case 0: break
        case 1: try cursor.skip(16)
        case 2: try cursor.skip(36)
        default: throw .unsupported("mp4a sound description version \(version)")
        }
        let esds = try MP4Box.child("esds", bytes, cursor.offset..<cursor.end, in: "mp4a")
        return try audioSpecificConfig(try decoderSpecificInfo(bytes, esds))
    }

    /// The DecoderSpecificInfo inside ES_Descriptor → DecoderConfigDescriptor (ISO/IEC 14496-1 §7.2.6).
    private static func decoderSpecificInfo(_ bytes: [UInt8], _ range: Range<Int>) throws(MP4Error) -> [UInt8] {
        var cursor = MP4Cursor(bytes, range, box: "esds")
        try cursor.skip(4)   // version, flags
        func descriptor(_ cursor: inout MP4Cursor, _ tag: UInt8) throws(MP4Error) -> Int {
            let found = try cursor.u8()
            guard found == tag else { throw .malformed("esds: descriptor tag \(found), expected \(tag)") }
            var length = 0
            for _ in 0..<4 {
                let byte = try cursor.u8()
                length = length << 7 | Int(byte & 0x7F)
                if byte & 0x80 == 0 { break }
            }
            try cursor.need(length)
            return length
        }
        _ = try descriptor(&cursor, 0x03)
        try cursor.skip(2)   // ES_ID
        let flags = try cursor.u8()
        if flags & 0x80 != 0 { try cursor.skip(2) }
        if flags & 0x40 != 0 { try cursor.skip(Int(try cursor.u8())) }
        if flags & 0x20 != 0 { try cursor.skip(2) }
        _ = try descriptor(&cursor, 0x04)
        let objectType = try cursor.u8()
        guard objectType == 0x40 || objectType == 0x67 else { throw .unsupported("mp4a objectTypeIndication 0x\(String(objectType, radix: 16)) is not AAC") }
        try cursor.skip(12)
        return try cursor.take(try descriptor(&cursor, 0x05))
    }

    /// AudioSpecificConfig (14496-3 §1.6.2.1): object type, frequency index, channel configuration.
    private static func audioSpecificConfig(_ config: [UInt8]) throws(MP4Error) -> MP4Codec {
        guard config.count >= 2 else { throw .truncated("AudioSpecificConfig: \(config.count) bytes") }
        let objectType = config[0] >> 3
        let frequencyIndex = (config[0] & 0x07) << 1 | config[1] >> 7
        let channels = (config[1] >> 3) & 0x0F
        guard (1...4).contains(objectType) else { throw .unsupported("AAC object type \(objectType) (ADTS carries 1–4: Main, LC, SSR, LTP)") }
        guard Int(frequencyIndex) < sampleRates.count else { throw .unsupported("AAC sampling frequency index \(frequencyIndex)") }
        guard (1...7).contains(channels) else { throw .unsupported("AAC channel configuration \(channels)") }
        return .aac(objectType: objectType, frequencyIndex: frequencyIndex, channels: channels)
    }
}
