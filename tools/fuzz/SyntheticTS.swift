// A synthetic one-program H.264 transport stream for the harnesses that need media with chosen
// timings (playlist, query): PAT/PMT before keyframes, one PES (AUD + slice; keyframes carry a
// real SPS and PPS, 160x90 High, so CMAF headers can be made) per frame. Built as
// Tests/GrandstandCoreTests/TransportStreamTestSupport.swift does; linked into every harness.
@testable import GrandstandCore

/// The stream's state: continuity counters, the next frame's DTS and capture time.
struct SyntheticStream {
    static let videoPID: UInt16 = 0x100, pmtPID: UInt16 = 0x1000
    static let epoch: Int64 = 1_700_000_000_000_000_000

    var cc: [UInt16: Int] = [:]
    var dts: Int64 = 900_000
    var capture: Int64 = SyntheticStream.epoch

    mutating func next(_ pid: UInt16) -> Int {
        defer { cc[pid, default: 0] += 1 }
        return cc[pid, default: 0] & 0x0F
    }

    /// One frame: PAT+PMT first when a keyframe, then a PES (AUD + IDR or non-IDR slice) in two
    /// packets, the second left out when `loseSecond` (a continuity error).
    mutating func frame(keyframe: Bool, loseSecond: Bool = false, discontinuity: Bool = false) -> [UInt8] {
        var bytes: [UInt8] = []
        if keyframe {
            bytes.append(contentsOf: Self.packet(pid: 0, cc: next(0), pusi: true, payload: [0] + Self.pat()))
            bytes.append(contentsOf: Self.packet(pid: Self.pmtPID, cc: next(Self.pmtPID), pusi: true, payload: [0] + Self.pmt()))
        }
        let d = dts & 0x1_FFFF_FFFF
        var pes = Self.pesHeader(pts: (d + 7200) & 0x1_FFFF_FFFF, dts: d)
        pes.append(contentsOf: [0, 0, 0, 1, 0x09, 0xF0])
        if keyframe { pes.append(contentsOf: [0, 0, 0, 1] + Self.sps + [0, 0, 0, 1] + Self.pps) }
        pes.append(contentsOf: [0, 0, 0, 1, keyframe ? 0x65 : 0x41])
        for i in 0..<250 { pes.append(UInt8(truncatingIfNeeded: i &* 13 &+ Int(d & 0xFF)) | 0x10) }
        bytes.append(contentsOf: Self.packet(pid: Self.videoPID, cc: next(Self.videoPID), pusi: true,
                                             payload: Array(pes.prefix(170)), discontinuity: discontinuity))
        let second = Self.packet(pid: Self.videoPID, cc: next(Self.videoPID), payload: Array(pes.dropFirst(170)))
        if !loseSecond { bytes.append(contentsOf: second) }
        return bytes
    }

    /// The parameter sets of Tests/Fixtures/media/testsrc-160x90-25fps-2s.h264 (x264, High 1.1).
    static let sps: [UInt8] = [0x67, 0x64, 0x00, 0x0B, 0xAC, 0xD9, 0x42, 0x8D, 0xF9, 0x30, 0x11, 0x00, 0x00, 0x03, 0x00, 0x01,
                               0x00, 0x00, 0x03, 0x00, 0x32, 0x0F, 0x14, 0x29, 0x96]
    static let pps: [UInt8] = [0x68, 0xEF, 0x84, 0x72, 0xC0]

    static func packet(pid: UInt16, cc: Int, pusi: Bool = false, payload: [UInt8], discontinuity: Bool = false) -> [UInt8] {
        var bytes: [UInt8] = [0x47, UInt8(pid >> 8) | (pusi ? 0x40 : 0), UInt8(pid & 0xFF)]
        var adaptation: [UInt8] = []
        if discontinuity || payload.count < 184 {
            let length = 183 - min(payload.count, 182)
            adaptation = [UInt8(length)]
            if length > 0 {
                adaptation.append(discontinuity ? 0x80 : 0)
                adaptation.append(contentsOf: [UInt8](repeating: 0xFF, count: length - 1))
            }
        }
        bytes.append((adaptation.isEmpty ? 0x10 : 0x30) | UInt8(cc & 0x0F))
        bytes.append(contentsOf: adaptation)
        bytes.append(contentsOf: payload.prefix(188 - bytes.count))
        bytes.append(contentsOf: [UInt8](repeating: 0xFF, count: 188 - bytes.count))
        return bytes
    }

    static func section(tableID: UInt8, body: [UInt8]) -> [UInt8] {
        let length = 5 + body.count + 4
        var s: [UInt8] = [tableID, 0xB0 | UInt8(length >> 8), UInt8(length & 0xFF), 0, 1, 0xC1, 0, 0]
        s.append(contentsOf: body)
        let crc = CRC32MPEG2.checksum(s)
        s.append(contentsOf: [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
        return s
    }

    static func pat() -> [UInt8] { section(tableID: 0, body: [0, 1, 0xE0 | UInt8(pmtPID >> 8), UInt8(pmtPID & 0xFF)]) }

    static func pmt() -> [UInt8] {
        section(tableID: 2, body: [0xE0 | UInt8(videoPID >> 8), UInt8(videoPID & 0xFF), 0xF0, 0,
                                   StreamType.h264.rawValue, 0xE0 | UInt8(videoPID >> 8), UInt8(videoPID & 0xFF), 0xF0, 0])
    }

    static func pesHeader(pts: Int64, dts: Int64) -> [UInt8] {
        func stamp(_ prefix: UInt8, _ v: Int64) -> [UInt8] {
            [prefix << 4 | UInt8(truncatingIfNeeded: (v >> 29) & 0x0E) | 1, UInt8(truncatingIfNeeded: v >> 22),
             UInt8(truncatingIfNeeded: (v >> 14) & 0xFE) | 1, UInt8(truncatingIfNeeded: v >> 7),
             UInt8(truncatingIfNeeded: (v << 1) & 0xFE) | 1]
        }
        var h: [UInt8] = [0, 0, 1, 0xE0, 0, 0, 0x80, 0xC0, 10]
        h.append(contentsOf: stamp(3, pts))
        h.append(contentsOf: stamp(1, dts))
        return h
    }
}
