import Testing
import GrandstandCore
@testable import ErasureCoding

/// The decoder's allocation-free paths on ISA-L: a packet given as its own array (kept as is) and
/// closed windows' repair arrays reused by later ones must change nothing in what comes out.
@Suite struct FECWindowReuseTests {
    /// Many (20, 5) windows with changing loss counts (0…6: the 6th fails), one window with a
    /// corrupted first repair: the array feed (`receiveSource([UInt8], …, into:)`) and the slice
    /// feed (`receiveSource(ArraySlice, …)`) give identical actions and stats, and every
    /// recoverable window comes out byte-exact.
    @Test func arrayFeedMatchesSliceFeedAcrossReusedWindows() throws {
        let k = 20, m = 5, windows = 24
        var random = SeededBytes(state: 77)
        var encoder = ReedSolomonWindowEncoder(configuration: .init(sourceCount: k, repairCount: m), math: ISALReedSolomonMath())
        var byArray = ReedSolomonWindowDecoder(math: ISALReedSolomonMath())
        var bySlice = ReedSolomonWindowDecoder(math: ISALReedSolomonMath())
        var arrayActions: [FECAction] = [], sliceActions: [FECAction] = []
        var sent: [[UInt8]] = []
        var expectedLost = 0
        for w in 0..<windows {
            let losses = w % 7   // 0...6 sources lost in this window
            let corrupt = w == 9 // its first repair is damaged: the decoder must skip it
            let lost = Set((0..<losses).map { 2 + $0 * 3 })
            if losses > m { expectedLost += losses }
            for i in 0..<k {
                let sequence = UInt16(truncatingIfNeeded: 65_000 + w * k + i)
                let packet = FECWindowsTests.rtp(sequence, length: 1316 - 12 * (i % 3), random: &random)
                sent.append(packet)
                let repairs = encoder.add(packet)
                let t = Int64(w * k + i) * 1_000
                if !lost.contains(i) {
                    byArray.receiveSource(packet, nowNanoseconds: t, into: &arrayActions)
                    sliceActions += bySlice.receiveSource(packet[...], nowNanoseconds: t)
                }
                for (r, repair) in repairs.enumerated() {
                    var bytes = repair
                    if corrupt, r == 0 { bytes[bytes.count - 1] ^= 0x5A }
                    byArray.receiveRepair(bytes[...], nowNanoseconds: t, into: &arrayActions)
                    sliceActions += bySlice.receiveRepair(bytes[...], nowNanoseconds: t)
                }
            }
        }
        let end = Int64(windows * k) * 1_000 + 1
        byArray.finish(nowNanoseconds: end, into: &arrayActions)
        sliceActions += bySlice.finish(nowNanoseconds: end)
        #expect(arrayActions == sliceActions)
        #expect(byArray.stats == bySlice.stats)
        var delivered: [UInt16: [UInt8]] = [:]
        var lostCount = 0
        for action in arrayActions {
            switch action {
            case .deliver(let packet): delivered[packet.sequenceNumber] = packet.bytes
            case let .lost(_, count, _): lostCount += count
            case .windowClosed: break
            }
        }
        // Never a wrong packet: everything delivered is what was sent.
        let wrong = sent.filter { packet in
            let sequence = UInt16(packet[2]) << 8 | UInt16(packet[3])
            return delivered[sequence].map { $0 != packet } ?? false
        }
        #expect(wrong.isEmpty)
        #expect(lostCount == expectedLost)
        #expect(delivered.count + lostCount == windows * k)
        #expect(byArray.stats.repairPacketsMalformed == 1)
        // Six losses (windows 6, 13, 20) fail; one to five recover (window 9 despite its bad repair).
        #expect(byArray.stats.windowRecoveryFailures == 3)
        #expect(byArray.stats.windowRecoverySuccesses == 17)
    }
}
