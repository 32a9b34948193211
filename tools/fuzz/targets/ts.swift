// TSDemuxer (alignment, PSI sections, PES reassembly, PCR) on a byte stream fed in pieces:
// byte 0 picks the PES selection and the piece size, byte 1 how often input is marked lost.
@testable import GrandstandCore

let pieceSizes = [188, 1316, 1, 7, 100, 187, 189, 376, 2000, 64]

func fuzzOne(_ bytes: [UInt8]) {
    var cursor = FuzzCursor(bytes)
    let mode = cursor.u8()
    let gapEvery = Int(cursor.u8())
    var demuxer = TSDemuxer(selection: mode & 0x80 != 0 ? .timingStream : .all)
    let piece = pieceSizes[Int(mode & 0x7F) % pieceSizes.count]
    var time: Int64 = 0
    var pieces = 0
    var events: [TSDemuxEvent] = []
    while !cursor.isAtEnd {
        events += demuxer.feed(cursor.take(piece), timestampNanoseconds: time)
        time += 1_000_000
        pieces += 1
        if gapEvery > 0, pieces % gapEvery == 0 { demuxer.markGap() }
    }
    events += demuxer.flush()
    let detector = NALUnitKeyframeDetector()
    for event in events {
        if case .pes(let pes) = event {
            _ = detector.isKeyframe(pes.payload[...], streamType: pes.streamType)
            _ = detector.isKeyframe(pes.payload[...], streamType: .hevc)
        }
    }
    let s = demuxer.statistics
    require(s.malformedPackets + s.duplicatePackets <= s.packets, "counters consistent")
}
