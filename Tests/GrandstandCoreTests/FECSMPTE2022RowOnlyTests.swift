import GrandstandCore
import Testing

/// SMPTE 2022-1 streams carrying row FEC only (no column FEC): our encoder's output with the
/// column flow left out, as GStreamer sends with column FEC disabled.
@Suite struct FECSMPTE2022RowOnlyTests {
    /// L = 4, D = 3, 48 media packets (four matrices of 12) through our decoder, row FEC only.
    func decode(drop: Set<Int>, configuration: SMPTE2022Decoder.Configuration) -> (FECOutput, SMPTE2022Decoder, [[UInt8]]) {
        let media = FECPackets.stream(count: 48, firstSequence: 65_520, tsPackets: { [7, 7, 3, 7][$0 % 4] })
        var encoder = SMPTE2022Encoder(configuration: .init(columns: 4, rows: 3))
        var decoder = SMPTE2022Decoder(configuration: configuration)
        var output = FECOutput()
        for (i, packet) in media.enumerated() {
            let now = Int64(i) * 1_000_000
            let fec = encoder.add(packet)
            if !drop.contains(i) { output.add(decoder.receiveMedia(packet[...], nowNanoseconds: now)) }
            for bytes in fec.row { output.add(decoder.receiveFEC(bytes[...], nowNanoseconds: now)) }
        }
        output.add(decoder.finish(nowNanoseconds: 1_000_000_000))
        return (output, decoder, media)
    }

    @Test func announcedMatricesAreRepairedByRowsAndCounted() {
        let limits = FECDecoderConfiguration(matrixWaitBoundNanoseconds: 1_000_000_000)
        // One loss in a row is repaired; two in one row (16, 17) are not.
        let (output, decoder, media) = decode(drop: [5, 13, 16, 17, 30], configuration: .init(limits: limits, columns: 4, rows: 3))
        let expected = media.enumerated().filter { ![16, 17].contains($0.offset) }.map(\.element)
        #expect(output.delivered.map(\.bytes) == expected)
        #expect(output.results == [.recovered, .failed, .recovered, .noLoss])
        #expect(output.windows.map(\.repairCount) == [3, 3, 3, 3])
        #expect(output.lost == [65_520 &+ 16, 65_520 &+ 17])
        #expect(decoder.stats.recoveredPackets == 3 && decoder.stats.unrecoveredPackets == 2)
        #expect(decoder.stats.protectionWindows == 4 && decoder.stats.windowRecoverySuccesses == 2
            && decoder.stats.windowRecoveryFailures == 1 && decoder.stats.windowNoLoss == 1)
        #expect(decoder.geometry?.columns == 4 && decoder.geometry?.rows == 3)
    }

    @Test func withoutAnnouncedRowsEachRowIsAWindow() {
        let limits = FECDecoderConfiguration(matrixWaitBoundNanoseconds: 1_000_000_000)
        let (output, decoder, media) = decode(drop: [5, 13, 16, 17, 30], configuration: .init(limits: limits, maxMatrixPackets: 12))
        let expected = media.enumerated().filter { ![16, 17].contains($0.offset) }.map(\.element)
        #expect(output.delivered.map(\.bytes) == expected)
        var results = [FECWindowResult](repeating: .noLoss, count: 12)
        results[1] = .recovered
        results[3] = .recovered
        results[4] = .failed
        results[7] = .recovered
        #expect(output.results == results)
        #expect(output.windows.allSatisfy { $0.sourceCount == 4 && $0.repairCount == 1 })
        #expect(decoder.stats.recoveredPackets == 3 && decoder.stats.protectionWindows == 12)
        // D = 1 was only this stream's guess: the end of input forgets it.
        #expect(decoder.geometry == nil)
    }

    @Test func columnFECStillDecidesTheLayoutWhenItComes() {
        // Both flows: the row-only rule must not fire, matrices stay L×D with L + D repairs.
        let media = FECPackets.stream(count: 48, firstSequence: 65_520)
        var encoder = SMPTE2022Encoder(configuration: .init(columns: 4, rows: 3))
        var decoder = SMPTE2022Decoder(configuration: .init(limits: FECDecoderConfiguration(matrixWaitBoundNanoseconds: 1_000_000_000)))
        var output = FECOutput()
        for (i, packet) in media.enumerated() {
            let fec = encoder.add(packet)
            if i != 14 { output.add(decoder.receiveMedia(packet[...], nowNanoseconds: Int64(i) * 1_000_000)) }
            for bytes in fec.row + fec.column { output.add(decoder.receiveFEC(bytes[...], nowNanoseconds: Int64(i) * 1_000_000)) }
        }
        output.add(decoder.finish(nowNanoseconds: 1_000_000_000))
        #expect(output.delivered.map(\.bytes) == media)
        #expect(Array(output.results.prefix(2)) == [.noLoss, .recovered])
        #expect(output.windows.allSatisfy { $0.sourceCount == 12 && $0.repairCount == 7 })
    }
}
