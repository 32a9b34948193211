import Testing
import TestSupport
@testable import GrandstandCore

/// A loss pattern in window 1 of three k = 5, m = 3 windows (indices within the window).
struct RSLoss: Sendable, CustomTestStringConvertible {
    var sources: Set<Int>
    var repairs: Set<Int>
    var expected: FECWindowResult
    var testDescription: String { "sources \(sources.sorted()) repairs \(repairs.sorted()) → \(expected)" }
}

/// Drives a ReedSolomonWindowEncoder into a ReedSolomonWindowDecoder over a simulated network.
struct RSRun {
    var k = 5, m = 3, windows = 3
    var sources: [[UInt8]] = []
    /// (isRepair, bytes) in send order.
    var events: [(Bool, [UInt8])] = []

    init(k: Int = 5, m: Int = 3, windows: Int = 3, firstSequence: UInt16 = 100, tsPackets: @escaping (Int) -> Int = { _ in 7 }) {
        self.k = k
        self.m = m
        self.windows = windows
        sources = FECPackets.stream(count: k * windows, firstSequence: firstSequence, tsPackets: tsPackets)
        var encoder = ReedSolomonWindowEncoder(configuration: .init(sourceCount: k, repairCount: m, firstWindowID: 7),
                                               math: ReferenceReedSolomon())
        for source in sources {
            events.append((false, source))
            for repair in encoder.add(source) { events.append((true, repair)) }
        }
    }

    /// Feeds the events (1 ms apart) except the dropped ones; then ticks after the timeout and finishes.
    func decode(dropSources: Set<Int> = [], dropRepairs: Set<Int> = [], order: (([(Bool, [UInt8])]) -> [(Bool, [UInt8])])? = nil,
                configuration: FECDecoderConfiguration = FECDecoderConfiguration(), math: any ReedSolomonMath = ReferenceReedSolomon())
        -> (FECOutput, ReedSolomonWindowDecoder) {
        var decoder = ReedSolomonWindowDecoder(configuration: configuration, math: math)
        var output = FECOutput()
        var sourceIndex = 0, repairIndex = 0
        var kept: [(Bool, [UInt8])] = []
        for (isRepair, bytes) in events {
            if isRepair {
                if !dropRepairs.contains(repairIndex) { kept.append((true, bytes)) }
                repairIndex += 1
            } else {
                if !dropSources.contains(sourceIndex) { kept.append((false, bytes)) }
                sourceIndex += 1
            }
        }
        if let order { kept = order(kept) }
        var now: Int64 = 1_000_000_000
        for (isRepair, bytes) in kept {
            now += 1_000_000
            output.add(isRepair ? decoder.receiveRepair(bytes[...], nowNanoseconds: now) : decoder.receiveSource(bytes[...], nowNanoseconds: now))
        }
        output.add(decoder.tick(nowNanoseconds: now + 1_000_000_000))
        output.add(decoder.finish(nowNanoseconds: now + 1_000_000_000))
        return (output, decoder)
    }
}

@Suite struct FECReedSolomonTests {
    static let losses: [RSLoss] = [
        RSLoss(sources: [], repairs: [], expected: .noLoss),
        RSLoss(sources: [0], repairs: [], expected: .recovered),
        RSLoss(sources: [4], repairs: [], expected: .recovered),
        RSLoss(sources: [0, 2, 4], repairs: [], expected: .recovered),          // exactly m
        RSLoss(sources: [0, 1, 2, 3], repairs: [], expected: .failed),          // m + 1
        RSLoss(sources: [1], repairs: [0, 1], expected: .recovered),
        RSLoss(sources: [1, 2], repairs: [2], expected: .recovered),
        RSLoss(sources: [1, 2], repairs: [0, 1], expected: .failed),
        RSLoss(sources: [], repairs: [0, 1, 2], expected: .noLoss),             // window known only from its neighbours
        RSLoss(sources: [3], repairs: [0, 1, 2], expected: .failed),
        RSLoss(sources: [0, 1, 2, 3, 4], repairs: [], expected: .failed),
    ]

    @Test(arguments: losses)
    func lossPatternsInOneWindow(loss: RSLoss) throws {
        let run = RSRun()
        let (output, decoder) = run.decode(dropSources: Set(loss.sources.map { $0 + 5 }), dropRepairs: Set(loss.repairs.map { $0 + 3 }))
        #expect(output.results == [.noLoss, loss.expected, .noLoss])
        #expect(output.windows.map(\.windowID) == [7, 8, 9])
        let lost = loss.expected == .failed ? loss.sources.map { UInt16(105 + $0) }.sorted() : []
        #expect(output.lost == lost)
        let expected = run.sources.enumerated().filter { !lost.contains(UInt16(100 + $0.offset)) }.map(\.element)
        #expect(output.delivered.map(\.bytes) == expected)
        #expect(output.sequences == output.sequences.sorted())
        let recovered = loss.expected == .recovered ? loss.sources.count : 0
        #expect(output.delivered.filter(\.recovered).count == recovered)
        let stats = decoder.stats
        #expect(stats.protectionWindows == 3)
        #expect(stats.windowNoLoss == (loss.expected == .noLoss ? 3 : 2))
        #expect(stats.windowRecoverySuccesses == (loss.expected == .recovered ? 1 : 0))
        #expect(stats.windowRecoveryFailures == (loss.expected == .failed ? 1 : 0))
        #expect(stats.windowWarning == 0 && stats.windowError == 0)
        #expect(stats.recoveredPackets == recovered)
        #expect(stats.unrecoveredPackets == lost.count)
        #expect(stats.sourcePackets == 15 - loss.sources.count)
        #expect(stats.repairPackets == 9 - loss.repairs.count)
        #expect(stats.recoveriesRejected == 0 && stats.repairPacketsMalformed == 0)
    }

    @Test func failureIsReportedOnceAllRepairsAreInWithoutWaiting() throws {
        let run = RSRun(windows: 2)
        var decoder = ReedSolomonWindowDecoder(math: ReferenceReedSolomon())
        var output = FECOutput()
        // Lose sources 1...4 of 5: with all three repairs in, the window fails as soon as the
        // next window's first source shows its sources are over; nothing waits for the timeout.
        for (i, (isRepair, bytes)) in run.events.prefix(9).enumerated() where isRepair || i == 0 || i == 8 {
            if i == 8 { #expect(output.results.isEmpty && output.sequences == [100]) }
            output.add(isRepair ? decoder.receiveRepair(bytes[...], nowNanoseconds: Int64(i)) : decoder.receiveSource(bytes[...], nowNanoseconds: Int64(i)))
        }
        #expect(output.results == [.failed])
        #expect(output.sequences == [100, 105])
        #expect(output.lost == [101, 102, 103, 104])
        #expect(decoder.openWindowCount == 0)
    }

    @Test func timeoutClosesAWindowAndReleasesHeldPacketsThenLateRepairsAreIgnored() throws {
        let run = RSRun(windows: 1)
        var decoder = ReedSolomonWindowDecoder(configuration: FECDecoderConfiguration(timeoutNanoseconds: 50_000_000),
                                               math: ReferenceReedSolomon())
        var output = FECOutput()
        let sources = run.events.filter { !$0.0 }.map(\.1)
        let repairs = run.events.filter { $0.0 }.map(\.1)
        // Sources 1 and 2 lost; one repair arrives, two are delayed beyond the timeout.
        for i in [0, 3, 4] { output.add(decoder.receiveSource(sources[i][...], nowNanoseconds: Int64(i) * 1_000_000)) }
        output.add(decoder.receiveRepair(repairs[0][...], nowNanoseconds: 5_000_000))
        #expect(output.sequences == [100])                 // 103, 104 held for the gap
        output.add(decoder.tick(nowNanoseconds: 54_000_000))
        #expect(output.results == [])                      // not yet: the window opened at 5 ms
        output.add(decoder.tick(nowNanoseconds: 55_000_000))
        #expect(output.results == [.failed])
        #expect(output.sequences == [100, 103, 104])
        #expect(output.lost == [101, 102])
        output.add(decoder.receiveRepair(repairs[1][...], nowNanoseconds: 60_000_000))
        output.add(decoder.receiveRepair(repairs[2][...], nowNanoseconds: 61_000_000))
        #expect(output.windows.count == 1 && output.delivered.count == 3)
        #expect(decoder.stats.repairPacketsLate == 2)
        #expect(decoder.stats.windowRecoveryFailures == 1 && decoder.stats.protectionWindows == 1)
    }

    @Test func aGapWithNoRepairInSightIsReleasedAfterTheHold() throws {
        let sources = FECPackets.stream(count: 4)
        var decoder = ReedSolomonWindowDecoder(configuration: FECDecoderConfiguration(timeoutNanoseconds: 10, matrixWaitBoundNanoseconds: 10), math: ReferenceReedSolomon())
        var output = FECOutput()
        output.add(decoder.receiveSource(sources[0][...], nowNanoseconds: 0))
        output.add(decoder.receiveSource(sources[2][...], nowNanoseconds: 1))
        output.add(decoder.receiveSource(sources[3][...], nowNanoseconds: 5))
        #expect(output.sequences == [100])
        output.add(decoder.tick(nowNanoseconds: 10))
        #expect(output.sequences == [100])                 // packet 102 arrived at 1: held until 11
        output.add(decoder.tick(nowNanoseconds: 11))
        #expect(output.sequences == [100, 102, 103])
        #expect(output.lost == [101])
        // The lost packet arriving now is too late for in-order delivery.
        output.add(decoder.receiveSource(sources[1][...], nowNanoseconds: 12))
        #expect(output.delivered.count == 3 && decoder.stats.sourcePacketsLate == 1)
    }

    @Test func repairsBeforeSourcesAndEverythingDuplicated() throws {
        let run = RSRun()
        // Per window: repairs first, then sources, every packet twice.
        let order: ([(Bool, [UInt8])]) -> [(Bool, [UInt8])] = { events in
            var out: [(Bool, [UInt8])] = []
            var window: [(Bool, [UInt8])] = []
            for event in events {
                window.append(event)
                if event.0, window.filter(\.0).count == 3 || event.1 == events.last!.1 {
                    let reordered = window.filter(\.0) + window.filter { !$0.0 }
                    for e in reordered { out.append(e); out.append(e) }
                    window = []
                }
            }
            return out
        }
        let (output, decoder) = run.decode(dropSources: [5, 7], order: order)
        #expect(output.delivered.map(\.bytes) == run.sources)
        #expect(output.lost.isEmpty)
        // Sources not yet passed by the stream are late, not lost: only 105 and 107 are rebuilt.
        #expect(output.results == [.noLoss, .recovered, .noLoss])
        #expect(decoder.stats.recoveredPackets == 2)
        #expect(decoder.stats.sourcePacketsLate == 13)     // the second copy of each source that came
        #expect(decoder.stats.repairPacketsLate == 9)      // every repeated repair
    }

    @Test func variableSizePacketsRecoverExactly() throws {
        let run = RSRun(k: 6, m: 2, windows: 2, tsPackets: { [1, 7, 3, 0, 5, 2][$0 % 6] })
        let (output, decoder) = run.decode(dropSources: [7, 9])   // a 1×188 and a 0-payload packet
        #expect(output.delivered.map(\.bytes) == run.sources)
        #expect(decoder.stats.windowRecoverySuccesses == 1 && decoder.stats.recoveredPackets == 2)
    }

    @Test func sequenceNumbersWrapInsideAWindow() throws {
        let run = RSRun(windows: 3, firstSequence: 65530)
        let (output, decoder) = run.decode(dropSources: [5, 6, 8])   // 65535, 0, 2
        #expect(output.delivered.map(\.bytes) == run.sources)
        #expect(output.results == [.noLoss, .recovered, .noLoss])
        #expect(decoder.stats.recoveredPackets == 3)
    }

    @Test func aCorruptedRepairIsNeverUsed() throws {
        var run = RSRun()
        // Flip one byte of window 1's first repair symbol (not its header): its CRC-32C fails.
        let first = run.events.indices.filter { run.events[$0].0 }[3]
        run.events[first].1[12 + ReedSolomonRepairHeader.size + 100] ^= 0x01
        let (lossOne, decoder) = run.decode(dropSources: [7])
        #expect(lossOne.delivered.map(\.bytes) == run.sources)       // repairs 1 and 2 suffice
        #expect(decoder.stats.repairPacketsMalformed == 1)
        let (lossThree, decoder3) = run.decode(dropSources: [5, 7, 9])
        #expect(lossThree.results == [.noLoss, .failed, .noLoss])
        #expect(lossThree.delivered.allSatisfy { !$0.recovered })
        #expect(lossThree.lost == [105, 107, 109])
        #expect(decoder3.stats.recoveriesRejected == 0 && decoder3.stats.repairPacketsMalformed == 1)
    }

    @Test func oversizedWindowsAreErrorsAndPassThrough() throws {
        let run = RSRun()
        let (output, decoder) = run.decode(dropSources: [6], configuration: FECDecoderConfiguration(recommendedMaxSymbols: 4, maxSymbols: 7))
        #expect(output.results == [.unsupported, .unsupported, .unsupported])
        #expect(output.lost == [106])
        #expect(output.delivered.count == 14)
        #expect(decoder.stats.windowError == 3 && decoder.stats.windowWarning == 3 && decoder.stats.protectionWindows == 3)
        #expect(decoder.stats.repairPacketsLate == 6)      // the other repairs of unsupported windows

        // k + m > 255 in a header is an error whatever the configuration.
        var header = ReedSolomonRepairHeader(sourceCount: 200, repairCount: 100, repairIndex: 0, windowID: 1, sequenceBase: 100,
                                             symbolLength: 4, ssrc: 0x1234_5678, symbolChecksum: 0)
        header.symbolChecksum = ReedSolomonRepairHeader.checksum(of: [1, 2, 3, 4] as [UInt8])
        var packet: [UInt8] = [0x80, 97, 0, 1, 0, 0, 0, 0, 0x12, 0x34, 0x56, 0x78]
        packet += header.bytes
        packet += [1, 2, 3, 4]
        var big = ReedSolomonWindowDecoder(configuration: FECDecoderConfiguration(maxSymbols: 1000), math: ReferenceReedSolomon())
        var out = FECOutput()
        out.add(big.receiveSource(FECPackets.rtp(sequence: 100)[...], nowNanoseconds: 0))
        out.add(big.receiveRepair(packet[...], nowNanoseconds: 1))
        #expect(out.results == [.unsupported])
        #expect(big.stats.windowError == 1 && big.stats.windowWarning == 1)
    }

    @Test func inconsistentRepairsOfOneWindowAreCountedAndDropped() throws {
        let run = RSRun()
        let repairs = run.events.filter(\.0).map(\.1)
        var decoder = ReedSolomonWindowDecoder(math: ReferenceReedSolomon())
        var output = FECOutput()
        for (i, source) in run.sources.enumerated() where i != 6 && i != 7 { output.add(decoder.receiveSource(source[...], nowNanoseconds: Int64(i))) }
        // Window 8's repair 0 as sent, then its repair 1 with another sequence base, another
        // symbol length, k changed, and a base far from the stream: all refused.
        output.add(decoder.receiveRepair(repairs[3][...], nowNanoseconds: 20))
        var shifted = repairs[4]; shifted[12 + 9] &+= 1
        var longer = repairs[4]; longer[12 + 11] &+= 1; longer.append(0)
        var otherK = repairs[4]; otherK[12 + 1] = 4
        var far = repairs[6]; far[12 + 4 + 3] = 99; far[12 + 8] = 0x80
        for (i, bad) in [shifted, longer, otherK, far].enumerated() { output.add(decoder.receiveRepair(bad[...], nowNanoseconds: 21 + Int64(i))) }
        #expect(decoder.stats.repairPacketsMalformed == 4)
        #expect(output.delivered.allSatisfy { !$0.recovered })
        output.add(decoder.receiveRepair(repairs[4][...], nowNanoseconds: 30))   // intact: the second symbol needed
        #expect(output.results.contains(.recovered))
        #expect(output.delivered.filter(\.recovered).map(\.bytes) == [run.sources[6], run.sources[7]])
    }

    @Test func openWindowsAreBounded() {
        var decoder = ReedSolomonWindowDecoder(math: ReferenceReedSolomon())
        _ = decoder.receiveSource(FECPackets.rtp(sequence: 100)[...], nowNanoseconds: 0)
        var failed = 0
        for id in (0..<200).reversed() {   // older ids: none supersedes another
            var header = ReedSolomonRepairHeader(sourceCount: 5, repairCount: 3, repairIndex: 0, windowID: UInt32(id),
                                                 sequenceBase: 101, symbolLength: 4, ssrc: 0x1234_5678, symbolChecksum: 0)
            header.symbolChecksum = ReedSolomonRepairHeader.checksum(of: [0, 0, 0, 0] as [UInt8])
            let packet: [UInt8] = [0x80, 97, 0, 0, 0, 0, 0, 0, 0x12, 0x34, 0x56, 0x78] + header.bytes + [0, 0, 0, 0]
            for case let .windowClosed(report) in decoder.receiveRepair(packet[...], nowNanoseconds: Int64(id)) where report.result == .failed {
                failed += 1
            }
        }
        #expect(decoder.openWindowCount == 64)
        #expect(failed == 136)
    }

    @Test func aSenderRestartFlushesAndStartsOver() {
        let before = FECPackets.stream(count: 3, firstSequence: 100)
        let jumped = FECPackets.stream(count: 2, firstSequence: 40_000)
        let otherSSRC = FECPackets.rtp(sequence: 40_002, ssrc: 0xBEEF)
        var decoder = ReedSolomonWindowDecoder(math: ReferenceReedSolomon())
        var output = FECOutput()
        output.add(decoder.receiveSource(before[0][...], nowNanoseconds: 0))
        output.add(decoder.receiveSource(before[2][...], nowNanoseconds: 1))     // 102 held behind 101
        output.add(decoder.receiveSource(jumped[0][...], nowNanoseconds: 2))     // far jump: flush, restart
        #expect(output.sequences == [100, 102, 40_000] && output.lost == [101])
        output.add(decoder.receiveSource(jumped[1][...], nowNanoseconds: 3))
        output.add(decoder.receiveSource(otherSSRC[...], nowNanoseconds: 4))     // new SSRC: restart too
        output.add(decoder.finish(nowNanoseconds: 5))
        #expect(output.sequences == [100, 102, 40_000, 40_001, 40_002])
        #expect(decoder.stats.sourcePackets == 5 && decoder.stats.unrecoveredPackets == 1)
    }

    @Test func encoderCountsUnsupportedAndOversizedWindows() throws {
        var encoder = ReedSolomonWindowEncoder(configuration: .init(sourceCount: 200, repairCount: 100), math: ReferenceReedSolomon())
        var repairs = 0
        for packet in FECPackets.stream(count: 400, tsPackets: { _ in 0 }) { repairs += encoder.add(packet).count }
        #expect(repairs == 0)
        #expect(encoder.stats.windowError == 2 && encoder.stats.protectionWindows == 2 && encoder.stats.windowWarning == 2)
        // A sender-side gap closes the window early with a shorter k.
        var gapped = ReedSolomonWindowEncoder(configuration: .init(sourceCount: 4, repairCount: 1), math: ReferenceReedSolomon())
        let packets = FECPackets.stream(count: 6)
        var out: [[UInt8]] = []
        for i in [0, 1, 3, 4, 5] { out += gapped.add(packets[i]) }
        out += gapped.flush()
        let headers = out.compactMap { try? ReedSolomonRepairHeader.parse(packet: $0[...]).get().0 }
        #expect(headers.map(\.sourceCount) == [2, 3])
        #expect(headers.map(\.sequenceBase) == [100, 103])
        #expect(headers.map(\.windowID) == [0, 1])
    }

    /// Random shapes and losses: recovers exactly when lost sources + lost repairs ≤ m.
    @Test(arguments: 0..<40)
    func randomLossWithinAndBeyondCapacity(seed: Int) throws {
        var random = SplitMix(seed: UInt64(seed))
        let k = 1 + random.below(24), m = 1 + random.below(8)
        let run = RSRun(k: k, m: m, windows: 3, firstSequence: UInt16(truncatingIfNeeded: random.next()),
                        tsPackets: { _ in Int(seed % 3) * 3 + 1 })
        let lostSources = Set((0..<k).filter { _ in random.below(4) == 0 })
        let lostRepairs = Set((0..<m).filter { _ in random.below(3) == 0 })
        let (output, decoder) = run.decode(dropSources: Set(lostSources.map { $0 + k }), dropRepairs: Set(lostRepairs.map { $0 + m }))
        let expected: FECWindowResult = lostSources.isEmpty ? .noLoss
            : (lostSources.count + lostRepairs.count <= m ? .recovered : .failed)
        #expect(output.results == [.noLoss, expected, .noLoss], "k=\(k) m=\(m) lost \(lostSources.sorted()) repairs \(lostRepairs.sorted())")
        let unrecovered = expected == .failed ? lostSources.count : 0
        #expect(output.delivered.count == 3 * k - unrecovered)
        let byIndex = Dictionary(uniqueKeysWithValues: run.sources.map { (RTPFields($0[...])!.sequence, $0) })
        #expect(output.delivered.allSatisfy { byIndex[$0.sequenceNumber] == $0.bytes })
        #expect(decoder.stats.unrecoveredPackets == unrecovered)
    }
}

@Suite struct FECRepairHeaderTests {
    static let header = ReedSolomonRepairHeader(sourceCount: 20, repairCount: 5, repairIndex: 3, windowID: 0x0102_0304,
                                                sequenceBase: 0xFFFE, symbolLength: 6, ssrc: 0xCAFE_BABE, symbolChecksum: 0)

    @Test func bytesAreExactlyAsDocumented() {
        var header = Self.header
        header.symbolChecksum = ReedSolomonRepairHeader.checksum(of: Array("123456789".utf8))
        #expect(header.symbolChecksum == 0xE306_9283)           // the CRC-32C check value
        #expect(header.bytes == [0x10, 20, 5, 3, 0x01, 0x02, 0x03, 0x04, 0xFF, 0xFE, 0x00, 0x06,
                                 0xCA, 0xFE, 0xBA, 0xBE, 0xE3, 0x06, 0x92, 0x83])
    }

    @Test func parseRoundTripsAndEveryTruncationIsRefused() throws {
        let symbol: [UInt8] = [9, 8, 7, 6, 5, 4]
        let body = Self.header.bytes + symbol
        let parsed = try ReedSolomonRepairHeader.parse(body: body[...]).get()
        #expect(parsed.0 == Self.header)
        #expect(Array(parsed.1) == symbol)
        for cut in 0..<body.count {
            let result = ReedSolomonRepairHeader.parse(body: body[0..<cut])
            let expected: ReedSolomonRepairHeader.ParseError = cut < 20 ? .truncated : .lengthMismatch(declared: 6, actual: cut - 20)
            #expect(result.failure == expected, "cut \(cut)")
        }
        // A slice that does not start at index 0 parses the same.
        let shifted = ([0xAA, 0xBB] + body)[2...]
        #expect(try ReedSolomonRepairHeader.parse(body: shifted).get().0 == Self.header)
    }

    @Test(arguments: [
        ([0x20, 20, 5, 3], ReedSolomonRepairHeader.ParseError.unsupportedVersion(2)),
        ([0x11, 20, 5, 3], .reservedBitsSet),
        ([0x10, 0, 5, 3], .impossibleShape(k: 0, m: 5, index: 3)),
        ([0x10, 20, 0, 0], .impossibleShape(k: 20, m: 0, index: 0)),
        ([0x10, 20, 5, 5], .impossibleShape(k: 20, m: 5, index: 5)),
    ] as [([UInt8], ReedSolomonRepairHeader.ParseError)])
    func impossibleHeadersAreRefused(prefix: [UInt8], error: ReedSolomonRepairHeader.ParseError) {
        var body = Self.header.bytes + [1, 2, 3, 4, 5, 6]
        body.replaceSubrange(0..<4, with: prefix)
        #expect(ReedSolomonRepairHeader.parse(body: body[...]).failure == error)
    }

    @Test func garbageNeverTrapsAndIsCountedMalformed() {
        var random = SplitMix(seed: 99)
        var decoder = ReedSolomonWindowDecoder(math: ReferenceReedSolomon())
        var delivered = 0
        for i in 0..<3000 {
            let length = random.below(60)
            var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if i % 2 == 0, bytes.count > 16 { bytes[0] = 0x80; bytes[12] = 0x10 }   // past the first checks
            let actions = i % 3 == 0 ? decoder.receiveSource(bytes[...], nowNanoseconds: Int64(i))
                : decoder.receiveRepair(bytes[...], nowNanoseconds: Int64(i))
            delivered += actions.count
        }
        #expect(decoder.stats.repairPacketsMalformed + decoder.stats.repairPackets + decoder.stats.repairPacketsLate == 2000)
        #expect(decoder.stats.windowRecoverySuccesses == 0)
        _ = delivered
    }
}

extension Result {
    var failure: Failure? {
        if case let .failure(error) = self { return error }
        return nil
    }
}

struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}
