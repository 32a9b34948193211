/// The GF(2^8) Reed-Solomon code the protection windows use, injected so the core stays free of
/// C libraries: the ISA-L `ErasureCoding` adapter implements it for the product; tests may use a
/// small pure-Swift reference. The code must be systematic and MDS with ISA-L's Cauchy generator
/// (`gf_gen_cauchy1_matrix`, field polynomial 0x11D): symbol i < k is source i, symbol k + r is
/// repair r = Σ_j g[k+r][j] · source j with g[i][j] = 1 / (i ⊕ j). Sender and receiver must agree
/// on it byte for byte (docs/protocol.md, "Reed-Solomon protection windows").
public protocol ReedSolomonMath {
    /// The m repair symbols of k sources, every symbol `symbolLength` bytes.
    func encode(sourceCount k: Int, repairCount m: Int, symbolLength: Int, sources: [[UInt8]]) throws -> [[UInt8]]

    /// The missing sources (index < k → bytes) from at least k received symbols (index → bytes;
    /// sources 0..<k, repairs k..<k+m). Implementations solve only for the missing sources and
    /// may cache the decode matrix per loss pattern.
    func reconstruct(sourceCount k: Int, repairCount m: Int, symbolLength: Int,
                     received: [Int: [UInt8]]) throws -> [Int: [UInt8]]
}
