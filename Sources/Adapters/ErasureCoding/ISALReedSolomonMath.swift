import GrandstandCore

/// The product's GF(2^8) math for Reed-Solomon protection windows: the core's `ReedSolomonMath`
/// over ISA-L (Cauchy generator, SIMD multiply-accumulate). Codecs are built once per (k, m) and
/// decode tables once per loss pattern (which k symbols survived), then reused: a stream with a
/// recurring loss pattern pays for one matrix inversion. One instance per decoder or encoder
/// (not thread-safe: the caches are unsynchronised).
public final class ISALReedSolomonMath: ReedSolomonMath {
    struct Shape: Hashable {
        var k: Int
        var m: Int
    }

    struct Pattern: Hashable {
        var shape: Shape
        var survivors: [Int]
    }

    /// Loss patterns kept; the cache is emptied when it would grow beyond this.
    public let maxCachedPatterns: Int
    private var codecs: [Shape: ReedSolomonCodec] = [:]
    private var decoders: [Pattern: ReedSolomonDecoder] = [:]
    public private(set) var decodeCacheHits = 0
    public private(set) var decodeCacheMisses = 0

    public init(maxCachedPatterns: Int = 512) {
        self.maxCachedPatterns = maxCachedPatterns
    }

    /// The codec for k sources and m repairs, built on first use.
    public func codec(sourceCount k: Int, repairCount m: Int) throws -> ReedSolomonCodec {
        let shape = Shape(k: k, m: m)
        if let codec = codecs[shape] { return codec }
        let codec = try ReedSolomonCodec(sourceCount: k, repairCount: m)
        if codecs.count >= 64 { codecs.removeAll() }
        codecs[shape] = codec
        return codec
    }

    /// The decode tables for the survivors `received` (the lowest k indices are used), cached.
    public func decoder(sourceCount k: Int, repairCount m: Int, received: some Sequence<Int>) throws -> ReedSolomonDecoder {
        let survivors = Array(Set(received).sorted().prefix(k))
        let pattern = Pattern(shape: Shape(k: k, m: m), survivors: survivors)
        if let decoder = decoders[pattern] {
            decodeCacheHits += 1
            return decoder
        }
        decodeCacheMisses += 1
        let decoder = try codec(sourceCount: k, repairCount: m).decoder(forReceived: survivors)
        if decoders.count >= maxCachedPatterns { decoders.removeAll() }
        decoders[pattern] = decoder
        return decoder
    }

    public func encode(sourceCount k: Int, repairCount m: Int, symbolLength: Int, sources: [[UInt8]]) throws -> [[UInt8]] {
        let codec = try codec(sourceCount: k, repairCount: m)
        if let bad = sources.firstIndex(where: { $0.count != symbolLength }) {
            throw ErasureCodingError("encode", .lengthMismatch(index: bad, expected: symbolLength, got: sources[bad].count))
        }
        return try codec.encode(sources: sources)
    }

    public func reconstruct(sourceCount k: Int, repairCount m: Int, symbolLength: Int,
                            received: [Int: [UInt8]]) throws -> [Int: [UInt8]] {
        let decoder = try decoder(sourceCount: k, repairCount: m, received: received.keys)
        return try decoder.reconstruct(received: received, length: symbolLength)
    }
}
