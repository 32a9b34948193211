import Testing
import TestSupport
@testable import ErasureCoding

@Suite struct ReedSolomonTests {
    static let k = 4, m = 2, length = 16

    /// Every pattern of at most m lost symbols out of k + m = 6: 1 + 6 + 15 = 22.
    static let recoverablePatterns = (0...m).flatMap { subsets(of: k + m, size: $0) }
    /// Every pattern of m + 1 = 3 lost symbols: 20.
    static let unrecoverablePatterns = subsets(of: k + m, size: m + 1)

    static func window(seed: UInt64) -> [[UInt8]] {
        var random = SeededBytes(state: seed)
        return random.window(k: k, length: length)
    }

    @Test func generatorIsIdentityOverISALsCauchyRows() throws {
        let codec = try ReedSolomonCodec(sourceCount: Self.k, repairCount: Self.m)
        #expect(codec.generator.count == (Self.k + Self.m) * Self.k)
        for row in 0..<(Self.k + Self.m) {
            for source in 0..<Self.k {
                let expected = row < Self.k ? (row == source ? 1 : 0) : ReferenceGF.cauchy(row: row, source: source)
                #expect(codec.coefficient(row: row, source: source) == expected, "row \(row) source \(source)")
            }
        }
    }

    @Test func repairsMatchAnIndependentGF256Computation() throws {
        let codec = try ReedSolomonCodec(sourceCount: Self.k, repairCount: Self.m)
        let sources = Self.window(seed: 1)
        let repairs = try codec.encode(sources: sources)
        #expect(repairs.count == Self.m)
        for r in 0..<Self.m {
            let expected = (0..<Self.length).map { byte in
                (0..<Self.k).reduce(UInt8(0)) { sum, j in
                    sum ^ ReferenceGF.multiply(ReferenceGF.cauchy(row: Self.k + r, source: j), sources[j][byte])
                }
            }
            #expect(repairs[r] == expected, "repair \(r)")
        }
        // One byte by hand: repair 0 byte 0 = Σ_j (1/(4 ⊕ j)) · s_j[0].
        let byHand = ReferenceGF.multiply(ReferenceGF.inverse(4), sources[0][0])
            ^ ReferenceGF.multiply(ReferenceGF.inverse(5), sources[1][0])
            ^ ReferenceGF.multiply(ReferenceGF.inverse(6), sources[2][0])
            ^ ReferenceGF.multiply(ReferenceGF.inverse(7), sources[3][0])
        #expect(repairs[0][0] == byHand)
    }

    @Test(arguments: recoverablePatterns)
    func anyKOfKPlusMRecoverTheWindow(lost: [Int]) throws {
        let codec = try ReedSolomonCodec(sourceCount: Self.k, repairCount: Self.m)
        let sources = Self.window(seed: UInt64(lost.reduce(7) { $0 * 10 + $1 }))
        let symbols = sources + (try codec.encode(sources: sources))
        var received: [Int: [UInt8]] = [:]
        for index in symbols.indices where !lost.contains(index) { received[index] = symbols[index] }

        let recovered = try codec.reconstruct(received: received, length: Self.length)
        let lostSources = lost.filter { $0 < Self.k }
        #expect(recovered.keys.sorted() == lostSources)
        for index in lostSources { #expect(recovered[index] == sources[index], "source \(index)") }
    }

    @Test(arguments: unrecoverablePatterns)
    func losingMoreThanMIsAClearError(lost: [Int]) throws {
        let codec = try ReedSolomonCodec(sourceCount: Self.k, repairCount: Self.m)
        let sources = Self.window(seed: 3)
        let symbols = sources + (try codec.encode(sources: sources))
        var received: [Int: [UInt8]] = [:]
        for index in symbols.indices where !lost.contains(index) { received[index] = symbols[index] }

        let error = try #require(thrownError(ErasureCodingError.self) {
            try codec.reconstruct(received: received, length: Self.length)
        })
        #expect(error.reason == .tooFewSymbols(received: 3, needed: 4))
        #expect(error.description == "decoder: received 3 symbols, need at least 4 to recover the window")
    }

    @Test func aDecoderIsReusableForEveryWindowWithTheSamePattern() throws {
        let codec = try ReedSolomonCodec(sourceCount: Self.k, repairCount: Self.m)
        let decoder = try codec.decoder(forReceived: [1, 3, 4, 5])
        #expect(decoder.survivors == [1, 3, 4, 5])
        #expect(decoder.missing == [0, 2])
        for seed in UInt64(10)..<20 {
            let sources = Self.window(seed: seed)
            let repairs = try codec.encode(sources: sources)
            let received = [1: sources[1], 3: sources[3], 4: repairs[0], 5: repairs[1]]
            #expect(try decoder.reconstruct(received: received, length: Self.length) == [0: sources[0], 2: sources[2]])
        }
    }

    /// A realistic window: 7×188-byte TS packets (not a multiple of ISA-L's 32/64-byte SIMD
    /// blocks), k = 20, m = 5, the worst-case loss of five sources.
    @Test func largeWindowWithSIMDLengthsRoundTrips() throws {
        let codec = try ReedSolomonCodec(sourceCount: 20, repairCount: 5)
        var random = SeededBytes(state: 42)
        let sources = random.window(k: 20, length: 1316)
        let repairs = try codec.encode(sources: sources)
        // Spot-check the SIMD encode against the reference at the unaligned tail.
        for byte in [0, 31, 32, 1315] {
            let expected = (0..<20).reduce(UInt8(0)) { $0 ^ ReferenceGF.multiply(ReferenceGF.cauchy(row: 24, source: $1), sources[$1][byte]) }
            #expect(repairs[4][byte] == expected, "byte \(byte)")
        }
        let lost: Set = [0, 7, 8, 13, 19]
        var received: [Int: [UInt8]] = [:]
        for (index, bytes) in (sources + repairs).enumerated() where !lost.contains(index) { received[index] = bytes }
        let recovered = try codec.reconstruct(received: received, length: 1316)
        #expect(Set(recovered.keys) == lost)
        for index in lost { #expect(recovered[index] == sources[index]) }
    }
}
