import Testing
@testable import GrandstandCore

/// The word-wide XOR of SMPTE 2022-1 against a byte loop: every length across the 32- and
/// 8-byte steps and the tail, at unaligned offsets.
struct FECXORTests {
    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
    }

    @Test(arguments: [0, 1, 3, 12, 13, 19])
    func matchesAByteLoop(offset: Int) {
        for count in Array(0...80) + [1316, 1317, 1500] {
            var out = Self.bytes(count + 5, seed: UInt64(count))
            let source = Self.bytes(offset + count, seed: UInt64(count) &+ 99)
            var expected = out
            for i in 0..<count { expected[i] ^= source[offset + i] }
            XORBytes.accumulate(into: &out, from: source, offset: offset, count: count)
            #expect(out == expected, "count \(count) offset \(offset)")
        }
    }

    @Test func refusesRangesOutsideTheArrays() {
        var out: [UInt8] = [1, 2, 3]
        XORBytes.accumulate(into: &out, from: [9, 9, 9, 9], offset: 2, count: 3)
        #expect(out == [1, 2, 3])
        XORBytes.accumulate(into: &out, from: [1, 1, 1, 1, 1], offset: 0, count: 4)
        #expect(out == [1, 2, 3])
    }
}
