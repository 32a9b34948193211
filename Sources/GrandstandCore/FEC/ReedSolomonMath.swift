/// The GF(2^8) Reed-Solomon code the protection windows use, injected so the core stays free of
/// C libraries: the ISA-L `ErasureCoding` adapter implements it for the product; tests may use a
/// small pure-Swift reference. The code must be systematic and MDS with ISA-L's Cauchy generator
/// (`gf_gen_cauchy1_matrix`, field polynomial 0x11D): symbol i < k is source i, symbol k + r is
/// repair r = Σ_j g[k+r][j] · source j with g[i][j] = 1 / (i ⊕ j). Sender and receiver must agree
/// on it byte for byte (docs/protocol.md, "Reed-Solomon protection windows"). Sendable so
/// decoders can live in the pipeline's Sendable recovery stages; implementations that cache
/// must synchronise.
public protocol ReedSolomonMath: Sendable {
    /// The m repair symbols of k sources, every symbol `symbolLength` bytes.
    func encode(sourceCount k: Int, repairCount m: Int, symbolLength: Int, sources: [[UInt8]]) throws -> [[UInt8]]

    /// The missing sources (index < k → bytes) from at least k received symbols (index → bytes;
    /// sources 0..<k, repairs k..<k+m). Implementations solve only for the missing sources and
    /// may cache the decode matrix per loss pattern.
    func reconstruct(sourceCount k: Int, repairCount m: Int, symbolLength: Int,
                     received: [Int: [UInt8]]) throws -> [Int: [UInt8]]

    /// See the extension: the flat form the decoder uses (implementations may override it).
    func reconstruct(sourceCount k: Int, repairCount m: Int, symbolLength: Int, indices: [Int],
                     symbols: UnsafeBufferPointer<UInt8>, output: UnsafeMutableBufferPointer<UInt8>) throws

    /// See the extension: the pointer form the decoder uses (survivors read where they lie).
    func reconstruct(sourceCount k: Int, repairCount m: Int, indices: [Int], columns: [Int],
                     inputs: UnsafeBufferPointer<UnsafeMutablePointer<UInt8>?>,
                     outputs: UnsafeBufferPointer<UnsafeMutablePointer<UInt8>?>) throws

    /// CRC-32C of `bytes` (implementations may use a hardware CRC).
    func crc32c(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32

    /// Hints (software prefetch; default: nothing) that `count` bytes at `address` will be read
    /// soon, or with `forWriting` that the object header at `address` will be written (released).
    /// Never dereferences: any address is allowed.
    func prefetch(_ address: UInt, count: Int, forWriting: Bool)
}

extension ReedSolomonMath {
    /// Flat variant for the decoder's hot path: `symbols` holds the k symbols listed in `indices`
    /// (ascending; `symbolLength` bytes each, back to back); `output` receives the missing sources
    /// (ascending) back to back. The default goes through the dictionary form.
    public func reconstruct(sourceCount k: Int, repairCount m: Int, symbolLength: Int, indices: [Int],
                            symbols: UnsafeBufferPointer<UInt8>, output: UnsafeMutableBufferPointer<UInt8>) throws {
        var received: [Int: [UInt8]] = [:]
        for (slot, index) in indices.enumerated() {
            received[index] = Array(symbols[(slot * symbolLength)..<((slot + 1) * symbolLength)])
        }
        let rebuilt = try reconstruct(sourceCount: k, repairCount: m, symbolLength: symbolLength, received: received)
        for (slot, index) in rebuilt.keys.sorted().enumerated() {
            guard let bytes = rebuilt[index], (slot + 1) * symbolLength <= output.count else { continue }
            for i in 0..<symbolLength { output[slot * symbolLength + i] = bytes[i] }
        }
    }

    /// Pointer form for the decoder's rebuild: the k survivors listed in `indices`
    /// (ascending) read where they lie, in column ranges (the code works column by column).
    /// Range r has `columns[r]` bytes; `inputs[r * k + i]` points at survivor i's first byte of
    /// the range and `outputs[r * e + j]` at missing source j's (e = k − sources in `indices`,
    /// ascending). One decode-table lookup serves every range. The default gathers each range
    /// into a flat buffer and goes through the flat form.
    public func reconstruct(sourceCount k: Int, repairCount m: Int, indices: [Int], columns: [Int],
                            inputs: UnsafeBufferPointer<UnsafeMutablePointer<UInt8>?>,
                            outputs: UnsafeBufferPointer<UnsafeMutablePointer<UInt8>?>) throws {
        let e = k - indices.lazy.filter { $0 < k }.count
        for (range, length) in columns.enumerated() where length > 0 {
            var flat = [UInt8](repeating: 0, count: k * length)
            var rebuilt = [UInt8](repeating: 0, count: e * length)
            for i in 0..<k {
                guard let source = inputs[range * k + i] else { continue }
                for c in 0..<length { flat[i * length + c] = source[c] }
            }
            try flat.withUnsafeBufferPointer { symbols in
                try rebuilt.withUnsafeMutableBufferPointer { output in
                    try reconstruct(sourceCount: k, repairCount: m, symbolLength: length, indices: indices,
                                    symbols: symbols, output: output)
                }
            }
            for j in 0..<e {
                guard let target = outputs[range * e + j] else { continue }
                for c in 0..<length { target[c] = rebuilt[j * length + c] }
            }
        }
    }

    /// CRC-32C (Castagnoli) of `bytes`, for the repair-symbol check. Default: table-driven Swift.
    public func crc32c(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 { CRC32C.checksum(bytes) }

    /// No prefetch (the core has no access to the instruction).
    public func prefetch(_ address: UInt, count: Int, forWriting: Bool) {}
}
