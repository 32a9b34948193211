import GrandstandCore
import TestSupport
import Testing

/// PCR-derived pacing of transport streams (PacedTransportStream) on the sample and on
/// synthetic streams with PCR wrap, jumps and no PCR at all.
struct StreamerPacingTests {
    @Test func sampleIsAnalysedFromItsPCRs() throws {
        let bytes = try StreamerSample.bytes()
        let stream = try PacedTransportStream(bytes)
        #expect(bytes.count % 188 == 0)
        #expect(stream.packetCount == bytes.count / 188)
        #expect(stream.pcrPID == 0x100)
        #expect(stream.pcrDiscontinuities == 0)
        let pcrIndices = stream.pcrPacketIndices
        #expect(pcrIndices.count > 500)   // ~20 ms PCR period over 20 s
        // At every PCR packet the offset is exactly the PCR distance (27 MHz → ns, truncated).
        let first = try #require(StreamerSample.pcr(bytes[(pcrIndices[0] * 188)..<(pcrIndices[0] * 188 + 188)]))
        var worst: Int64 = 0
        for index in pcrIndices {
            let pcr = try #require(StreamerSample.pcr(bytes[(index * 188)..<(index * 188 + 188)]))
            let expected = (pcr - first) * 1000 / 27
            worst = max(worst, abs(stream.packetOffsets[index] - stream.packetOffsets[pcrIndices[0]] - expected))
        }
        #expect(worst <= 1)
        // Non-decreasing everywhere, starting at 0, ending near the 20 s the sample lasts.
        #expect(stream.packetOffsets[0] == 0)
        #expect(zip(stream.packetOffsets, stream.packetOffsets.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(abs(stream.durationNanoseconds - 20_020_000_000) < 100_000_000)
        // The mux is CBR at 900 kbit/s: 188 × 8 / 900000 s ≈ 1.671 ms per packet.
        let perPacket = Double(stream.durationNanoseconds) / Double(stream.packetCount)
        #expect(abs(perPacket - 1_671_111) < 1_671_111 * 0.01)
    }

    @Test func pcrWrapIsUnwrapped() throws {
        // PCR every 10 packets, 10 ms apart, crossing 2^33 × 300 after the 5th PCR.
        let step: Int64 = 270_000
        let bytes = StreamerSample.stream(count: 100, every: 10, firstPCR: PacedTransportStream.pcrModulus - 5 * step, step: step)
        let stream = try PacedTransportStream(bytes)
        #expect(stream.pcrDiscontinuities == 0)
        for i in 0..<100 { #expect(stream.packetOffsets[i] == Int64(i) * 1_000_000) }
        #expect(stream.durationNanoseconds == 100_000_000)
    }

    @Test func packetsBeforeTheFirstPCRAreExtrapolated() throws {
        let bytes = StreamerSample.stream(count: 50, every: 10, firstPCR: 27_000_000, step: 270_000, offset: 5)
        let stream = try PacedTransportStream(bytes)
        #expect(stream.pcrPacketIndices.first == 5)
        for i in 0..<50 { #expect(stream.packetOffsets[i] == Int64(i) * 1_000_000) }
    }

    @Test func backwardPCRJumpIsBridgedAtThePreviousRate() throws {
        // The 4th PCR jumps back 5 s (a spliced file): bridged, counted, time keeps going forward.
        let bytes = StreamerSample.stream(count: 80, every: 10, firstPCR: 270_000_000, step: 270_000,
                                          pcrs: [4: 135_000_000, 5: 135_270_000, 6: 135_540_000, 7: 135_810_000])
        let stream = try PacedTransportStream(bytes)
        #expect(stream.pcrDiscontinuities == 1)
        for i in 0..<80 { #expect(stream.packetOffsets[i] == Int64(i) * 1_000_000) }
    }

    @Test func streamWithoutPCRUsesTheFallbackRate() throws {
        let bytes = StreamerSample.stream(count: 20, every: 1000, firstPCR: 0, step: 0, offset: 1000)
        let stream = try PacedTransportStream(bytes, fallbackBitsPerSecond: 1_504_000)   // 1 ms per packet
        #expect(stream.pcrPID == nil)
        #expect(stream.packetOffsets == (0..<20).map { Int64($0) * 1_000_000 })
    }

    @Test func leadingGarbageIsSkippedAndNonTSRefused() throws {
        let bytes = [UInt8](repeating: 0x00, count: 13) + StreamerSample.stream(count: 5, every: 1, firstPCR: 0, step: 27_000)
        let stream = try PacedTransportStream(bytes)
        #expect(stream.packetCount == 5)
        #expect(stream.bytes.first == 0x47)
        let error = thrownError(StreamerError.self) { try PacedTransportStream([UInt8](repeating: 0x47, count: 100)) }
        #expect(error?.reason.contains("not an MPEG-TS") == true)
    }
}
