/// A small MPEG-TS multiplexer (ISO/IEC 13818-1 §2.4): one program with an H.264 stream (PID
/// 0x100, stream_type 0x1B) and/or an AAC ADTS stream (PID 0x101, 0x0F), PAT and PMT (PMT PID
/// 0x1000) at the start of each segment, PES packets with PTS/DTS, PCR on the first stream.
public struct TSMuxer: Sendable {
    public static let pmtPID: UInt16 = 0x1000
    public static let videoPID: UInt16 = 0x100
    public static let audioPID: UInt16 = 0x101

    public let hasVideo: Bool
    public let hasAudio: Bool
    /// The 188-byte packets written so far.
    public private(set) var bytes: [UInt8] = []
    private var continuity: [UInt16: UInt8] = [:]

    public init(video: Bool, audio: Bool) {
        hasVideo = video
        hasAudio = audio
    }

    public var pcrPID: UInt16 { hasVideo ? Self.videoPID : Self.audioPID }

    /// Hands out the packets written so far and starts afresh (continuity counters run on).
    public mutating func take() -> [UInt8] {
        defer { bytes = [] }
        return bytes
    }

    /// PAT (§2.4.4.3) and PMT (§2.4.4.8), each one section in one packet.
    public mutating func writeTables() {
        let pat: [UInt8] = [0x00, 0x01, 0xC1, 0x00, 0x00, 0x00, 0x01, 0xE0 | UInt8(Self.pmtPID >> 8), UInt8(Self.pmtPID & 0xFF)]
        writeSection(pid: 0, tableID: 0x00, pat)
        var pmt: [UInt8] = [0x00, 0x01, 0xC1, 0x00, 0x00, 0xE0 | UInt8(pcrPID >> 8), UInt8(pcrPID & 0xFF), 0xF0, 0x00]
        if hasVideo { pmt += [0x1B, 0xE0 | UInt8(Self.videoPID >> 8), UInt8(Self.videoPID & 0xFF), 0xF0, 0x00] }
        if hasAudio { pmt += [0x0F, 0xE0 | UInt8(Self.audioPID >> 8), UInt8(Self.audioPID & 0xFF), 0xF0, 0x00] }
        writeSection(pid: Self.pmtPID, tableID: 0x02, pmt)
    }

    /// One H.264 access unit in Annex B (§2.14 of ISO/IEC 13818-1: stream_id 0xE0), 90 kHz times.
    public mutating func writeVideo(_ accessUnit: [UInt8], pts: Int64, dts: Int64, keyframe: Bool) {
        writePES(pid: Self.videoPID, streamID: 0xE0, accessUnit, pts: pts, dts: dts == pts ? nil : dts, randomAccess: keyframe,
                 pcr: pcrPID == Self.videoPID ? max(0, dts - 9000) : nil)
    }

    /// ADTS frames (ISO/IEC 13818-7 §6.2; stream_id 0xC0), 90 kHz PTS.
    public mutating func writeAudio(_ frames: [UInt8], pts: Int64) {
        writePES(pid: Self.audioPID, streamID: 0xC0, frames, pts: pts, dts: nil, randomAccess: true,
                 pcr: pcrPID == Self.audioPID ? max(0, pts - 9000) : nil)
    }

    private mutating func counter(_ pid: UInt16) -> UInt8 {
        let value = continuity[pid, default: 0]
        continuity[pid] = (value + 1) & 0x0F
        return value
    }

    private mutating func writeSection(pid: UInt16, tableID: UInt8, _ body: [UInt8]) {
        let length = body.count + 4   // section_length counts the CRC
        var section: [UInt8] = [tableID, 0xB0 | UInt8(length >> 8), UInt8(length & 0xFF)] + body
        let crc = CRC32MPEG2.checksum(section)
        section += [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
        var packet: [UInt8] = [0x47, 0x40 | UInt8(pid >> 8), UInt8(pid & 0xFF), 0x10 | counter(pid), 0x00] + section
        packet += [UInt8](repeating: 0xFF, count: 188 - packet.count)
        bytes += packet
    }

    /// A 33-bit timestamp in the 5-byte PES form (§2.4.3.7) with its 4-bit prefix.
    static func timestamp(_ value: Int64, prefix: UInt8) -> [UInt8] {
        let ts = UInt64(bitPattern: value) & 0x1_FFFF_FFFF
        return [prefix << 4 | UInt8((ts >> 29) & 0x0E) | 1, UInt8((ts >> 22) & 0xFF), UInt8((ts >> 14) & 0xFE) | 1,
                UInt8((ts >> 7) & 0xFF), UInt8((ts << 1) & 0xFE) | 1]
    }

    /// program_clock_reference (§2.4.3.5): base (90 kHz, 33 bits), 6 reserved bits, extension 0.
    static func pcrField(_ value: Int64) -> [UInt8] {
        let base = UInt64(bitPattern: value) & 0x1_FFFF_FFFF
        return [UInt8((base >> 25) & 0xFF), UInt8((base >> 17) & 0xFF), UInt8((base >> 9) & 0xFF), UInt8((base >> 1) & 0xFF),
                UInt8((base & 1) << 7) | 0x7E, 0x00]
    }

    private mutating func writePES(pid: UInt16, streamID: UInt8, _ payload: [UInt8], pts: Int64, dts: Int64?, randomAccess: Bool, pcr: Int64?) {
        let fields = dts.map { Self.timestamp(pts, prefix: 3) + Self.timestamp($0, prefix: 1) } ?? Self.timestamp(pts, prefix: 2)
        let length = 3 + fields.count + payload.count
        // PES_packet_length 0 (unbounded) is allowed for video in TS only (§2.4.3.7).
        let declared = length > 0xFFFF ? 0 : length
        var data: [UInt8] = [0, 0, 1, streamID, UInt8(declared >> 8), UInt8(declared & 0xFF), 0x80, dts == nil ? 0x80 : 0xC0,
                             UInt8(fields.count)] + fields
        data += payload
        var offset = 0
        var first = true
        while offset < data.count {
            var field: [UInt8] = []   // adaptation field after its length byte
            var hasField = false
            if first, randomAccess || pcr != nil {
                hasField = true
                field = [(randomAccess ? 0x40 : 0) | (pcr != nil ? 0x10 : 0)] + (pcr.map(Self.pcrField) ?? [])
            }
            let room = 184 - (hasField ? 1 + field.count : 0)
            let chunk = min(room, data.count - offset)
            if chunk < room {   // the last packet: stuffing in the adaptation field (§2.4.3.5)
                let stuffing = room - chunk
                if hasField {
                    field += [UInt8](repeating: 0xFF, count: stuffing)
                } else {
                    hasField = true
                    field = stuffing == 1 ? [] : [0x00] + [UInt8](repeating: 0xFF, count: stuffing - 2)
                }
            }
            var packet: [UInt8] = [0x47, (first ? 0x40 : 0) | UInt8(pid >> 8), UInt8(pid & 0xFF), (hasField ? 0x30 : 0x10) | counter(pid)]
            if hasField { packet.append(UInt8(field.count)); packet += field }
            packet += data[offset..<offset + chunk]
            bytes += packet
            offset += chunk
            first = false
        }
    }
}
