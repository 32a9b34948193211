/// A slow, obviously-correct GF(2^8) written from the field's definition (polynomial 0x11D, the
/// one ISA-L uses) so the tests check ISA-L against something that does not call it.
enum ReferenceGF {
    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        var a = UInt16(a), b = b, product: UInt16 = 0
        while b != 0 {
            if b & 1 == 1 { product ^= a }
            a <<= 1
            if a & 0x100 != 0 { a ^= 0x11D }
            b >>= 1
        }
        return UInt8(product)
    }

    static func inverse(_ a: UInt8) -> UInt8 {
        (1...255).lazy.map { UInt8($0) }.first { multiply(a, $0) == 1 } ?? 0
    }

    /// ISA-L's documented Cauchy repair row i (k ≤ i < k + m): coefficient 1/(i ⊕ j) for source j.
    static func cauchy(row: Int, source: Int) -> UInt8 { inverse(UInt8(row ^ source)) }
}

/// Deterministic bytes (SplitMix64) so failures reproduce.
struct SeededBytes {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) } }
    mutating func window(k: Int, length: Int) -> [[UInt8]] { (0..<k).map { _ in bytes(length) } }
}

/// All subsets of 0..<n with exactly `size` elements, in lexicographic order.
func subsets(of n: Int, size: Int) -> [[Int]] {
    guard size > 0 else { return [[]] }
    guard size <= n else { return [] }
    return subsets(of: n - 1, size: size) + subsets(of: n - 1, size: size - 1).map { $0 + [n - 1] }
}
