import CGSISAL
import Synchronization
import GrandstandCore
#if canImport(Glibc)
import Glibc
#endif

/// The product's GF(2^8) math for Reed-Solomon protection windows: the core's `ReedSolomonMath`
/// over ISA-L (Cauchy generator, SIMD multiply-accumulate). Codecs are built once per (k, m) and
/// decode tables once per loss pattern (which k symbols survived), then reused: a stream with a
/// recurring loss pattern pays for one matrix inversion. The caches sit behind a mutex, so one
/// instance may be shared, though one per channel avoids contention.
public final class ISALReedSolomonMath: ReedSolomonMath, Sendable {
    struct Shape: Hashable {
        var k: Int
        var m: Int
    }

    /// Which k symbols survived, as a 256-bit set (k + m ≤ 255), with the window shape.
    struct Pattern: Hashable {
        var shape: Shape
        var bits: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

        init(shape: Shape, survivors: [Int]) {
            self.shape = shape
            for i in survivors {
                switch i >> 6 {
                case 0: bits.0 |= 1 << UInt64(i & 63)
                case 1: bits.1 |= 1 << UInt64(i & 63)
                case 2: bits.2 |= 1 << UInt64(i & 63)
                default: bits.3 |= 1 << UInt64(i & 63)
                }
            }
        }

        static func == (a: Pattern, b: Pattern) -> Bool { a.shape == b.shape && a.bits == b.bits }
        func hash(into hasher: inout Hasher) {
            hasher.combine(shape)
            hasher.combine(bits.0)
            hasher.combine(bits.1)
            hasher.combine(bits.2)
            hasher.combine(bits.3)
        }
    }

    /// A cached decoder behind one reference: the hot path hands it out with one retain instead
    /// of copying the struct (a codec and three arrays: four retains and releases).
    /// Its survivors, missing count and a C copy of its tables are the hot path's: it reads them
    /// through the reference (no struct copy, no array retained per rebuild).
    final class Entry: @unchecked Sendable {
        // @unchecked: `tables` is a raw pointer (ISA-L's C copy of the decode tables, which
        // ec_encode_data reads in place), so the compiler cannot see what it points to. It is
        // written once in init, only read after, and freed in deinit when no thread holds it.
        let decoder: ReedSolomonDecoder
        let survivors: [Int]
        let sourceCount: Int32
        let missingCount: Int
        let tables: UnsafeMutablePointer<UInt8>

        init(_ decoder: ReedSolomonDecoder) {
            self.decoder = decoder
            survivors = decoder.survivors
            sourceCount = Int32(decoder.codec.sourceCount)
            missingCount = decoder.missing.count
            tables = .allocate(capacity: max(1, decoder.decodeTables.count))
            decoder.decodeTables.withUnsafeBufferPointer { bytes in
                if let from = bytes.baseAddress { tables.initialize(from: from, count: bytes.count) }
            }
        }

        deinit { tables.deallocate() }

        func matches(_ indices: [Int]) -> Bool { survivors == indices }
    }

    /// Loss patterns kept; the cache is emptied when it would grow beyond this.
    public let maxCachedPatterns: Int

    private struct Caches {
        var codecs: [Shape: ReedSolomonCodec] = [:]
        var decoders: [Pattern: Entry] = [:]
        /// The last pattern answered (kept apart: no optional tuple copied per lookup).
        var lastPattern: Pattern? = nil
        var lastEntry: Entry? = nil
        var hits = 0
        var misses = 0

        mutating func codec(sourceCount k: Int, repairCount m: Int) throws -> ReedSolomonCodec {
            let shape = Shape(k: k, m: m)
            if let codec = codecs[shape] { return codec }
            let codec = try ReedSolomonCodec(sourceCount: k, repairCount: m)
            if codecs.count >= 64 { codecs.removeAll() }
            codecs[shape] = codec
            return codec
        }

        mutating func decoder(sourceCount k: Int, repairCount m: Int, survivors: [Int], limit: Int) throws -> Entry {
            let pattern = Pattern(shape: Shape(k: k, m: m), survivors: survivors)
            // A stream repeats its loss pattern: the last one answers without hashing.
            if lastPattern == pattern, let entry = lastEntry {
                hits += 1
                return entry
            }
            let entry = try lookUp(pattern, survivors: survivors, limit: limit)
            lastPattern = pattern
            lastEntry = entry
            return entry
        }

        private mutating func lookUp(_ pattern: Pattern, survivors: [Int], limit: Int) throws -> Entry {
            let k = pattern.shape.k, m = pattern.shape.m
            if let entry = decoders[pattern] {
                hits += 1
                return entry
            }
            misses += 1
            let entry = Entry(try codec(sourceCount: k, repairCount: m).decoder(forReceived: survivors))
            if decoders.count >= limit { decoders.removeAll() }
            decoders[pattern] = entry
            return entry
        }
    }
    private let caches = Mutex(Caches())

    public init(maxCachedPatterns: Int = 512) {
        self.maxCachedPatterns = maxCachedPatterns
    }

    public var decodeCacheHits: Int { caches.withLock { $0.hits } }
    public var decodeCacheMisses: Int { caches.withLock { $0.misses } }

    /// The codec for k sources and m repairs, built on first use.
    public func codec(sourceCount k: Int, repairCount m: Int) throws -> ReedSolomonCodec {
        try caches.withLock { try $0.codec(sourceCount: k, repairCount: m) }
    }

    /// The decode tables for the survivors `received` (the lowest k indices are used), cached.
    public func decoder(sourceCount k: Int, repairCount m: Int, received: some Sequence<Int>) throws -> ReedSolomonDecoder {
        let survivors = Self.lowest(k, of: received)
        return try caches.withLock { [maxCachedPatterns] in
            try $0.decoder(sourceCount: k, repairCount: m, survivors: survivors, limit: maxCachedPatterns).decoder
        }
    }

    /// The decoder's hot path: `indices` are the survivors, usually already the k ascending ones
    /// (no copy, no set); the entry's survivors then equal `indices` (the same k-element set).
    private func decoderEntry(sourceCount k: Int, repairCount m: Int, indices: [Int]) throws -> Entry {
        let survivors = indices.count == k && Self.isAscending(indices) ? indices : Self.lowest(k, of: indices)
        return try caches.withLock { [maxCachedPatterns] in
            try $0.decoder(sourceCount: k, repairCount: m, survivors: survivors, limit: maxCachedPatterns)
        }
    }

    /// The k lowest distinct indices (already the case for the decoder's ascending lists).
    static func lowest(_ k: Int, of received: some Sequence<Int>) -> [Int] {
        let list = Array(received)
        if list.count == k, isAscending(list) { return list }
        return Array(Set(list).sorted().prefix(k))
    }

    static func isAscending(_ list: [Int]) -> Bool {
        var i = 1
        while i < list.count {
            if list[i - 1] >= list[i] { return false }
            i += 1
        }
        return true
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

    /// The hot path: ISA-L reads the survivors in place and writes the rebuilt sources in place.
    public func reconstruct(sourceCount k: Int, repairCount m: Int, symbolLength: Int, indices: [Int],
                            symbols: UnsafeBufferPointer<UInt8>, output: UnsafeMutableBufferPointer<UInt8>) throws {
        let decoder = try decoderEntry(sourceCount: k, repairCount: m, indices: indices).decoder
        guard indices == decoder.survivors, symbols.count >= k * symbolLength,
              output.count >= decoder.missing.count * symbolLength, let input = symbols.baseAddress else {
            throw ErasureCodingError("reconstruct", .wrongOutputCount(expected: decoder.missing.count, got: output.count / max(1, symbolLength)))
        }
        guard let out = output.baseAddress, !decoder.missing.isEmpty else { return }
        let inputs = (0..<k).map { Optional(UnsafeMutablePointer(mutating: input + $0 * symbolLength)) }
        let outputs = (0..<decoder.missing.count).map { Optional(out + $0 * symbolLength) }
        try decoder.reconstructUnsafe(length: symbolLength, survivors: inputs, into: outputs)
    }

    /// The pointer path: one decode-table lookup, then ISA-L on each column range where it lies.
    public func reconstruct(sourceCount k: Int, repairCount m: Int, indices: [Int], columns: [Int],
                            inputs: UnsafeBufferPointer<UnsafeMutablePointer<UInt8>?>,
                            outputs: UnsafeBufferPointer<UnsafeMutablePointer<UInt8>?>) throws {
        let entry = try decoderEntry(sourceCount: k, repairCount: m, indices: indices)
        let e = entry.missingCount
        guard entry.matches(indices), inputs.count >= columns.count * k, outputs.count >= columns.count * e,
              let input = inputs.baseAddress, let output = outputs.baseAddress else {
            throw ErasureCodingError("reconstruct", .wrongOutputCount(expected: columns.count * e, got: outputs.count))
        }
        guard e > 0 else { return }
        for (range, length) in columns.enumerated() where length > 0 {
            guard length <= Int(Int32.max) else {
                throw ErasureCodingError("reconstruct", .lengthMismatch(index: range, expected: Int(Int32.max), got: length))
            }
            ec_encode_data(Int32(length), entry.sourceCount, Int32(e), entry.tables,
                           UnsafeMutablePointer(mutating: input + range * k), UnsafeMutablePointer(mutating: output + range * e))
        }
    }

    /// CRC-32C with ISA-L's crc32_iscsi (SSE4.2 / ARMv8 CRC instructions where available).
    public func crc32c(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return 0 }
        return ~crc32_iscsi(UnsafeMutablePointer(mutating: base), Int32(clamping: bytes.count), 0xFFFF_FFFF)
    }

    /// Software prefetch (CGSISAL's `gs_prefetch_*`): the decoder hides cache misses with it.
    public func prefetch(_ address: UInt, count: Int, forWriting: Bool) {
        guard let pointer = UnsafeRawPointer(bitPattern: address) else { return }
        if forWriting { gs_prefetch_write(pointer) } else { gs_prefetch_range(pointer, count) }
    }
}
