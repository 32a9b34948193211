/// The XOR of SMPTE 2022-1 FEC (RFC 2733), a word at a time: `out[0..<count] ^= source[0..<count]`
/// with unaligned 64-bit loads and stores (`loadUnaligned`, Swift 5.7), four words per step,
/// then the tail byte by byte. Shared by the encoder's accumulators and the decoder's rebuild.
enum XORBytes {
    static func accumulate(into out: UnsafeMutableRawPointer, from source: UnsafeRawPointer, count: Int) {
        var i = 0
        while i + 32 <= count {
            let a = out.loadUnaligned(fromByteOffset: i, as: UInt64.self) ^ source.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            let b = out.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self) ^ source.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)
            let c = out.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self) ^ source.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self)
            let d = out.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self) ^ source.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self)
            out.storeBytes(of: a, toByteOffset: i, as: UInt64.self)
            out.storeBytes(of: b, toByteOffset: i + 8, as: UInt64.self)
            out.storeBytes(of: c, toByteOffset: i + 16, as: UInt64.self)
            out.storeBytes(of: d, toByteOffset: i + 24, as: UInt64.self)
            i += 32
        }
        while i + 8 <= count {
            let a = out.loadUnaligned(fromByteOffset: i, as: UInt64.self) ^ source.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            out.storeBytes(of: a, toByteOffset: i, as: UInt64.self)
            i += 8
        }
        while i < count {
            out.storeBytes(of: out.load(fromByteOffset: i, as: UInt8.self) ^ source.load(fromByteOffset: i, as: UInt8.self),
                           toByteOffset: i, as: UInt8.self)
            i += 1
        }
    }

    /// `out[0..<count] ^= bytes[offset..<(offset + count)]`; the caller guarantees both ranges exist.
    static func accumulate(into out: inout [UInt8], from bytes: [UInt8], offset: Int, count: Int) {
        guard count > 0, out.count >= count, bytes.count >= offset + count else { return }
        out.withUnsafeMutableBytes { target in
            bytes.withUnsafeBytes { source in
                guard let target = target.baseAddress, let source = source.baseAddress else { return }
                accumulate(into: target, from: source + offset, count: count)
            }
        }
    }
}
