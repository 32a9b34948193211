/// Reads bits most-significant first from a NAL unit's RBSP, with the Exp-Golomb codes of
/// ITU-T H.264 §9.1 / H.265 §9.2. Every read past the end returns nil, so a truncated or
/// hostile parameter set is refused rather than read out of bounds.
struct BitstreamReader {
    private let bytes: [UInt8]
    private(set) var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var bitsLeft: Int { bytes.count * 8 - position }

    mutating func bit() -> UInt32? {
        guard position < bytes.count * 8 else { return nil }
        let v = UInt32(bytes[position >> 3] >> (7 - UInt8(position & 7)) & 1)
        position += 1
        return v
    }

    mutating func bits(_ n: Int) -> UInt32? {
        guard n <= 32, bitsLeft >= n else { return nil }
        var v: UInt32 = 0
        for _ in 0..<n { v = v << 1 | bit()! }
        return v
    }

    mutating func flag() -> Bool? { bit().map { $0 == 1 } }

    mutating func skip(_ n: Int) -> Bool {
        guard n >= 0, bitsLeft >= n else { return false }
        position += n
        return true
    }

    /// ue(v): unsigned Exp-Golomb (§9.1); nil past the end or beyond 32 bits.
    mutating func ue() -> UInt32? {
        var zeros = 0
        while true {
            guard let b = bit() else { return nil }
            if b == 1 { break }
            zeros += 1
            if zeros > 31 { return nil }
        }
        guard let rest = bits(zeros) else { return nil }
        return UInt32((UInt64(1) << zeros) - 1 + UInt64(rest))
    }

    /// se(v): signed Exp-Golomb (§9.1.1).
    mutating func se() -> Int32? {
        guard let k = ue() else { return nil }
        return k & 1 == 1 ? Int32((k + 1) / 2) : -Int32(k / 2)
    }
}

/// NAL units in Annex B byte streams (H.264 / H.265 Annex B) and their RBSP.
public enum NALUnits {
    /// The NAL units of an Annex B byte stream: the bytes between start codes (0x000001 or
    /// 0x00000001), without the start codes and trailing zero bytes. The scan looks at every third
    /// byte first: where it is above 1, no start code can cover it (the usual trick of start-code
    /// finders), so most of a slice is skipped three bytes at a time.
    public static func split(_ stream: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var codes: [Int] = []   // offsets just past each start code
        stream.withUnsafeBufferPointer { p in
            let n = p.count
            var i = 0
            while i + 2 < n {
                let c = p[i + 2]
                if c > 1 {
                    i += 3
                } else if c == 1, p[i] == 0, p[i + 1] == 0 {
                    codes.append(i + 3)
                    i += 3
                } else {
                    i += 1
                }
            }
        }
        var units: [ArraySlice<UInt8>] = []
        units.reserveCapacity(codes.count)
        let base = stream.startIndex
        for (k, start) in codes.enumerated() {
            let end = k + 1 < codes.count ? codes[k + 1] - 3 : stream.count
            guard start < end else { continue }
            let unit = trimmed(stream[(base + start)..<(base + end)])
            if !unit.isEmpty { units.append(unit) }
        }
        return units
    }

    /// Drops the zero bytes that precede the next start code (the 4-byte form's leading zero and
    /// trailing_zero_8bits).
    private static func trimmed(_ unit: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var e = unit.endIndex
        while e > unit.startIndex, unit[e - 1] == 0 { e -= 1 }
        return unit[unit.startIndex..<e]
    }

    /// The RBSP of a NAL unit payload: emulation_prevention_three_byte removed (H.264 §7.4.1).
    public static func rbsp(_ payload: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(payload.count)
        var zeros = 0
        for b in payload {
            if zeros >= 2, b == 3 { zeros = 0; continue }
            zeros = b == 0 ? zeros + 1 : 0
            out.append(b)
        }
        return out
    }
}
