/// MD5 (RFC 1321), for FLUTE's Content-MD5 integrity check (RFC 6726 §3.4.2, RFC 1864): not
/// for security. Pure Swift so the core needs no crypto library.
public struct MD5: Sendable {
    private var state: (UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476)
    private var buffer: [UInt8] = []
    private var length: UInt64 = 0

    public init() { buffer.reserveCapacity(64) }

    private static let shifts: [UInt32] = [7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                                           5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
                                           4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                                           6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21]
    /// K[i] = ⌊|sin(i + 1)| · 2^32⌋ (RFC 1321 §3.4).
    private static let constants: [UInt32] = [
        0xD76AA478, 0xE8C7B756, 0x242070DB, 0xC1BDCEEE, 0xF57C0FAF, 0x4787C62A, 0xA8304613, 0xFD469501,
        0x698098D8, 0x8B44F7AF, 0xFFFF5BB1, 0x895CD7BE, 0x6B901122, 0xFD987193, 0xA679438E, 0x49B40821,
        0xF61E2562, 0xC040B340, 0x265E5A51, 0xE9B6C7AA, 0xD62F105D, 0x02441453, 0xD8A1E681, 0xE7D3FBC8,
        0x21E1CDE6, 0xC33707D6, 0xF4D50D87, 0x455A14ED, 0xA9E3E905, 0xFCEFA3F8, 0x676F02D9, 0x8D2A4C8A,
        0xFFFA3942, 0x8771F681, 0x6D9D6122, 0xFDE5380C, 0xA4BEEA44, 0x4BDECFA9, 0xF6BB4B60, 0xBEBFBC70,
        0x289B7EC6, 0xEAA127FA, 0xD4EF3085, 0x04881D05, 0xD9D4D039, 0xE6DB99E5, 0x1FA27CF8, 0xC4AC5665,
        0xF4292244, 0x432AFF97, 0xAB9423A7, 0xFC93A039, 0x655B59C3, 0x8F0CCC92, 0xFFEFF47D, 0x85845DD1,
        0x6FA87E4F, 0xFE2CE6E0, 0xA3014314, 0x4E0811A1, 0xF7537E82, 0xBD3AF235, 0x2AD7D2BB, 0xEB86D391,
    ]

    /// Adds bytes; whole 64-byte blocks of contiguous input are compressed straight from it, so
    /// a large object can be digested a chunk at a time (incremental, RFC 1321 §3.4).
    public mutating func update<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        length &+= UInt64(bytes.count)
        let done: Void? = bytes.withContiguousStorageIfAvailable { input in
            var index = 0
            while index < input.count, !buffer.isEmpty || input.count - index < 64 {
                buffer.append(input[index])
                index += 1
                if buffer.count == 64 { compressBuffer() }
            }
            guard let base = input.baseAddress else { return }
            while input.count - index >= 64 {
                compress(UnsafeRawPointer(base + index))
                index += 64
            }
            while index < input.count { buffer.append(input[index]); index += 1 }
        }
        guard done == nil else { return }
        for byte in bytes {
            buffer.append(byte)
            if buffer.count == 64 { compressBuffer() }
        }
    }

    private mutating func compressBuffer() {
        buffer.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            compress(base)
        }
        buffer.removeAll(keepingCapacity: true)
    }

    public mutating func finalize() -> [UInt8] {
        let bits = length &* 8
        buffer.append(0x80)
        if buffer.count > 56 { while buffer.count < 64 { buffer.append(0) }; compressBuffer() }
        while buffer.count < 56 { buffer.append(0) }
        for i in 0..<8 { buffer.append(UInt8(truncatingIfNeeded: bits >> UInt64(8 * i))) }
        compressBuffer()
        var out: [UInt8] = []
        for word in [state.0, state.1, state.2, state.3] {
            for i in 0..<4 { out.append(UInt8(truncatingIfNeeded: word >> UInt32(8 * i))) }
        }
        return out
    }

    public static func digest<C: Collection>(_ bytes: C) -> [UInt8] where C.Element == UInt8 {
        var md5 = MD5()
        md5.update(bytes)
        return md5.finalize()
    }

    /// One 64-byte block at `block` (RFC 1321 §3.4).
    private mutating func compress(_ block: UnsafeRawPointer) {
        var m: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32,
                UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &m) { words in
            words.copyMemory(from: UnsafeRawBufferPointer(start: block, count: 64))
        }
        var (a, b, c, d) = state
        withUnsafeBytes(of: &m) { raw in
            let words = raw.bindMemory(to: UInt32.self)
            Self.shifts.withUnsafeBufferPointer { shifts in
                Self.constants.withUnsafeBufferPointer { constants in
                    for i in 0..<64 {
                        var f: UInt32
                        let g: Int
                        switch i {
                        case 0..<16: f = (b & c) | (~b & d); g = i
                        case 16..<32: f = (d & b) | (~d & c); g = (5 * i + 1) & 15
                        case 32..<48: f = b ^ c ^ d; g = (3 * i + 5) & 15
                        default: f = c ^ (b | ~d); g = (7 * i) & 15
                        }
                        f = f &+ a &+ constants[i] &+ UInt32(littleEndian: words[g])
                        a = d
                        d = c
                        c = b
                        let s = shifts[i]
                        b = b &+ ((f << s) | (f >> (32 - s)))
                    }
                }
            }
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d)
    }
}

/// Base64 (RFC 4648 §4) for Content-MD5 values; decoding is strict (padding, alphabet).
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            let n = min(3, bytes.count - i)
            let b0 = bytes[i], b1 = n > 1 ? bytes[i + 1] : 0, b2 = n > 2 ? bytes[i + 2] : 0
            out.append(alphabet[Int(b0 >> 2)])
            out.append(alphabet[Int((b0 & 3) << 4 | b1 >> 4)])
            out.append(n > 1 ? alphabet[Int((b1 & 15) << 2 | b2 >> 6)] : 0x3D)
            out.append(n > 2 ? alphabet[Int(b2 & 63)] : 0x3D)
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func decode(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8).filter { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }
        guard chars.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        var index = 0
        while index < chars.count {
            var values: [UInt8] = []
            var padding = 0
            for c in chars[index..<(index + 4)] {
                if c == 0x3D { padding += 1; values.append(0); continue }
                guard padding == 0, let v = alphabet.firstIndex(of: c) else { return nil }
                values.append(UInt8(v))
            }
            guard padding <= 2, padding == 0 || index + 4 == chars.count else { return nil }
            out.append(values[0] << 2 | values[1] >> 4)
            if padding < 2 { out.append(values[1] << 4 | values[2] >> 2) }
            if padding < 1 { out.append(values[2] << 6 | values[3]) }
            index += 4
        }
        return out
    }
}
