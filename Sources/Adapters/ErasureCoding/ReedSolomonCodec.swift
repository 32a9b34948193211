import CGSISAL

/// Systematic Reed-Solomon erasure code over GF(2^8) for protection windows of k source symbols
/// and m repair symbols (ISA-L, Cauchy generator: every k of the k + m symbols recover the
/// window, i.e. the code is MDS).
///
/// Symbol indices: 0..<k are the sources, k..<k+m the repairs. A value type holding only the
/// generator matrix and ISA-L's expanded encode tables (built once), so it is Sendable and cheap
/// to share; per-loss-pattern decode tables live in `ReedSolomonDecoder`, which callers may cache.
public struct ReedSolomonCodec: Sendable, Equatable {
    public let sourceCount: Int
    public let repairCount: Int
    /// The (k + m) × k generator, row-major: identity on top, Cauchy rows 1/(i ⊕ j) below.
    public let generator: [UInt8]
    /// ec_init_tables expansion of the m repair rows (32 bytes per coefficient).
    let encodeTables: [UInt8]

    public var symbolCount: Int { sourceCount + repairCount }

    public init(sourceCount k: Int, repairCount m: Int) throws {
        guard k >= 1, m >= 1, k <= 255 - m else {
            throw ErasureCodingError("ReedSolomonCodec(k:m:)", .invalidParameters(sourceCount: k, repairCount: m))
        }
        var generator = [UInt8](repeating: 0, count: (k + m) * k)
        gf_gen_cauchy1_matrix(&generator, Int32(k + m), Int32(k))
        var tables = [UInt8](repeating: 0, count: 32 * k * m)
        generator.withUnsafeMutableBufferPointer { matrix in
            ec_init_tables(Int32(k), Int32(m), matrix.baseAddress! + k * k, &tables)
        }
        sourceCount = k
        repairCount = m
        self.generator = generator
        encodeTables = tables
    }

    /// The generator coefficient applied to source `source` in symbol `row`.
    public func coefficient(row: Int, source: Int) -> UInt8 { generator[row * sourceCount + source] }

    /// The m repair symbols of a window of k equal-length sources.
    public func encode(sources: [[UInt8]]) throws -> [[UInt8]] {
        guard sources.count == sourceCount else {
            throw ErasureCodingError("encode", .wrongSourceCount(expected: sourceCount, got: sources.count))
        }
        let length = try commonLength(sources.indices.map { ($0, sources[$0]) }, operation: "encode")
        return try withOutputBuffers(count: repairCount, length: length) { repairs in
            try withPinnedPointers(sources) { pointers in
                try encodeUnsafe(length: length, sources: pointers, repairs: repairs)
            }
        }
    }

    /// Zero-copy encode into caller-owned buffers: k source and m repair pointers of `length`
    /// bytes each. For the FEC hot path, which keeps packets in its own storage.
    public func encodeUnsafe(length: Int, sources: [UnsafeMutablePointer<UInt8>?],
                             repairs: [UnsafeMutablePointer<UInt8>?]) throws {
        guard sources.count == sourceCount else {
            throw ErasureCodingError("encodeUnsafe", .wrongSourceCount(expected: sourceCount, got: sources.count))
        }
        guard repairs.count == repairCount else {
            throw ErasureCodingError("encodeUnsafe", .wrongOutputCount(expected: repairCount, got: repairs.count))
        }
        guard length > 0 else { return }
        guard length <= Int(Int32.max) else {
            throw ErasureCodingError("encodeUnsafe", .lengthMismatch(index: 0, expected: Int(Int32.max), got: length))
        }
        var inputs = sources, outputs = repairs
        encodeTables.withUnsafeBufferPointer { tables in
            ec_encode_data(Int32(length), Int32(sourceCount), Int32(repairCount),
                           UnsafeMutablePointer(mutating: tables.baseAddress!), &inputs, &outputs)
        }
    }

    /// Recovers the missing sources of a window from the symbols that arrived (index → bytes, all
    /// `length` long). Returns only the sources that were missing; throws if fewer than k arrived.
    public func reconstruct(received: [Int: [UInt8]], length: Int) throws -> [Int: [UInt8]] {
        let missing = (0..<sourceCount).filter { received[$0] == nil }
        guard !missing.isEmpty else { return [:] }
        return try decoder(forReceived: received.keys).reconstruct(received: received, length: length)
    }

    /// Decode tables for one loss pattern: which symbols arrived. Reusable for every window with
    /// the same pattern (the matrix inversion is the expensive part).
    public func decoder(forReceived indices: some Sequence<Int>) throws -> ReedSolomonDecoder {
        try ReedSolomonDecoder(codec: self, received: indices)
    }

    /// The length shared by all `symbols`, or a lengthMismatch/indexOutOfRange error.
    func commonLength(_ symbols: [(Int, [UInt8])], operation: String, expected: Int? = nil) throws -> Int {
        let length = expected ?? symbols.first?.1.count ?? 0
        for (index, bytes) in symbols {
            guard (0..<symbolCount).contains(index) else {
                throw ErasureCodingError(operation, .indexOutOfRange(index: index, symbolCount: symbolCount))
            }
            guard bytes.count == length else {
                throw ErasureCodingError(operation, .lengthMismatch(index: index, expected: length, got: bytes.count))
            }
        }
        return length
    }
}

/// Runs `fill` with `count` zeroed buffers of `length` bytes and returns them as arrays.
func withOutputBuffers(count: Int, length: Int,
                       _ fill: ([UnsafeMutablePointer<UInt8>?]) throws -> Void) throws -> [[UInt8]] {
    guard count > 0 else { return [] }
    let block = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, count * length))
    defer { block.deallocate() }
    block.initialize(repeating: 0)
    try fill((0..<count).map { block.baseAddress! + $0 * length })
    return (0..<count).map { Array(block[($0 * length)..<(($0 + 1) * length)]) }
}
