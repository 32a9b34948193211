import CGSISAL

/// Recovery tables for one loss pattern of a `ReedSolomonCodec` window: the inverse of the
/// generator rows of k received symbols, reduced to the rows of the missing sources.
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
            var rows = [UInt8](repeating: 0, count: k * k)
            for (r, index) in survivors.enumerated() {
                for c in 0..<k { rows[r * k + c] = codec.coefficient(row: index, source: c) }
            }
            var inverse = [UInt8](repeating: 0, count: k * k)
            let status = gf_invert_matrix(&rows, &inverse, Int32(k))
            guard status == 0 else {
                throw ErasureCodingError("gf_invert_matrix", .singularMatrix(rows: survivors), code: status)
            }
            // Source s = row s of the inverse applied to the survivors.
            var decodeRows = [UInt8]()
            decodeRows.reserveCapacity(missing.count * k)
            for s in missing { decodeRows += inverse[(s * k)..<((s + 1) * k)] }
            tables = [UInt8](repeating: 0, count: 32 * k * missing.count)
            ec_init_tables(Int32(k), Int32(missing.count), &decodeRows, &tables)
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
}
