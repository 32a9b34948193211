/// A small pure-Swift decompressor for zlib streams (RFC 1950) carrying DEFLATE data
/// (RFC 1951), so compressed SAP payloads (RFC 2974 §3, C bit) are handled in the core and a
/// replay needs no C library. Decodes bit by bit in the manner of zlib's `puff.c`: slow but
/// simple, which suits announcements of a few hundred bytes. Output is bounded by `limit`.
public enum Inflate {
    public enum Failure: Error, Equatable, Sendable {
        case truncated
        case badZlibHeader
        case presetDictionary
        case invalidBlockType
        case storedLengthMismatch
        case invalidCodeLengths
        case invalidSymbol
        case distanceTooFar
        case outputLimit
        case checksumMismatch
    }

    /// Inflates a zlib stream (2-byte header, DEFLATE data, Adler-32 of the output).
    public static func zlib(_ data: ArraySlice<UInt8>, limit: Int = 1 << 20) throws(Failure) -> [UInt8] {
        guard let cmf = data.octet(at: 0), let flg = data.octet(at: 1) else { throw .truncated }
        // RFC 1950 §2.2: CM = 8 (deflate), CINFO ≤ 7, FCHECK makes CMF·256 + FLG a multiple of 31.
        guard cmf & 0x0F == 8, cmf >> 4 <= 7, (UInt16(cmf) << 8 | UInt16(flg)) % 31 == 0 else { throw .badZlibHeader }
        guard flg & 0x20 == 0 else { throw .presetDictionary }
        var reader = BitReader(data.dropFirst(2))
        let output = try inflate(&reader, limit: limit)
        reader.alignToByte()
        guard let expected = reader.bytes.be32(at: reader.byteOffset) else { throw .truncated }
        guard adler32(output) == expected else { throw .checksumMismatch }
        return output
    }

    /// Inflates raw DEFLATE data (RFC 1951) with no wrapper.
    public static func raw(_ data: ArraySlice<UInt8>, limit: Int = 1 << 20) throws(Failure) -> [UInt8] {
        var reader = BitReader(data)
        return try inflate(&reader, limit: limit)
    }

    /// RFC 1950 §8.2.
    public static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }

    /// RFC 1951 §3.2.3: blocks until one has BFINAL set.
    static func inflate(_ reader: inout BitReader, limit: Int) throws(Failure) -> [UInt8] {
        var output: [UInt8] = []
        var final = false
        while !final {
            final = try reader.bits(1) == 1
            switch try reader.bits(2) {
            case 0: try stored(&reader, &output, limit: limit)
            case 1: try codes(&reader, &output, Huffman.fixedLiterals, Huffman.fixedDistances, limit: limit)
            case 2:
                let (literals, distances) = try dynamicTables(&reader)
                try codes(&reader, &output, literals, distances, limit: limit)
            default: throw .invalidBlockType
            }
        }
        return output
    }

    /// §3.2.4: byte-aligned LEN, NLEN (its complement), then LEN literal bytes.
    static func stored(_ reader: inout BitReader, _ output: inout [UInt8], limit: Int) throws(Failure) {
        reader.alignToByte()
        guard let len = reader.bytes.octet(at: reader.byteOffset).map(UInt16.init),
              let len2 = reader.bytes.octet(at: reader.byteOffset + 1).map(UInt16.init),
              let nlen1 = reader.bytes.octet(at: reader.byteOffset + 2).map(UInt16.init),
              let nlen2 = reader.bytes.octet(at: reader.byteOffset + 3).map(UInt16.init) else { throw .truncated }
        let length = len | len2 << 8
        guard length == ~(nlen1 | nlen2 << 8) else { throw .storedLengthMismatch }
        guard let block = reader.bytes.bytes(at: reader.byteOffset + 4, length: Int(length)) else { throw .truncated }
        guard output.count + block.count <= limit else { throw .outputLimit }
        output.append(contentsOf: block)
        reader.byteOffset += 4 + Int(length)
    }

    static let lengthBase: [Int] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99,
                                    115, 131, 163, 195, 227, 258]
    static let lengthExtra: [Int] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    static let distanceBase: [Int] = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025,
                                      1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
    static let distanceExtra: [Int] = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11,
                                       12, 12, 13, 13]

    /// §3.2.5: literal/length symbols until end-of-block (256), with back-references.
    static func codes(_ reader: inout BitReader, _ output: inout [UInt8], _ literals: Huffman, _ distances: Huffman,
                      limit: Int) throws(Failure) {
        while true {
            let symbol = try literals.decode(&reader)
            if symbol < 256 {
                guard output.count < limit else { throw .outputLimit }
                output.append(UInt8(symbol))
                continue
            }
            if symbol == 256 { return }
            let index = symbol - 257
            guard index < lengthBase.count else { throw .invalidSymbol }
            let length = lengthBase[index] + Int(try reader.bits(lengthExtra[index]))
            let distanceSymbol = try distances.decode(&reader)
            guard distanceSymbol < distanceBase.count else { throw .invalidSymbol }
            let distance = distanceBase[distanceSymbol] + Int(try reader.bits(distanceExtra[distanceSymbol]))
            guard distance <= output.count else { throw .distanceTooFar }
            guard output.count + length <= limit else { throw .outputLimit }
            let start = output.count - distance
            for i in 0..<length { output.append(output[start + i]) }
        }
    }

    static let codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    /// §3.2.7: the code-length code, then run-length-coded literal and distance code lengths.
    static func dynamicTables(_ reader: inout BitReader) throws(Failure) -> (Huffman, Huffman) {
        let literalCount = Int(try reader.bits(5)) + 257
        let distanceCount = Int(try reader.bits(5)) + 1
        let codeLengthCount = Int(try reader.bits(4)) + 4
        guard literalCount <= 286, distanceCount <= 30 else { throw .invalidCodeLengths }
        var codeLengthLengths = [Int](repeating: 0, count: 19)
        for i in 0..<codeLengthCount { codeLengthLengths[codeLengthOrder[i]] = Int(try reader.bits(3)) }
        let codeLengthCode = try Huffman(lengths: codeLengthLengths)
        var lengths: [Int] = []
        lengths.reserveCapacity(literalCount + distanceCount)
        while lengths.count < literalCount + distanceCount {
            let symbol = try codeLengthCode.decode(&reader)
            var repeated = 0, count = 0
            switch symbol {
            case 0...15: lengths.append(symbol); continue
            case 16:
                guard let previous = lengths.last else { throw .invalidCodeLengths }
                repeated = previous; count = 3 + Int(try reader.bits(2))
            case 17: count = 3 + Int(try reader.bits(3))
            default: count = 11 + Int(try reader.bits(7))
            }
            guard lengths.count + count <= literalCount + distanceCount else { throw .invalidCodeLengths }
            lengths.append(contentsOf: repeatElement(repeated, count: count))
        }
        guard lengths[256] > 0 else { throw .invalidCodeLengths }
        return (try Huffman(lengths: Array(lengths[..<literalCount])), try Huffman(lengths: Array(lengths[literalCount...])))
    }
}

/// Least-significant-bit-first reader over DEFLATE data (RFC 1951 §3.1.1).
struct BitReader {
    let bytes: ArraySlice<UInt8>
    var byteOffset = 0
    private var bitBuffer: UInt32 = 0
    private var bitCount = 0

    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    mutating func bits(_ count: Int) throws(Inflate.Failure) -> UInt32 {
        while bitCount < count {
            guard let byte = bytes.octet(at: byteOffset) else { throw .truncated }
            bitBuffer |= UInt32(byte) << UInt32(bitCount)
            byteOffset += 1
            bitCount += 8
        }
        let value = bitBuffer & ((1 << UInt32(count)) - 1)
        bitBuffer >>= UInt32(count)
        bitCount -= count
        return value
    }

    /// Drops the rest of the current byte (stored blocks and the zlib trailer are byte-aligned).
    mutating func alignToByte() {
        bitBuffer = 0
        bitCount = 0
    }
}

/// A canonical Huffman code (RFC 1951 §3.2.2) as counts per length and symbols in code order.
struct Huffman {
    static let maxBits = 15
    private var counts = [Int](repeating: 0, count: Huffman.maxBits + 1)
    private var symbols: [Int] = []

    init(lengths: [Int]) throws(Inflate.Failure) {
        for length in lengths {
            guard length <= Huffman.maxBits else { throw .invalidCodeLengths }
            counts[length] += 1
        }
        counts[0] = 0
        var left = 1
        for bits in 1...Huffman.maxBits {
            left = left * 2 - counts[bits]
            guard left >= 0 else { throw .invalidCodeLengths }   // over-subscribed
        }
        var offsets = [Int](repeating: 0, count: Huffman.maxBits + 2)
        for bits in 1...Huffman.maxBits { offsets[bits + 1] = offsets[bits] + counts[bits] }
        symbols = [Int](repeating: 0, count: lengths.count)
        for (symbol, length) in lengths.enumerated() where length > 0 {
            symbols[offsets[length]] = symbol
            offsets[length] += 1
        }
    }

    func decode(_ reader: inout BitReader) throws(Inflate.Failure) -> Int {
        var code = 0, first = 0, index = 0
        for bits in 1...Huffman.maxBits {
            code |= Int(try reader.bits(1))
            let count = counts[bits]
            if code - first < count { return symbols[index + code - first] }
            index += count
            first = (first + count) << 1
            code <<= 1
        }
        throw .invalidSymbol   // an incomplete code's unused bit pattern
    }

    static let fixedLiterals: Huffman = {
        var lengths = [Int](repeating: 8, count: 288)
        for i in 144..<256 { lengths[i] = 9 }
        for i in 256..<280 { lengths[i] = 7 }
        return (try? Huffman(lengths: lengths)) ?? Huffman.empty
    }()

    static let fixedDistances: Huffman = (try? Huffman(lengths: [Int](repeating: 5, count: 30))) ?? Huffman.empty

    private init() {}
    private static let empty = Huffman()
}
