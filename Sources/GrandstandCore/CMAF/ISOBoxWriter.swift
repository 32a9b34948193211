/// Writes ISO base media file format boxes (ISO/IEC 14496-12 §4.2): a 32-bit size, a four-character
/// type, and for full boxes a version and 24-bit flags. Sizes are patched when a box closes, so
/// boxes nest by calling `box` inside `box`.
public struct ISOBoxWriter {
    public private(set) var bytes: [UInt8] = []

    public init(capacity: Int = 1024) { bytes.reserveCapacity(capacity) }

    /// A box of `type` whose content `body` writes.
    public mutating func box(_ type: String, _ body: (inout ISOBoxWriter) -> Void) {
        let start = bytes.count
        u32(0)
        fourCC(type)
        body(&self)
        patch32(at: start, UInt32(bytes.count - start))
    }

    /// A full box (§4.2): version and flags precede the content.
    public mutating func fullBox(_ type: String, version: UInt8, flags: UInt32, _ body: (inout ISOBoxWriter) -> Void) {
        box(type) { w in
            w.u8(version)
            w.u8(UInt8(flags >> 16 & 0xFF)); w.u8(UInt8(flags >> 8 & 0xFF)); w.u8(UInt8(flags & 0xFF))
            body(&w)
        }
    }

    public var count: Int { bytes.count }

    public mutating func u8(_ v: UInt8) { bytes.append(v) }
    public mutating func u16(_ v: UInt16) { bytes.append(UInt8(v >> 8)); bytes.append(UInt8(v & 0xFF)) }
    public mutating func u24(_ v: UInt32) { u8(UInt8(v >> 16 & 0xFF)); u16(UInt16(v & 0xFFFF)) }
    public mutating func u32(_ v: UInt32) { u16(UInt16(v >> 16)); u16(UInt16(v & 0xFFFF)) }
    public mutating func u64(_ v: UInt64) { u32(UInt32(v >> 32)); u32(UInt32(v & 0xFFFF_FFFF)) }
    public mutating func i32(_ v: Int32) { u32(UInt32(bitPattern: v)) }
    public mutating func zeros(_ n: Int) { bytes.append(contentsOf: repeatElement(0, count: n)) }
    public mutating func append<C: Collection>(_ more: C) where C.Element == UInt8 { bytes.append(contentsOf: more) }

    /// A four-character code (ASCII; shorter codes are padded with spaces).
    public mutating func fourCC(_ code: String) {
        var utf8 = Array(code.utf8.prefix(4))
        while utf8.count < 4 { utf8.append(0x20) }
        bytes.append(contentsOf: utf8)
    }

    /// Overwrites four bytes at `offset` (a size or data offset known only later).
    public mutating func patch32(at offset: Int, _ v: UInt32) {
        bytes[offset] = UInt8(v >> 24); bytes[offset + 1] = UInt8(v >> 16 & 0xFF)
        bytes[offset + 2] = UInt8(v >> 8 & 0xFF); bytes[offset + 3] = UInt8(v & 0xFF)
    }

    /// The identity transformation matrix of `mvhd` and `tkhd` (§8.2.2.3).
    public mutating func unityMatrix() {
        for v: UInt32 in [0x0001_0000, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000] { u32(v) }
    }
}
