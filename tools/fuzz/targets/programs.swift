// ProgramSplitter (multi-program TS → one single-program stream per program, ISO/IEC 13818-1
// §2.4.4, names from the DVB SDT) on arbitrary whole packets: byte 0 picks the program choice
// and the batch size, byte 1 how often input is marked lost. Every output is whole packets of
// the PAT, its program's PMT PID or that program's streams, and its PAT lists that program alone.
@testable import GrandstandCore

func fuzzOne(_ bytes: [UInt8]) {
    var cursor = FuzzCursor(bytes)
    let mode = cursor.u8()
    let gapEvery = Int(cursor.u8())
    let selection: ProgramSelection = switch mode & 0x03 {
    case 0: .auto
    case 1: .whole
    case 2: .only([1, 2])
    default: .only([UInt16(mode)])
    }
    var splitter = ProgramSplitter(selection: selection)
    let batch = 188 * [1, 7, 13, 64][Int(mode >> 2) & 0x03]
    var time: Int64 = 0
    var calls = 0
    var outputs: [UInt16: [UInt8]] = [:]
    while !cursor.isAtEnd {
        let piece = Array(cursor.take(batch))
        let whole = piece.count / 188 * 188
        if let parts = splitter.split(piece[..<whole], at: time) {
            for (number, packets) in parts {
                require(packets.count % 188 == 0, "whole packets")
                require(splitter.programs.contains { $0.number == number }, "only listed programs have output")
                outputs[number, default: []] += packets
            }
        }
        time += 300_000_000
        calls += 1
        if gapEvery > 0, calls % gapEvery == 0 { splitter.markGap() }
        splitter.tick(at: time)
    }
    require(splitter.programs.count <= ProgramSplitter.maximumPrograms, "at most 64 programs")
    if selection == .whole { require(!splitter.isSplit, "whole never splits") }
    for (number, stream) in outputs {
        var demuxer = TSDemuxer()
        for event in demuxer.feed(stream[...], timestampNanoseconds: 0) {
            if case .programAssociation(let table) = event {
                require(Array(table.programs.keys) == [number], "a single-program PAT for program \(number)")
            }
        }
    }
}
