/// The generator matrix of FEC Encoding ID 5 (Reed-Solomon over GF(2^8), RFC 5510 §8): a
/// Vandermonde matrix put in systematic form. Sender and receiver must build it byte for byte
/// alike, so it lives in the pure core; the ErasureCoding adapter feeds it to ISA-L.
///
/// The construction, as in Rizzo's `fec.c` (which RFC 5510 §8 follows; its authors' OpenFEC
/// `reed-solomon_gf_2_m` codec and zfec build the same matrix):
/// - GF(2^8) from the primitive polynomial 1 + x^2 + x^3 + x^4 + x^8 (0x11D), α = x (2);
/// - the n × k Vandermonde matrix V whose row i evaluates the powers 0…k−1 of the field element
///   e_i, where e_0 = 0 and e_i = α^(i−1) for i ≥ 1 (so row 0 is 1, 0, …, 0);
/// - G = V · (V_top)⁻¹ with V_top its first k rows: G's first k rows are the identity (encoding
///   symbol i < k is source symbol i) and row k + r gives repair symbol r = Σ_j G[k+r][j] · s_j.
/// Row i of G depends only on k and i, so a block's n only bounds how many rows are used.
public enum RFC5510Generator {
    /// α^i for i in 0..<510 (two periods, so log sums need no reduction).
    static let exp: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 510)
        var x = 1
        for i in 0..<255 {
            table[i] = UInt8(x)
            x <<= 1
            if x & 0x100 != 0 { x ^= 0x11D }
        }
        for i in 255..<510 { table[i] = table[i - 255] }
        return table
    }()

    /// log_α(a) for a ≠ 0.
    static let log: [Int] = {
        var table = [Int](repeating: 0, count: 256)
        for i in 0..<255 { table[Int(exp[i])] = i }
        return table
    }()

    /// a · b in GF(2^8) (0x11D).
    public static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        a == 0 || b == 0 ? 0 : exp[log[Int(a)] + log[Int(b)]]
    }

    /// The b with a · b = 1 (a ≠ 0).
    static func inverse(_ a: UInt8) -> UInt8 { exp[(255 - log[Int(a)]) % 255] }

    /// The (k + m) × k systematic generator, row-major: identity on top, then the m repair rows.
    /// Nil unless 1 ≤ k and k + m ≤ 255 (the field has 256 elements, one per row).
    public static func matrix(sourceCount k: Int, repairCount m: Int) -> [UInt8]? {
        guard k >= 1, m >= 0, k + m <= 255 else { return nil }
        let n = k + m
        // V: row 0 = e_0 = 0, row i ≥ 1 = α^(i−1); column j = power j.
        var v = [UInt8](repeating: 0, count: n * k)
        v[0] = 1
        for row in 1..<max(n, 1) {
            for col in 0..<k { v[row * k + col] = exp[((row - 1) * col) % 255] }
        }
        guard let topInverse = invert(Array(v[0..<(k * k)]), size: k) else { return nil }
        var g = [UInt8](repeating: 0, count: n * k)
        for i in 0..<k { g[i * k + i] = 1 }
        for row in k..<n {
            for col in 0..<k {
                var sum: UInt8 = 0
                for t in 0..<k { sum ^= multiply(v[row * k + t], topInverse[t * k + col]) }
                g[row * k + col] = sum
            }
        }
        return g
    }

    /// Gauss-Jordan inverse of a size × size matrix over GF(2^8); nil when singular.
    static func invert(_ matrix: [UInt8], size: Int) -> [UInt8]? {
        var a = matrix
        var b = [UInt8](repeating: 0, count: size * size)
        for i in 0..<size { b[i * size + i] = 1 }
        for col in 0..<size {
            guard let pivot = (col..<size).first(where: { a[$0 * size + col] != 0 }) else { return nil }
            if pivot != col {
                for c in 0..<size {
                    a.swapAt(pivot * size + c, col * size + c)
                    b.swapAt(pivot * size + c, col * size + c)
                }
            }
            let scale = inverse(a[col * size + col])
            for c in 0..<size {
                a[col * size + c] = multiply(a[col * size + c], scale)
                b[col * size + c] = multiply(b[col * size + c], scale)
            }
            for row in 0..<size where row != col {
                let factor = a[row * size + col]
                guard factor != 0 else { continue }
                for c in 0..<size {
                    a[row * size + c] ^= multiply(factor, a[col * size + c])
                    b[row * size + c] ^= multiply(factor, b[col * size + c])
                }
            }
        }
        return b
    }

    /// The m repair symbols of k equal-length sources with the RFC 5510 generator, in pure Swift
    /// (reference for tests and a fallback; the product encodes through ISA-L).
    public static func encode(sources: [[UInt8]], repairCount m: Int) -> [[UInt8]]? {
        let k = sources.count
        guard let g = matrix(sourceCount: k, repairCount: m), let length = sources.first?.count,
              sources.allSatisfy({ $0.count == length }) else { return nil }
        return (0..<m).map { r in
            var out = [UInt8](repeating: 0, count: length)
            for (j, source) in sources.enumerated() {
                let c = g[(k + r) * k + j]
                guard c != 0 else { continue }
                for i in 0..<length { out[i] ^= multiply(c, source[i]) }
            }
            return out
        }
    }
}
