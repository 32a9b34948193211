import Testing
import TestSupport
import GrandstandCore
@testable import ErasureCoding

/// The core's protection windows on the product math (ISA-L), end to end.
@Suite struct FECWindowsTests {
    static func rtp(_ sequence: UInt16, length: Int, random: inout SeededBytes) -> [UInt8] {
        [0x80, 33, UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0, 0, 0, 1, 0xAB, 0xCD, 0xEF, 0x01] + random.bytes(length)
    }

    @Test func isalMathMatchesTheDefinitionOfTheCode() throws {
        let math = ISALReedSolomonMath()
        var random = SeededBytes(state: 8)
        let sources = random.window(k: 6, length: 70)
        let repairs = try math.encode(sourceCount: 6, repairCount: 3, symbolLength: 70, sources: sources)
        for r in 0..<3 {
            for byte in [0, 31, 64, 69] {
                let expected = (0..<6).reduce(UInt8(0)) { $0 ^ ReferenceGF.multiply(ReferenceGF.cauchy(row: 6 + r, source: $1), sources[$1][byte]) }
                #expect(repairs[r][byte] == expected)
            }
        }
        let error = thrownError(ErasureCodingError.self) {
            try math.encode(sourceCount: 2, repairCount: 1, symbolLength: 70, sources: [sources[0], [1, 2]])
        }
        #expect(error?.reason == .lengthMismatch(index: 1, expected: 70, got: 2))
    }

    @Test func decodeTablesAreCachedPerLossPattern() throws {
        let math = ISALReedSolomonMath()
        var random = SeededBytes(state: 9)
        for round in 0..<4 {
            let sources = random.window(k: 10, length: 64)
            let repairs = try math.encode(sourceCount: 10, repairCount: 4, symbolLength: 64, sources: sources)
            // Sources 2 and 7 lost every time (same pattern), except round 3 (source 5 lost).
            let lost: Set = round == 3 ? [5] : [2, 7]
            var received: [Int: [UInt8]] = [:]
            for i in 0..<10 where !lost.contains(i) { received[i] = sources[i] }
            for r in 0..<lost.count { received[10 + r] = repairs[r] }
            let rebuilt = try math.reconstruct(sourceCount: 10, repairCount: 4, symbolLength: 64, received: received)
            #expect(rebuilt == Dictionary(uniqueKeysWithValues: lost.map { ($0, sources[$0]) }))
        }
        #expect(math.decodeCacheMisses == 2 && math.decodeCacheHits == 2)
    }

    /// (k, m) = (20, 5) with 1316-byte TS payloads: every number of losses up to m recovers
    /// byte-exact through encoder → network → decoder on ISA-L; m + 1 fails with nothing wrong.
    @Test(arguments: 0...6)
    func encoderToDecoderOnISAL(losses: Int) throws {
        var random = SeededBytes(state: UInt64(losses) + 100)
        let packets = (0..<60).map { Self.rtp(UInt16(truncatingIfNeeded: 65_500 + $0), length: 1316, random: &random) }
        var encoder = ReedSolomonWindowEncoder(configuration: .init(sourceCount: 20, repairCount: 5), math: ISALReedSolomonMath())
        var decoder = ReedSolomonWindowDecoder(math: ISALReedSolomonMath())
        var delivered: [[UInt8]] = [], results: [FECWindowResult] = []
        func take(_ actions: [FECAction]) {
            for case let .deliver(packet) in actions { delivered.append(packet.bytes) }
            for case let .windowClosed(report) in actions { results.append(report.result) }
        }
        // Window 1 (packets 20–39) loses `losses` sources spread over it.
        let dropped = Set((0..<losses).map { 20 + $0 * 3 })
        for (i, packet) in packets.enumerated() {
            let repairs = encoder.add(packet)
            if !dropped.contains(i) { take(decoder.receiveSource(packet[...], nowNanoseconds: Int64(i))) }
            for repair in repairs { take(decoder.receiveRepair(repair[...], nowNanoseconds: Int64(i))) }
        }
        take(decoder.finish(nowNanoseconds: 1_000))
        let expected: FECWindowResult = losses == 0 ? .noLoss : (losses <= 5 ? .recovered : .failed)
        #expect(results == [.noLoss, expected, .noLoss])
        let survivors = losses <= 5 ? packets : packets.enumerated().filter { !dropped.contains($0.offset) }.map(\.element)
        #expect(delivered == survivors)
        #expect(decoder.stats.recoveredPackets == (losses <= 5 ? losses : 0))
    }
}

extension FECWindowsTests {
    /// Mixed packet sizes on ISA-L's zero-copy rebuild: full-length sources read in place,
    /// shorter ones padded in scratch, lost ones of any size (the longest too) rebuilt exactly.
    @Test(arguments: [1, 3, 7])
    func variableSizesRebuildInPlaceOnISAL(seed: Int) throws {
        var random = SeededBytes(state: UInt64(seed) + 500)
        var packets: [[UInt8]] = []
        for i in 0..<40 {
            let length = i % 4 == 0 ? 1316 : 188 * (1 + (i * seed) % 7)
            packets.append(Self.rtp(UInt16(i), length: length, random: &random))
        }
        var encoder = ReedSolomonWindowEncoder(configuration: .init(sourceCount: 10, repairCount: 4), math: ISALReedSolomonMath())
        var decoder = ReedSolomonWindowDecoder(math: ISALReedSolomonMath())
        var delivered: [[UInt8]] = [], actions: [FECAction] = []
        // Per window: a full-length source, a short one and, in odd windows, the last.
        var dropped: Set<Int> = []
        for w in 0..<4 {
            dropped.insert(w * 10 + (w % 2 == 0 ? 4 : 2))   // i % 4 == 0: 1316 bytes
            dropped.insert(w * 10 + 5 + seed % 3)
            if w % 2 == 1 { dropped.insert(w * 10 + 9) }
        }
        for (i, packet) in packets.enumerated() {
            let repairs = encoder.add(packet)
            if !dropped.contains(i) { decoder.receiveSource(packet[...], nowNanoseconds: Int64(i), into: &actions) }
            for repair in repairs { decoder.receiveRepair(repair[...], nowNanoseconds: Int64(i), into: &actions) }
        }
        decoder.finish(nowNanoseconds: 1_000, into: &actions)
        for case let .deliver(packet) in actions { delivered.append(packet.bytes) }
        #expect(delivered == packets)
        #expect(decoder.stats.recoveredPackets == dropped.count)
        #expect(decoder.stats.windowRecoverySuccesses == 4 && decoder.stats.recoveriesRejected == 0)
    }
}

@Suite struct ISALChecksumTests {
    @Test func crc32cIsCastagnoli() {
        let math = ISALReedSolomonMath()
        let check = Array("123456789".utf8).withUnsafeBufferPointer { math.crc32c($0) }
        #expect(check == 0xE306_9283)
        var random = SeededBytes(state: 3)
        let bytes = random.bytes(1330)
        let isal = bytes.withUnsafeBufferPointer { math.crc32c($0) }
        #expect(isal == ReedSolomonRepairHeader.checksum(of: bytes))
    }
}

extension FECWindowsTests {
    /// A long stream on ISA-L: the source ring (4096 slots) wraps, so packets are
    /// released from it while the decoder prefetches the storage of packets it is about to
    /// release (stale addresses included: the decoder owns fresh copies that die with their
    /// slot); two losses per window, every window recovers byte-exact and in order, and the
    /// recurring loss pattern is solved once.
    @Test func ringWrapsWithPrefetchOnISAL() throws {
        let k = 20, m = 5, count = 4_200
        var random = SeededBytes(state: 77)
        let math = ISALReedSolomonMath()
        var encoder = ReedSolomonWindowEncoder(configuration: .init(sourceCount: k, repairCount: m), math: math)
        var decoder = ReedSolomonWindowDecoder(math: math)
        var actions: [FECAction] = []
        var delivered = 0, recovered = 0, mismatches = 0
        var sent: [[UInt8]] = []
        func drain() {
            for case let .deliver(packet) in actions {
                if packet.bytes != sent[delivered] { mismatches += 1 }
                if packet.recovered { recovered += 1 }
                delivered += 1
            }
            actions.removeAll(keepingCapacity: true)
        }
        for i in 0..<count {
            let packet = Self.rtp(UInt16(truncatingIfNeeded: i), length: 8 * (1 + i % 7), random: &random)
            sent.append(packet)
            let repairs = encoder.add(packet)
            if i % k != 3, i % k != 11 {
                let copy = packet.withUnsafeBufferPointer { Array($0) }   // the decoder's own storage
                decoder.receiveSource(copy[...], nowNanoseconds: Int64(i) * 1_000, into: &actions)
            }
            for repair in repairs.prefix(2) { decoder.receiveRepair(repair[...], nowNanoseconds: Int64(i) * 1_000, into: &actions) }
            drain()
        }
        decoder.finish(nowNanoseconds: Int64(count) * 1_000, into: &actions)
        drain()
        #expect(delivered == count && mismatches == 0)
        #expect(recovered == 2 * count / k)
        #expect(decoder.stats.windowRecoverySuccesses == count / k && decoder.stats.windowRecoveryFailures == 0)
        #expect(math.decodeCacheMisses == 1)
    }
}
