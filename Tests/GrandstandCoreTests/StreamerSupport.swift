import Foundation
import GrandstandCore
import TestSupport

/// The project's sample stream (tools/samples/clean.ts) and small TS builders for the streamer tests.
enum StreamerSample {
    static let path = Fixtures.directory.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("tools/samples/clean.ts").path

    static func bytes() throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// The 27 MHz PCR of a packet, read independently of the code under test.
    static func pcr(_ packet: ArraySlice<UInt8>) -> Int64? {
        let p = Array(packet)
        guard p[3] & 0x20 != 0, p[4] >= 7, p[5] & 0x10 != 0 else { return nil }
        let base = Int64(p[6]) << 25 | Int64(p[7]) << 17 | Int64(p[8]) << 9 | Int64(p[9]) << 1 | Int64(p[10] >> 7)
        return base * 300 + (Int64(p[10] & 1) << 8 | Int64(p[11]))
    }

    /// A TS packet on `pid` with continuity counter `cc`, optionally carrying a PCR.
    static func packet(pid: UInt16, cc: UInt8, pcr: Int64? = nil) -> [UInt8] {
        var p: [UInt8] = [0x47, UInt8(pid >> 8), UInt8(pid & 0xFF)]
        guard let pcr else {
            p.append(0x10 | cc & 0x0F)
            p.append(contentsOf: [UInt8](repeating: 0xAB, count: 184))
            return p
        }
        p.append(0x30 | cc & 0x0F)
        let base = pcr / 300, ext = pcr % 300
        p.append(7)                 // adaptation_field_length
        p.append(0x10)              // PCR_flag
        p.append(UInt8(truncatingIfNeeded: base >> 25)); p.append(UInt8(truncatingIfNeeded: base >> 17))
        p.append(UInt8(truncatingIfNeeded: base >> 9)); p.append(UInt8(truncatingIfNeeded: base >> 1))
        p.append(UInt8(truncatingIfNeeded: (base & 1) << 7 | 0x7E | ext >> 8)); p.append(UInt8(truncatingIfNeeded: ext))
        p.append(contentsOf: [UInt8](repeating: 0xCD, count: 188 - p.count))
        return p
    }

    /// `count` packets on PID 0x100, a PCR every `every` packets starting at `firstPCR`,
    /// advancing `step` ticks per PCR; `pcrs` overrides individual PCR values by PCR number.
    static func stream(count: Int, every: Int, firstPCR: Int64, step: Int64, offset: Int = 0,
                       pcrs: [Int: Int64] = [:]) -> [UInt8] {
        var bytes: [UInt8] = []
        var n = 0
        for i in 0..<count {
            if i >= offset && (i - offset) % every == 0 {
                let value = pcrs[n] ?? (firstPCR + Int64(n) * step) % PacedTransportStream.pcrModulus
                bytes.append(contentsOf: packet(pid: 0x100, cc: UInt8(i & 15), pcr: value))
                n += 1
            } else {
                bytes.append(contentsOf: packet(pid: 0x100, cc: UInt8(i & 15)))
            }
        }
        return bytes
    }

    /// Drains a source completely (finite sources only).
    static func drain<S: StreamerSource>(_ source: inout S, limit: Int = 1_000_000) -> [ScheduledDatagram] {
        var out: [ScheduledDatagram] = []
        while source.nextDueNanoseconds != nil, out.count < limit { out.append(contentsOf: source.pop()) }
        return out
    }
}
