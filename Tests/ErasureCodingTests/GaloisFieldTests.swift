import Testing
import TestSupport
@testable import ErasureCoding

@Suite struct GaloisFieldTests {
    @Test func isalMultiplyAndInverseMatchTheReferenceField() {
        var mismatches = 0
        for a in 0...255 {
            for b in 0...255 where gfMultiply(UInt8(a), UInt8(b)) != ReferenceGF.multiply(UInt8(a), UInt8(b)) {
                mismatches += 1
            }
        }
        #expect(mismatches == 0)
        #expect((1...255).allSatisfy { gfInverse(UInt8($0)) == ReferenceGF.inverse(UInt8($0)) })
        #expect(gfInverse(0) == 0)
        #expect(ReferenceGF.multiply(0x80, 2) == 0x1D)  // x^8 reduces to x^4 + x^3 + x^2 + 1
    }

    /// Lengths below, at and above gf_vect_mad's 64-byte SIMD minimum, aligned and not.
    @Test(arguments: [1, 16, 63, 64, 65, 100, 1316], [0, 1, 2, 0x8E, 0xFF] as [UInt8])
    func multiplyAccumulateMatchesTheReference(length: Int, coefficient: UInt8) throws {
        var random = SeededBytes(state: UInt64(length) << 8 | UInt64(coefficient))
        let source = random.bytes(length)
        let start = random.bytes(length)
        var destination = start
        try gfMultiplyAccumulate(coefficient, source: source, into: &destination)
        let expected = zip(start, source).map { $0 ^ ReferenceGF.multiply(coefficient, $1) }
        #expect(destination == expected)
    }

    @Test func multiplyAccumulateRejectsDifferentLengths() {
        var destination = [UInt8](repeating: 0, count: 8)
        let error = thrownError(ErasureCodingError.self) {
            try gfMultiplyAccumulate(3, source: [1, 2, 3], into: &destination)
        }
        #expect(error?.reason == .lengthMismatch(index: 0, expected: 8, got: 3))
    }
}

@Suite struct LibraryTests {
    @Test func isalVersionIsAtLeastBookworms() throws {
        let parts = ErasureCodingLibrary.isalVersion.split(separator: ".").compactMap { Int($0) }
        try #require(parts.count == 3)
        #expect(parts[0] == 2 && parts[1] >= 30)
    }
}
