import TestSupport
@testable import GrandstandCore

/// The MPEG-TS fixture of tools/fixtures/make-media-fixtures.sh and the facts that follow from its
/// parameters: H.264 160×90, 25 fps, 4 s (100 frames), closed GOPs of 25, FFmpeg muxer defaults
/// (PMT PID 0x1000, video PID 0x100 also carrying the PCR).
enum TSFixture {
    static let name = "media/testsrc-160x90-25fps-4s-h264.ts"
    static let frames = 100, gop = 25
    static let frameTicks: Int64 = 3600
    static let videoPID: UInt16 = 0x100, pmtPID: UInt16 = 0x1000
    /// FFmpeg's mpegts muxer starts DTS at 1.4 s and PTS two frames later (two B-frames).
    static let firstDTS: Int64 = 126_000, firstPTS: Int64 = 133_200

    static func bytes() throws -> [UInt8] { try Fixtures.bytes(name) }

    /// 2026-11-21T03:00:00Z, the capture clock's start in the tests.
    static let epoch: Int64 = 1_795_230_000 * 1_000_000_000
}

/// Builds TS packets and PSI sections for synthetic streams.
enum TSBuilder {
    static func packet(pid: UInt16, cc: Int, pusi: Bool = false, payload: [UInt8], discontinuity: Bool = false,
                       pcr: Int64? = nil) -> [UInt8] {
        var header: [UInt8] = [0x47, UInt8(pid >> 8) | (pusi ? 0x40 : 0), UInt8(pid & 0xFF)]
        var adaptation: [UInt8] = []
        if discontinuity || pcr != nil || payload.count < 184 {
            var flags: UInt8 = discontinuity ? 0x80 : 0
            var body: [UInt8] = []
            if let pcr {
                flags |= 0x10
                let base = pcr / 300, ext = pcr % 300
                body = [UInt8(truncatingIfNeeded: base >> 25), UInt8(truncatingIfNeeded: base >> 17),
                        UInt8(truncatingIfNeeded: base >> 9), UInt8(truncatingIfNeeded: base >> 1),
                        UInt8(truncatingIfNeeded: (base & 1) << 7 | 0x7E | (ext >> 8)), UInt8(truncatingIfNeeded: ext)]
            }
            let length = 183 - min(payload.count, 182)
            adaptation = [UInt8(length)]
            if length > 0 {
                adaptation.append(flags)
                adaptation.append(contentsOf: body)
                adaptation.append(contentsOf: [UInt8](repeating: 0xFF, count: max(0, length - 1 - body.count)))
            }
        }
        let control: UInt8 = adaptation.isEmpty ? 0x10 : 0x30
        header.append(control | UInt8(cc & 0x0F))
        var bytes = header
        bytes.append(contentsOf: adaptation)
        bytes.append(contentsOf: payload.prefix(188 - bytes.count))
        return bytes
    }

    /// A PSI section with syntax, version and CRC.
    static func section(tableID: UInt8, idExtension: UInt16, version: UInt8, body: [UInt8]) -> [UInt8] {
        let length = 5 + body.count + 4
        var s: [UInt8] = [tableID, 0xB0 | UInt8(length >> 8), UInt8(length & 0xFF),
                          UInt8(idExtension >> 8), UInt8(idExtension & 0xFF), 0xC1 | (version << 1), 0, 0]
        s.append(contentsOf: body)
        let crc = CRC32MPEG2.checksum(s)
        s.append(contentsOf: [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
        return s
    }

    static func pat(pmtPID: UInt16, version: UInt8 = 0) -> [UInt8] {
        section(tableID: 0, idExtension: 1, version: version, body: [0, 1, 0xE0 | UInt8(pmtPID >> 8), UInt8(pmtPID & 0xFF)])
    }

    static func pmt(pcrPID: UInt16, streams: [(StreamType, UInt16, [UInt8])], version: UInt8 = 0) -> [UInt8] {
        var body: [UInt8] = [0xE0 | UInt8(pcrPID >> 8), UInt8(pcrPID & 0xFF), 0xF0, 0]
        for (type, pid, descriptors) in streams {
            body.append(contentsOf: [type.rawValue, 0xE0 | UInt8(pid >> 8), UInt8(pid & 0xFF),
                                     0xF0 | UInt8(descriptors.count >> 8), UInt8(descriptors.count & 0xFF)])
            body.append(contentsOf: descriptors)
        }
        return section(tableID: 2, idExtension: 1, version: version, body: body)
    }

    /// Splits a section into packets (pointer_field 0 in the first), stuffing the last with 0xFF.
    static func psiPackets(pid: UInt16, section: [UInt8], firstCC: Int = 0) -> [[UInt8]] {
        var data: [UInt8] = [0]
        data.append(contentsOf: section)
        var packets: [[UInt8]] = []
        var offset = 0, cc = firstCC
        while offset < data.count {
            var chunk = Array(data[offset..<min(data.count, offset + 184)])
            chunk.append(contentsOf: [UInt8](repeating: 0xFF, count: 184 - chunk.count))
            packets.append(packet(pid: pid, cc: cc, pusi: offset == 0, payload: chunk))
            offset += 184
            cc += 1
        }
        return packets
    }

    /// A PES header with PTS (and DTS) in the 5-byte marker layout.
    static func pesHeader(streamID: UInt8 = 0xE0, pts: Int64?, dts: Int64? = nil, payloadLength: Int? = nil) -> [UInt8] {
        var optional: [UInt8] = []
        var flags: UInt8 = 0
        func ts(_ prefix: UInt8, _ v: Int64) -> [UInt8] {
            [prefix << 4 | UInt8(truncatingIfNeeded: (v >> 29) & 0x0E) | 1, UInt8(truncatingIfNeeded: v >> 22),
             UInt8(truncatingIfNeeded: (v >> 14) & 0xFE) | 1, UInt8(truncatingIfNeeded: v >> 7),
             UInt8(truncatingIfNeeded: (v << 1) & 0xFE) | 1]
        }
        if let pts {
            flags = dts == nil ? 0x80 : 0xC0
            optional += ts(dts == nil ? 2 : 3, pts)
            if let dts { optional += ts(1, dts) }
        }
        let length = payloadLength.map { $0 + 3 + optional.count } ?? 0
        var h: [UInt8] = [0, 0, 1, streamID, UInt8(length >> 8), UInt8(length & 0xFF), 0x80, flags, UInt8(optional.count)]
        h.append(contentsOf: optional)
        return h
    }
}

/// Feeds `bytes` to a closure in chunks of the given sizes (cycled).
func chunked(_ bytes: [UInt8], _ sizes: [Int], _ body: (ArraySlice<UInt8>, Int) -> Void) {
    var offset = 0, turn = 0
    while offset < bytes.count {
        let end = min(bytes.count, offset + sizes[turn % sizes.count])
        body(bytes[offset..<end], offset)
        offset = end
        turn += 1
    }
}
