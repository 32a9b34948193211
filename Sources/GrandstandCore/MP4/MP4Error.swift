/// Why an MP4 file cannot be read or turned into HLS: the box or table at fault and what is wrong
/// with it. Thrown for any input, never a trap (docs/inserts.md "MP4 clips").
public enum MP4Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file ends before what a box or table announced.
    case truncated(String)
    /// A length, count or offset that does not fit (ISO/IEC 14496-12 §4.2).
    case malformed(String)
    /// Well-formed but not what the box can play (codec, sample entry, size limits).
    case unsupported(String)

    public var description: String {
        switch self {
        case .truncated(let reason): "truncated: \(reason)"
        case .malformed(let reason): "malformed: \(reason)"
        case .unsupported(let reason): "unsupported: \(reason)"
        }
    }
}

/// Random access to an MP4's bytes in bounded pieces (a file on disk read with `pread`, or bytes
/// in memory): the reader never asks for the whole file.
public protocol MP4ByteSource {
    var size: Int64 { get }
    /// Exactly `count` bytes at `offset`, or nil when they cannot be read.
    func read(at offset: Int64, count: Int) -> [UInt8]?
}

/// An MP4 held in memory (tests, the fuzz target).
public struct MP4Bytes: MP4ByteSource, Sendable {
    public let bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var size: Int64 { Int64(bytes.count) }

    public func read(at offset: Int64, count: Int) -> [UInt8]? {
        guard offset >= 0, count >= 0, offset <= size, Int64(count) <= size - offset else { return nil }
        return Array(bytes[Int(offset)..<Int(offset) + count])
    }
}

/// Big-endian fields of a box payload, every read bounds-checked.
struct MP4Cursor {
    let bytes: [UInt8]
    var offset: Int
    let end: Int
    /// The box being read, for error messages.
    let box: String

    init(_ bytes: [UInt8], _ range: Range<Int>, box: String) {
        self.bytes = bytes
        offset = range.lowerBound
        end = range.upperBound
        self.box = box
    }

    var remaining: Int { end - offset }

    mutating func need(_ count: Int) throws(MP4Error) {
        guard count >= 0, count <= remaining else { throw .truncated("\(box): \(count) more bytes needed, \(remaining) left") }
    }

    mutating func skip(_ count: Int) throws(MP4Error) {
        try need(count)
        offset += count
    }

    mutating func u8() throws(MP4Error) -> UInt8 {
        try need(1)
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func u16() throws(MP4Error) -> UInt16 {
        try need(2)
        defer { offset += 2 }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    mutating func u32() throws(MP4Error) -> UInt32 {
        try need(4)
        defer { offset += 4 }
        return UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    mutating func u64() throws(MP4Error) -> UInt64 {
        let high = try u32()
        return UInt64(high) << 32 | UInt64(try u32())
    }

    mutating func take(_ count: Int) throws(MP4Error) -> [UInt8] {
        try need(count)
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    /// A table of `count` entries of `entryBytes` each must fit what is left (checked before any allocation).
    mutating func table(_ count: UInt32, entryBytes: Int) throws(MP4Error) -> Int {
        guard Int(count) <= remaining / entryBytes else {
            throw .truncated("\(box): \(count) entries of \(entryBytes) bytes need \(Int(count) * entryBytes), \(remaining) left")
        }
        return Int(count)
    }
}

/// The boxes of an ISO base media file (ISO/IEC 14496-12 §4.2): size, type and payload range.
enum MP4Box {
    struct Header: Equatable {
        var type: String
        /// Where the payload starts and ends (the header excluded).
        var payload: Range<Int64>
    }

    static func typeName(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.map { (0x20...0x7E).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }

    /// The header at `offset` of a container ending at `end`, from its first 16 bytes (fewer at the end).
    static func header(_ head: [UInt8], at offset: Int64, end: Int64) throws(MP4Error) -> Header {
        var cursor = MP4Cursor(head, 0..<head.count, box: "box at \(offset)")
        let size32 = try cursor.u32()
        let type = typeName(try cursor.take(4)[...])
        var headerBytes: Int64 = 8, size = Int64(size32)
        if size32 == 1 {
            let large = try cursor.u64()
            guard large <= UInt64(Int64.max) else { throw .malformed("\(type) at \(offset): size \(large)") }
            size = Int64(large)
            headerBytes = 16
        } else if size32 == 0 {
            size = end - offset   // to the end of the container (§4.2)
        }
        guard size >= headerBytes else { throw .malformed("\(type) at \(offset): size \(size) under its \(headerBytes)-byte header") }
        guard size <= end - offset else { throw .truncated("\(type) at \(offset): \(size) bytes announced, \(end - offset) left") }
        return Header(type: type, payload: offset + headerBytes..<offset + size)
    }

    /// The child boxes inside `range` of `bytes` (a box already in memory).
    static func children(_ bytes: [UInt8], _ range: Range<Int>) throws(MP4Error) -> [(type: String, payload: Range<Int>)] {
        var out: [(String, Range<Int>)] = []
        var offset = range.lowerBound
        while offset < range.upperBound {
            let head = Array(bytes[offset..<min(offset + 16, range.upperBound)])
            let box = try header(head, at: Int64(offset), end: Int64(range.upperBound))
            out.append((box.type, Int(box.payload.lowerBound)..<Int(box.payload.upperBound)))
            offset = Int(box.payload.upperBound)
        }
        return out
    }

    static func child(_ type: String, _ bytes: [UInt8], _ range: Range<Int>, in parent: String) throws(MP4Error) -> Range<Int> {
        guard let found = try children(bytes, range).first(where: { $0.type == type }) else { throw .malformed("\(parent) has no \(type)") }
        return found.payload
    }
}
