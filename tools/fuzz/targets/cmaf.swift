// The CMAF side's parsers on arbitrary bytes: H.264 and HEVC parameter sets (SPS with every
// Exp-Golomb field, VPS/SPS/PPS records), ADTS frames and headers, and TrackExtraction on
// arbitrary "chunks". Any value parsed yields a record the writer can emit and a codecs string;
// a parsed picture size is positive; extraction either refuses the bytes or returns whole boxes.
@testable import GrandstandCore

func fuzzOne(_ bytes: [UInt8]) {
    var cursor = FuzzCursor(bytes)
    let split = Int(cursor.u8())
    let first = Array(cursor.take(split)), rest = Array(cursor.take(bytes.count))
    if let avc = AVCConfiguration(sps: [0x67] + first, pps: [[0x68] + rest.prefix(8)]) {
        require(avc.width > 0 && avc.height > 0, "H.264 size \(avc.width)x\(avc.height)")
        _ = avc.codecString
        let track = CMAFTrack(id: 1, codec: .avc(avc))
        require(InitSegment.bytes(tracks: [track]).count > 100, "a header")
    }
    if let hevc = HEVCConfiguration(vps: [0x40, 0x01] + rest.prefix(4), sps: [0x42, 0x01] + first, pps: [[0x44, 0x01]]) {
        require(hevc.width > 0 && hevc.height > 0, "HEVC size")
        _ = hevc.codecString
        require(hevc.decoderConfigurationRecord.count >= 23, "hvcC")
    }
    let (frames, _) = ADTSFrame.frames(bytes[...])
    require(frames.reduce(0) { $0 + $1.payload.count } <= bytes.count, "frames come from the input")
    if let configuration = ADTSFrame.configuration(header: bytes[...]) { _ = configuration.audioSpecificConfig }
    if let extracted = try? TrackExtraction.extract(track: UInt32(split & 3), from: bytes[...]) {
        var at = 0
        while at + 8 <= extracted.count {
            let size = Int(extracted[at]) << 24 | Int(extracted[at + 1]) << 16 | Int(extracted[at + 2]) << 8 | Int(extracted[at + 3])
            require(size >= 8 && at + size <= extracted.count, "extraction writes whole boxes")
            at += size
        }
        require(at == extracted.count, "no trailing bytes")
    }
    _ = NALUnits.rbsp(bytes[...])
    _ = NALUnits.split(bytes[...])
}
