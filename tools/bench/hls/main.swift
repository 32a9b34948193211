// Throughput of the pure HLS core (demux + segment + window + playlist render) on a long
// continuous stream made of copies of a TS file with shifted clocks and continuous continuity
// counters, fed as 7-packet datagrams. Built with -O by run.sh.
import Foundation

func shifted(_ p: [UInt8], by ticks: Int64) -> [UInt8] {
    var b = p
    var offset = 4
    if b[3] & 0x20 != 0 {
        let length = Int(b[4])
        if length >= 7, b[5] & 0x10 != 0 {
            let base = Int64(b[6]) << 25 | Int64(b[7]) << 17 | Int64(b[8]) << 9 | Int64(b[9]) << 1 | Int64(b[10] >> 7)
            let m = (base + ticks) & 0x1_FFFF_FFFF
            b[6] = UInt8(truncatingIfNeeded: m >> 25); b[7] = UInt8(truncatingIfNeeded: m >> 17)
            b[8] = UInt8(truncatingIfNeeded: m >> 9); b[9] = UInt8(truncatingIfNeeded: m >> 1)
            b[10] = (b[10] & 0x7F) | UInt8(truncatingIfNeeded: (m & 1) << 7)
        }
        offset = 5 + length
    }
    guard b[1] & 0x40 != 0, offset + 19 <= 188, b[offset] == 0, b[offset + 1] == 0, b[offset + 2] == 1,
          b[offset + 3] >= 0xC0 else { return b }
    let flags = b[offset + 7] >> 6
    func move(_ at: Int) {
        let v = Int64(b[at] >> 1 & 0x07) << 30 | Int64(b[at + 1]) << 22 | Int64(b[at + 2] >> 1) << 15
            | Int64(b[at + 3]) << 7 | Int64(b[at + 4] >> 1)
        let m = (v + ticks) & 0x1_FFFF_FFFF
        b[at] = (b[at] & 0xF1) | UInt8(truncatingIfNeeded: (m >> 29) & 0x0E)
        b[at + 1] = UInt8(truncatingIfNeeded: m >> 22)
        b[at + 2] = UInt8(truncatingIfNeeded: (m >> 14) & 0xFE) | 1
        b[at + 3] = UInt8(truncatingIfNeeded: m >> 7)
        b[at + 4] = UInt8(truncatingIfNeeded: (m << 1) & 0xFE) | 1
    }
    if flags & 0x2 != 0 { move(offset + 9) }
    if flags == 3 { move(offset + 14) }
    return b
}

let path = CommandLine.arguments[1]
let copies = Int(CommandLine.arguments[2]) ?? 100
let source = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
let packets = stride(from: 0, to: source.count, by: 188).map { Array(source[$0..<($0 + 188)]) }
// One copy's media duration: the DTS span of the video (PID 0x100) plus one frame.
var dtsValues: [Int64] = []
for p in packets where (UInt16(p[1] & 0x1F) << 8 | UInt16(p[2])) == 0x100 && p[1] & 0x40 != 0 {
    let offset = p[3] & 0x20 != 0 ? 5 + Int(p[4]) : 4
    guard offset + 19 <= 188, p[offset + 2] == 1 else { continue }
    let at = p[offset + 7] >> 6 == 3 ? offset + 14 : offset + 9
    dtsValues.append(Int64(p[at] >> 1 & 0x07) << 30 | Int64(p[at + 1]) << 22 | Int64(p[at + 2] >> 1) << 15
                     | Int64(p[at + 3]) << 7 | Int64(p[at + 4] >> 1))
}
let frame = dtsValues.count > 1 ? dtsValues[1] - dtsValues[0] : 3600
// Shift each copy by at least the PCR span plus a PCR interval (audio may run past the video),
// rounded up to whole frames, so both clocks run on across the seam.
var pcrs: [Int64] = []
for p in packets where p[3] & 0x20 != 0 && p[4] >= 7 && p[5] & 0x10 != 0 {
    pcrs.append((Int64(p[6]) << 25 | Int64(p[7]) << 17 | Int64(p[8]) << 9 | Int64(p[9]) << 1 | Int64(p[10] >> 7)))
}
let pcrSpan = pcrs.count > 1 ? pcrs.last! - pcrs.first! + (pcrs[1] - pcrs[0]) : 0
let videoSpan = (dtsValues.max() ?? 0) - (dtsValues.min() ?? 0) + frame
let copyTicks = (max(videoSpan, pcrSpan) + frame - 1) / frame * frame
var stream: [UInt8] = []
stream.reserveCapacity(source.count * copies)
var cc: [UInt16: UInt8] = [:]
for k in 0..<copies {
    for p in packets {
        var q = shifted(p, by: Int64(k) * copyTicks)
        let pid = UInt16(q[1] & 0x1F) << 8 | UInt16(q[2])
        if q[3] & 0x10 != 0 {
            let next = cc[pid].map { ($0 &+ 1) & 0x0F } ?? (q[3] & 0x0F)
            q[3] = (q[3] & 0xF0) | next
            cc[pid] = next
        } else if let c = cc[pid] {
            q[3] = (q[3] & 0xF0) | c
        }
        stream += q
    }
}
let seconds = Double(copies) * Double(copyTicks) / 90_000
var packager = HLSPackager()
var playlistBytes = 0, parts = 0
let start = DispatchTime.now().uptimeNanoseconds
var offset = 0
var now: Int64 = 1_795_230_000_000_000_000
while offset < stream.count {
    let end = min(stream.count, offset + 1316)
    now += 1_000_000
    let update = packager.ingest(stream[offset..<end], timestampNanoseconds: now)
    if !update.partsPublished.isEmpty {
        parts += update.partsPublished.count
        playlistBytes += packager.livePlaylist().utf8.count
    }
    offset = end
}
_ = packager.finish()
let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
let mb = Double(stream.count) / 1e6
print(String(format: "%.1f MB (%.0f s of media, %d parts, %d segments) in %.3f s: %.1f MB/s, %.0f× real time, %.2f Mpackets/s",
             mb, seconds, parts, packager.segmenter.statistics.segments, elapsed, mb / elapsed, seconds / elapsed,
             Double(stream.count / 188) / elapsed / 1e6))
print("stats:", packager.statistics.filter { $0.1 != 0 }.map { "\($0.0)=\($0.1)" }.joined(separator: " "))
