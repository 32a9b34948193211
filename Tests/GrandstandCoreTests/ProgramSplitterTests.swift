import Testing
import TestSupport
@testable import GrandstandCore

/// The multiplex fixture of tools/fixtures/make-media-fixtures.sh: three programs named in an SDT.
enum MultiplexFixture {
    static let name = "media/multiprogram-3-services-2s.ts"
    static let names: [UInt16: String] = [1: "Bowl Cam", 2: "Tunnel Cam", 3: "Stadium Radio"]
    static let pmtPIDs: [UInt16: UInt16] = [1: 0x1000, 2: 0x1001, 3: 0x1002]
    static let streamPIDs: [UInt16: Set<UInt16>] = [1: [0x100, 0x101], 2: [0x102], 3: [0x103]]

    static func bytes() throws -> [UInt8] { try Fixtures.bytes(name) }

    static func pids(_ stream: [UInt8]) -> Set<UInt16> {
        Set(stride(from: 0, to: stream.count - 187, by: 188).map { UInt16(stream[$0 + 1] & 0x1F) << 8 | UInt16(stream[$0 + 2]) })
    }
}

struct ProgramSplitterTests {
    /// Feeds `bytes` in chunks of `packetsPerCall` packets, 1 ms apart; returns each program's output.
    static func run(_ bytes: [UInt8], selection: ProgramSelection = .auto, packetsPerCall: Int = 7,
                    splitter: inout ProgramSplitter) -> (outputs: [UInt16: [UInt8]], whole: Int) {
        var outputs: [UInt16: [UInt8]] = [:]
        var whole = 0
        var time: Int64 = 0
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + packetsPerCall * 188)
            if let parts = splitter.split(bytes[offset..<end], at: time) {
                for (program, packets) in parts { outputs[program, default: []] += packets }
            } else {
                whole += (end - offset) / 188
            }
            offset = end
            time += 1_000_000
        }
        return (outputs, whole)
    }

    @Test func eachProgramOfTheMultiplexGetsOnlyItsOwnPIDsAndASingleProgramPAT() throws {
        var splitter = ProgramSplitter(selection: .auto)
        let (outputs, whole) = Self.run(try MultiplexFixture.bytes(), splitter: &splitter)
        #expect(splitter.isSplit)
        #expect(whole == 0, "FFmpeg sends its SDT first, so the split starts with the first packets")
        #expect(splitter.programs.map(\.number) == [1, 2, 3])
        #expect(splitter.programs.map(\.name) == ["Bowl Cam", "Tunnel Cam", "Stadium Radio"])
        for number: UInt16 in [1, 2, 3] {
            let stream = try #require(outputs[number])
            let expected = Set([0, MultiplexFixture.pmtPIDs[number]!]).union(MultiplexFixture.streamPIDs[number]!)
            #expect(MultiplexFixture.pids(stream) == expected, "program \(number)")
            var demuxer = TSDemuxer()
            let events = demuxer.feed(stream[...], timestampNanoseconds: 0)
            let pats = events.compactMap { if case .programAssociation(let t) = $0 { t } else { nil } }
            let pmts = events.compactMap { if case .programMap(let t) = $0 { t } else { nil } }
            #expect(pats.first?.programs == [number: MultiplexFixture.pmtPIDs[number]!])
            #expect(pmts.first?.programNumber == number)
            #expect(Set(pmts.first?.streams.map(\.pid) ?? []) == MultiplexFixture.streamPIDs[number]!)
            let pes = events.filter { if case .pes = $0 { true } else { false } }
            #expect(!pes.isEmpty, "program \(number) carries its elementary streams")
            #expect(!events.contains { if case .continuityError = $0 { true } else { false } }, "program \(number)")
            #expect(!events.contains { if case .sectionError = $0 { true } else { false } }, "program \(number)")
        }
        #expect(splitter.counters.sectionErrors == 0)
        #expect(splitter.counters.packetsLeftOut > 0, "the SDT is left out")
    }

    @Test(arguments: [1, 3, 7, 13, 400])
    func theSplitIsTheSameInAnyBatching(packetsPerCall: Int) throws {
        var reference = ProgramSplitter(selection: .auto)
        let expected = Self.run(try MultiplexFixture.bytes(), splitter: &reference).outputs
        var splitter = ProgramSplitter(selection: .auto)
        let outputs = Self.run(try MultiplexFixture.bytes(), packetsPerCall: packetsPerCall, splitter: &splitter).outputs
        let same = outputs == expected
        #expect(same, "\(outputs.mapValues(\.count)) vs \(expected.mapValues(\.count))")
    }

    @Test func aSingleProgramStreamPassesWholeAndWholeNeverSplits() throws {
        var single = ProgramSplitter(selection: .auto)
        let bytes = try TSFixture.bytes()
        let (outputs, whole) = Self.run(bytes, splitter: &single)
        #expect(outputs.isEmpty && whole == bytes.count / 188 && !single.isSplit && single.revision == 0)

        var kept = ProgramSplitter(selection: .whole)
        let mux = try MultiplexFixture.bytes()
        let result = Self.run(mux, splitter: &kept)
        #expect(result.outputs.isEmpty && result.whole == mux.count / 188 && !kept.isSplit)
    }

    @Test func pickedProgramsAloneBecomeOutputsEvenJustOne() throws {
        var splitter = ProgramSplitter(selection: .only([2]))
        let (outputs, _) = Self.run(try MultiplexFixture.bytes(), splitter: &splitter)
        #expect(splitter.programs.map(\.number) == [2])
        #expect(Set(outputs.keys) == [2])
        #expect(MultiplexFixture.pids(outputs[2] ?? []) == [0, 0x1001, 0x102])

        var one = ProgramSplitter(selection: .only([1]))
        _ = Self.run(try TSFixture.bytes(), splitter: &one)
        #expect(one.isSplit && one.programs.map(\.number) == [1], "a picked program of a single-program stream is split too")
    }

    @Test func withoutAnSDTProgramsAreListedUnnamedAfterTheWait() throws {
        let mux = try MultiplexFixture.bytes()
        let noSDT = stride(from: 0, to: mux.count, by: 188).filter { MultiplexFixture.pids(Array(mux[$0..<($0 + 188)])) != [0x11] }
            .flatMap { mux[$0..<($0 + 188)] }
        var splitter = ProgramSplitter(selection: .auto)
        #expect(splitter.split(noSDT[0..<(188 * 20)], at: 0) == nil)
        splitter.tick(at: ProgramSplitter.serviceNameWaitNanoseconds - 1)
        #expect(!splitter.isSplit, "still waiting for service names")
        splitter.tick(at: ProgramSplitter.serviceNameWaitNanoseconds)
        #expect(splitter.isSplit && splitter.programs.map(\.number) == [1, 2, 3])
        #expect(splitter.programs.allSatisfy { $0.name == nil })
    }

    @Test func aProgramLeavingThePATClosesItsOutputAndALateSDTRenames() throws {
        var splitter = ProgramSplitter(selection: .auto)
        let pat = { (programs: [(UInt16, UInt16)], version: UInt8) in
            TSBuilder.psiPackets(pid: 0, section: TSBuilder.section(tableID: 0, idExtension: 1, version: version,
                                                                     body: programs.flatMap { [UInt8($0.0 >> 8), UInt8($0.0 & 0xFF), 0xE0 | UInt8($0.1 >> 8), UInt8($0.1 & 0xFF)] }))
                .flatMap { $0 }
        }
        _ = splitter.split(pat([(1, 0x1000), (2, 0x1001)], 0)[...], at: 0)
        splitter.tick(at: ProgramSplitter.serviceNameWaitNanoseconds)
        #expect(splitter.programs.map(\.number) == [1, 2])
        let revision = splitter.revision
        let parts = splitter.split(pat([(1, 0x1000)], 1)[...], at: ProgramSplitter.serviceNameWaitNanoseconds + 1)
        #expect(splitter.programs.map(\.number) == [1])
        #expect(splitter.revision == revision + 1)
        #expect(parts?.map(\.program) == [1], "the remaining program gets its PAT")

        // An SDT naming program 1 (ETSI EN 300 468 §5.2.3), arriving after the split.
        let name = Array("Bowl Cam".utf8)
        let descriptor: [UInt8] = [0x48, UInt8(3 + name.count), 0x01, 0] + [UInt8(name.count)] + name
        let service: [UInt8] = [0, 1, 0xFC, 0x80 | UInt8(descriptor.count >> 8), UInt8(descriptor.count & 0xFF)] + descriptor
        let sdt = TSBuilder.section(tableID: 0x42, idExtension: 1, version: 0, body: [0, 1, 0xFF] + service)
        _ = splitter.split(TSBuilder.psiPackets(pid: 0x11, section: sdt).flatMap { $0 }[...], at: ProgramSplitter.serviceNameWaitNanoseconds + 2)
        #expect(splitter.programs.first?.name == "Bowl Cam")
        #expect(splitter.revision == revision + 2)
    }

    /// Found by the `programs` fuzz target: a packet without its sync byte, copied into an output,
    /// misaligned the program's stream (a demuxer then read another program's PAT out of it).
    @Test func packetsWithoutASyncByteAreLeftOut() throws {
        var mux = try MultiplexFixture.bytes()
        var splitter = ProgramSplitter(selection: .auto)
        let clean = Self.run(mux, splitter: &splitter).outputs
        for index in stride(from: 40, to: mux.count / 188, by: 50) where MultiplexFixture.pids(Array(mux[(index * 188)..<(index * 188 + 188)])) == [0x100] {
            mux[index * 188] = 0xFF
        }
        var damaged = ProgramSplitter(selection: .auto)
        let outputs = Self.run(mux, splitter: &damaged).outputs
        #expect(outputs.values.allSatisfy { stream in stride(from: 0, to: stream.count, by: 188).allSatisfy { stream[$0] == 0x47 } })
        #expect(damaged.counters.packetsLeftOut > splitter.counters.packetsLeftOut)
        #expect(outputs[2] == clean[2] && outputs[3] == clean[3], "other programs are untouched")
    }

    @Test func corruptTablesAreCountedAndNeverTrap() throws {
        var mux = try MultiplexFixture.bytes()
        // Flip a byte inside the first PAT section: its CRC fails.
        mux[8] ^= 0xFF
        var splitter = ProgramSplitter(selection: .auto)
        _ = Self.run(mux, splitter: &splitter)
        #expect(splitter.counters.sectionErrors >= 1)
        #expect(splitter.programs.map(\.number) == [1, 2, 3], "the next PAT repairs the listing")

        // Arbitrary bytes behind sync bytes on the table PIDs.
        var generator = SplitMix(seed: 2022)
        var junk = ProgramSplitter(selection: .auto)
        for round in 0..<2_000 {
            var packet = (0..<188).map { _ in UInt8.random(in: 0...255, using: &generator) }
            packet[0] = 0x47
            packet[1] = packet[1] & 0xE0 | (round % 3 == 0 ? 0 : round % 3 == 1 ? 0x10 : 0)
            packet[2] = round % 3 == 1 ? 0x00 : (round % 3 == 2 ? 0x11 : 0)
            packet[3] = 0x10 | packet[3] & 0x0F
            _ = junk.split(packet[...], at: Int64(round) * 1_000_000)
        }
        #expect(junk.programs.count <= ProgramSplitter.maximumPrograms)
    }
}
