/// A small zlib (RFC 1950) / DEFLATE (RFC 1951) compressor for SAP payloads: greedy LZ77 over a
/// 4 KiB window with a hash of 3-byte prefixes, coded with the fixed Huffman tables (§3.2.6).
/// SDP text shrinks by a third or so; `Inflate` is the other half and the tests' oracle.
public enum Deflate {
    public static func zlib(_ input: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]   // CM 8, 32 KiB window, FLEVEL 0; (0x7801 % 31 == 0)
        var bits = BitWriter()
        bits.write(1, count: 1)           // BFINAL
        bits.write(1, count: 2)           // BTYPE 01: fixed Huffman
        let window = 4096, maxLength = 258
        var head = [Int](repeating: -1, count: 1 << 12)
        var previous = [Int](repeating: -1, count: input.count)
        func hash(_ i: Int) -> Int {
            (Int(input[i]) << 4 ^ Int(input[i + 1]) << 2 ^ Int(input[i + 2]) &* 7) & 0xFFF
        }
        func insert(_ i: Int) {
            guard i + 2 < input.count else { return }
            let h = hash(i)
            previous[i] = head[h]
            head[h] = i
        }
        var i = 0
        while i < input.count {
            var bestLength = 0, bestDistance = 0
            if i + 2 < input.count {
                var candidate = head[hash(i)]
                var chain = 32
                while candidate >= 0, i - candidate <= window, chain > 0 {
                    var length = 0
                    while length < maxLength, i + length < input.count, input[candidate + length] == input[i + length] { length += 1 }
                    if length > bestLength { bestLength = length; bestDistance = i - candidate }
                    candidate = previous[candidate]
                    chain -= 1
                }
            }
            if bestLength >= 3 {
                bits.writeLength(bestLength)
                bits.writeDistance(bestDistance)
                for k in 0..<bestLength { insert(i + k) }
                i += bestLength
            } else {
                bits.writeLiteral(Int(input[i]))
                insert(i)
                i += 1
            }
        }
        bits.writeLiteral(256)            // end of block
        out += bits.finish()
        let adler = adler32(input)
        for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: adler >> UInt32(shift))) }
        return out
    }

    public static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }

    /// LSB-first bit packing; Huffman codes are written most significant bit first (§3.1.1).
    struct BitWriter {
        var bytes: [UInt8] = []
        var buffer: UInt32 = 0
        var used = 0

        mutating func write(_ value: Int, count: Int) {
            buffer |= UInt32(value) << UInt32(used)
            used += count
            while used >= 8 {
                bytes.append(UInt8(truncatingIfNeeded: buffer))
                buffer >>= 8
                used -= 8
            }
        }

        mutating func writeCode(_ code: Int, length: Int) {
            var reversed = 0
            for k in 0..<length where code & (1 << k) != 0 { reversed |= 1 << (length - 1 - k) }
            write(reversed, count: length)
        }

        /// Fixed literal/length code (§3.2.6).
        mutating func writeLiteral(_ symbol: Int) {
            switch symbol {
            case 0...143: writeCode(0x30 + symbol, length: 8)
            case 144...255: writeCode(0x190 + symbol - 144, length: 9)
            case 256...279: writeCode(symbol - 256, length: 7)
            default: writeCode(0xC0 + symbol - 280, length: 8)
            }
        }

        static let lengthBase = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59,
                                 67, 83, 99, 115, 131, 163, 195, 227, 258]
        static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
        static let distanceBase = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769,
                                   1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
        static let distanceExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10,
                                    11, 11, 12, 12, 13, 13]

        mutating func writeLength(_ length: Int) {
            var code = Self.lengthBase.count - 1
            while Self.lengthBase[code] > length { code -= 1 }
            writeLiteral(257 + code)
            if Self.lengthExtra[code] > 0 { write(length - Self.lengthBase[code], count: Self.lengthExtra[code]) }
        }

        mutating func writeDistance(_ distance: Int) {
            var code = Self.distanceBase.count - 1
            while Self.distanceBase[code] > distance { code -= 1 }
            writeCode(code, length: 5)
            if Self.distanceExtra[code] > 0 { write(distance - Self.distanceBase[code], count: Self.distanceExtra[code]) }
        }

        mutating func finish() -> [UInt8] {
            if used > 0 { bytes.append(UInt8(truncatingIfNeeded: buffer)) }
            buffer = 0
            used = 0
            return bytes
        }
    }
}
