import Testing
import TestSupport
@testable import ErasureCoding

@Suite struct ValidationTests {
    @Test(arguments: [(0, 1), (1, 0), (-1, 2), (200, 56), (255, 1), (1, 255)])
    func impossibleShapesAreRejected(k: Int, m: Int) {
        let error = thrownError(ErasureCodingError.self) { try ReedSolomonCodec(sourceCount: k, repairCount: m) }
        #expect(error?.reason == .invalidParameters(sourceCount: k, repairCount: m))
        #expect(error?.description.hasPrefix("ReedSolomonCodec(k:m:): k=\(k) sources and m=\(m) repairs") == true)
    }

    @Test(arguments: [(1, 1), (254, 1), (1, 254), (128, 127)])
    func largestShapesWork(k: Int, m: Int) throws {
        let codec = try ReedSolomonCodec(sourceCount: k, repairCount: m)
        var random = SeededBytes(state: UInt64(k * 1000 + m))
        let sources = random.window(k: k, length: 8)
        let repairs = try codec.encode(sources: sources)
        // Lose the first min(k, m) sources and recover them from the repairs.
        let lost = Set(0..<min(k, m))
        var received: [Int: [UInt8]] = [:]
        for (index, bytes) in (sources + repairs).enumerated() where !lost.contains(index) { received[index] = bytes }
        let recovered = try codec.reconstruct(received: received, length: 8)
        #expect(recovered.count == lost.count)
        #expect(lost.allSatisfy { recovered[$0] == sources[$0] })
    }

    @Test func malformedWindowsAreRejected() throws {
        let codec = try ReedSolomonCodec(sourceCount: 3, repairCount: 2)
        let three = [[UInt8](repeating: 1, count: 4), [UInt8](repeating: 2, count: 4), [UInt8](repeating: 3, count: 4)]
        #expect(thrownError(ErasureCodingError.self) { try codec.encode(sources: Array(three.prefix(2))) }?.reason
            == .wrongSourceCount(expected: 3, got: 2))
        #expect(thrownError(ErasureCodingError.self) { try codec.encode(sources: [three[0], three[1], [9, 9]]) }?.reason
            == .lengthMismatch(index: 2, expected: 4, got: 2))
        #expect(thrownError(ErasureCodingError.self) {
            try codec.reconstruct(received: [1: three[1], 2: three[2], 7: three[0]], length: 4)
        }?.reason == .indexOutOfRange(index: 7, symbolCount: 5))
        #expect(thrownError(ErasureCodingError.self) {
            try codec.reconstruct(received: [1: three[1], 2: three[2], 3: [1, 2, 3]], length: 4)
        }?.reason == .lengthMismatch(index: 3, expected: 4, got: 3))
        // Nothing lost: nothing to do, even with a repair missing.
        #expect(try codec.reconstruct(received: [0: three[0], 1: three[1], 2: three[2]], length: 4).isEmpty)
    }
}
