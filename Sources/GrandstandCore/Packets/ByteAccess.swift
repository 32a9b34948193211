/// Bounds-checked big-endian reads on a byte slice, by offset from the slice's start, so parsers
/// of untrusted packets never index out of range: every read returns nil past the end.
extension ArraySlice where Element == UInt8 {
    @inline(__always)
    func octet(at offset: Int) -> UInt8? {
        guard offset >= 0, offset < count else { return nil }
        return self[startIndex + offset]
    }

    @inline(__always)
    func be16(at offset: Int) -> UInt16? {
        guard offset >= 0, offset <= count - 2 else { return nil }
        let i = startIndex + offset
        return UInt16(self[i]) << 8 | UInt16(self[i + 1])
    }

    @inline(__always)
    func be32(at offset: Int) -> UInt32? {
        guard offset >= 0, offset <= count - 4 else { return nil }
        let i = startIndex + offset
        return UInt32(self[i]) << 24 | UInt32(self[i + 1]) << 16 | UInt32(self[i + 2]) << 8 | UInt32(self[i + 3])
    }

    /// `length` bytes from `offset`, nil when they are not all there.
    @inline(__always)
    func bytes(at offset: Int, length: Int) -> ArraySlice<UInt8>? {
        guard offset >= 0, length >= 0, offset <= count - length else { return nil }
        return self[(startIndex + offset)..<(startIndex + offset + length)]
    }

    /// Everything from `offset` on, nil when `offset` is past the end.
    @inline(__always)
    func suffix(from offset: Int) -> ArraySlice<UInt8>? {
        guard offset >= 0, offset <= count else { return nil }
        return self[(startIndex + offset)...]
    }
}
