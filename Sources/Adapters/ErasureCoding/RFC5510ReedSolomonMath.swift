import CGSISAL
import Synchronization
import GrandstandCore
#if canImport(Glibc)
import Glibc
#endif

extension ReedSolomonCodec {
    /// A codec over a caller-given systematic generator ((k + m) × k, row-major, identity on
    /// top), e.g. RFC 5510's Vandermonde construction for FLUTE's FEC Encoding ID 5. ISA-L's
    /// ec_init_tables expands its repair rows; `ReedSolomonDecoder` inverts whatever rows arrive.
    public init(sourceCount k: Int, repairCount m: Int, generator: [UInt8]) throws {
        guard k >= 1, m >= 1, k <= 255 - m else {
            throw ErasureCodingError("ReedSolomonCodec(k:m:generator:)", .invalidParameters(sourceCount: k, repairCount: m))
        }
        guard generator.count == (k + m) * k else {
            throw ErasureCodingError("ReedSolomonCodec(k:m:generator:)", .lengthMismatch(index: 0, expected: (k + m) * k, got: generator.count))
        }
        var repairRows = Array(generator[(k * k)...])
        var tables = [UInt8](repeating: 0, count: 32 * k * m)
        ec_init_tables(Int32(k), Int32(m), &repairRows, &tables)
        sourceCount = k
        repairCount = m
        self.generator = generator
        encodeTables = tables
    }
}

/// FLUTE's Reed-Solomon (FEC Encoding ID 5): the core's `ReedSolomonMath` with RFC 5510's
/// generator (`RFC5510Generator`) over ISA-L's table-driven multiply. Codecs are cached per
/// (k, m) and decoders per loss pattern behind a mutex. File blocks are not a hot path, so the
/// caches are small.
public final class RFC5510ReedSolomonMath: ReedSolomonMath, Sendable {
    private struct Shape: Hashable {
        var k: Int
        var m: Int
    }

    private struct Pattern: Hashable {
        var shape: Shape
        var survivors: [Int]
    }

    private struct Caches {
        var codecs: [Shape: ReedSolomonCodec] = [:]
        var decoders: [Pattern: ReedSolomonDecoder] = [:]

        mutating func codec(_ shape: Shape) throws -> ReedSolomonCodec {
            if let codec = codecs[shape] { return codec }
            guard let generator = RFC5510Generator.matrix(sourceCount: shape.k, repairCount: shape.m) else {
                throw ErasureCodingError("RFC5510Generator.matrix", .invalidParameters(sourceCount: shape.k, repairCount: shape.m))
            }
            let codec = try ReedSolomonCodec(sourceCount: shape.k, repairCount: shape.m, generator: generator)
            if codecs.count >= 32 { codecs.removeAll() }
            codecs[shape] = codec
            return codec
        }
    }
    private let caches = Mutex(Caches())

    public init() {}

    /// The RFC 5510 codec for k sources and m repairs, built on first use.
    public func codec(sourceCount k: Int, repairCount m: Int) throws -> ReedSolomonCodec {
        try caches.withLock { try $0.codec(Shape(k: k, m: m)) }
    }

    public func encode(sourceCount k: Int, repairCount m: Int, symbolLength: Int, sources: [[UInt8]]) throws -> [[UInt8]] {
        if let bad = sources.firstIndex(where: { $0.count != symbolLength }) {
            throw ErasureCodingError("encode", .lengthMismatch(index: bad, expected: symbolLength, got: sources[bad].count))
        }
        return try codec(sourceCount: k, repairCount: m).encode(sources: sources)
    }

    public func reconstruct(sourceCount k: Int, repairCount m: Int, symbolLength: Int,
                            received: [Int: [UInt8]]) throws -> [Int: [UInt8]] {
        let survivors = Array(Set(received.keys).sorted().prefix(k))
        let decoder = try caches.withLock { caches throws -> ReedSolomonDecoder in
            let pattern = Pattern(shape: Shape(k: k, m: m), survivors: survivors)
            if let decoder = caches.decoders[pattern] { return decoder }
            let decoder = try caches.codec(pattern.shape).decoder(forReceived: survivors)
            if caches.decoders.count >= 64 { caches.decoders.removeAll() }
            caches.decoders[pattern] = decoder
            return decoder
        }
        return try decoder.reconstruct(received: received, length: symbolLength)
    }
}
