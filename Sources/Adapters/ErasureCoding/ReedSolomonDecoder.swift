import CGSISAL

/// Recovery tables for one loss pattern of a `ReedSolomonCodec` window: the rows of the missing
/// sources only, from an e×e inversion (e = sources lost), not the full k×k one.
public struct ReedSolomonDecoder: Sendable, Equatable {
    public let codec: ReedSolomonCodec
    /// The k received symbol indices the decoder reads (sources first), ascending.
    public let survivors: [Int]
    /// The source indices it reconstructs, ascending.
    public let missing: [Int]
    /// ec_init_tables expansion of the missing sources' rows of the inverted matrix.
    let decodeTables: [UInt8]

    init(codec: ReedSolomonCodec, received: some Sequence<Int>) throws {
        let k = codec.sourceCount
        let arrived = Set(received)
        if let bad = arrived.first(where: { !(0..<codec.symbolCount).contains($0) }) {
            throw ErasureCodingError("decoder", .indexOutOfRange(index: bad, symbolCount: codec.symbolCount))
        }
        guard arrived.count >= k else {
            throw ErasureCodingError("decoder", .tooFewSymbols(received: arrived.count, needed: k))
        }
        let survivors = Array(arrived.sorted().prefix(k))
        let missing = (0..<k).filter { !arrived.contains($0) }
        var tables: [UInt8] = []
        if !missing.isEmpty {
            // Solve only for the e missing sources: with the k − e sources that arrived (P) and e
            // repairs (R), s_missing = G[R,missing]⁻¹ · (repairs + G[R,P] · s_P) over GF(2^8):
            // an e×e inversion instead of k×k, and e decode rows of k coefficients.
            let e = missing.count
            let repairs = survivors.filter { $0 >= k }
            let present = survivors.filter { $0 < k }
            var sub = [UInt8](repeating: 0, count: e * e)
            for (i, r) in repairs.enumerated() {
                for (j, l) in missing.enumerated() { sub[i * e + j] = codec.coefficient(row: r, source: l) }
            }
            var inverse = [UInt8](repeating: 0, count: e * e)
            let status = gf_invert_matrix(&sub, &inverse, Int32(e))
            guard status == 0 else {
                throw ErasureCodingError("gf_invert_matrix", .singularMatrix(rows: survivors), code: status)
            }
            // Survivor columns: the present sources (ascending), then the repairs (ascending).
            var decodeRows = [UInt8](repeating: 0, count: e * k)
            for i in 0..<e {
                for (c, p) in present.enumerated() {
                    var sum: UInt8 = 0
                    for t in 0..<e { sum ^= gf_mul(inverse[i * e + t], codec.coefficient(row: repairs[t], source: p)) }
                    decodeRows[i * k + c] = sum
                }
                for t in 0..<e { decodeRows[i * k + present.count + t] = inverse[i * e + t] }
            }
            tables = [UInt8](repeating: 0, count: 32 * k * e)
            ec_init_tables(Int32(k), Int32(e), &decodeRows, &tables)
        }
        self.codec = codec
        self.survivors = survivors
        self.missing = missing
        decodeTables = tables
    }

    /// The missing sources (index → bytes) from `received`, which must hold every survivor.
    public func reconstruct(received: [Int: [UInt8]], length: Int) throws -> [Int: [UInt8]] {
        guard !missing.isEmpty else { return [:] }
        var inputs: [[UInt8]] = []
        inputs.reserveCapacity(survivors.count)
        for index in survivors {
            guard let bytes = received[index] else {
                throw ErasureCodingError("reconstruct", .tooFewSymbols(received: received.count, needed: codec.sourceCount))
            }
            inputs.append(bytes)
        }
        _ = try codec.commonLength(Array(zip(survivors, inputs)), operation: "reconstruct", expected: length)
        let outputs = try withOutputBuffers(count: missing.count, length: length) { outputs in
            try withPinnedPointers(inputs) { pointers in
                try reconstructUnsafe(length: length, survivors: pointers, into: outputs)
            }
        }
        return Dictionary(uniqueKeysWithValues: zip(missing, outputs))
    }

    /// Zero-copy recovery: `survivors` are pointers to the symbols listed in `self.survivors`
    /// (same order), `outputs` receive the sources listed in `self.missing`; all `length` bytes.
    public func reconstructUnsafe(length: Int, survivors pointers: [UnsafeMutablePointer<UInt8>?],
                                  into outputs: [UnsafeMutablePointer<UInt8>?]) throws {
        guard pointers.count == survivors.count else {
            throw ErasureCodingError("reconstructUnsafe", .tooFewSymbols(received: pointers.count, needed: survivors.count))
        }
        guard outputs.count == missing.count else {
            throw ErasureCodingError("reconstructUnsafe", .wrongOutputCount(expected: missing.count, got: outputs.count))
        }
        guard length > 0, !missing.isEmpty else { return }
        guard length <= Int(Int32.max) else {
            throw ErasureCodingError("reconstructUnsafe", .lengthMismatch(index: 0, expected: Int(Int32.max), got: length))
        }
        var inputs = pointers, results = outputs
        decodeTables.withUnsafeBufferPointer { tables in
            ec_encode_data(Int32(length), Int32(codec.sourceCount), Int32(missing.count),
                           UnsafeMutablePointer(mutating: tables.baseAddress!), &inputs, &results)
        }
    }

    /// As above with caller-owned pointer tables (no array copies): `survivors` holds
    /// `self.survivors.count` pointers, `outputs` `self.missing.count`.
    public func reconstructUnsafe(length: Int, survivors pointers: UnsafePointer<UnsafeMutablePointer<UInt8>?>,
                                  into outputs: UnsafePointer<UnsafeMutablePointer<UInt8>?>) throws {
        guard length > 0, !missing.isEmpty else { return }
        guard length <= Int(Int32.max) else {
            throw ErasureCodingError("reconstructUnsafe", .lengthMismatch(index: 0, expected: Int(Int32.max), got: length))
        }
        decodeTables.withUnsafeBufferPointer { tables in
            ec_encode_data(Int32(length), Int32(codec.sourceCount), Int32(missing.count),
                           UnsafeMutablePointer(mutating: tables.baseAddress!), UnsafeMutablePointer(mutating: pointers),
                           UnsafeMutablePointer(mutating: outputs))
        }
    }
}
