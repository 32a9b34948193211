// Shared by every fuzz target (compiled into each): the libFuzzer entry point calls `fuzzOne`,
// and `FuzzCursor` reads a structured script out of the raw input.
@testable import GrandstandCore

@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    fuzzOne(bytes)
    return 0
}

/// A property the target checks; a violation aborts so libFuzzer records the input as a crash.
func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
             file: StaticString = #file, line: UInt = #line) {
    if !condition() { fatalError("fuzz property violated: \(message())", file: file, line: line) }
}

/// Reads integers and length-prefixed chunks from the fuzz input; past the end everything is 0 / empty.
struct FuzzCursor {
    let bytes: [UInt8]
    var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset >= bytes.count }

    mutating func u8() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func u16() -> UInt16 { UInt16(u8()) << 8 | UInt16(u8()) }

    mutating func u32() -> UInt32 { UInt32(u16()) << 16 | UInt32(u16()) }

    /// `count` bytes (fewer at the end of the input).
    mutating func take(_ count: Int) -> ArraySlice<UInt8> {
        let end = min(bytes.count, offset + max(0, count))
        defer { offset = end }
        return bytes[min(offset, end)..<end]
    }

    /// A chunk preceded by its 16-bit big-endian length.
    mutating func chunk() -> ArraySlice<UInt8> { take(Int(u16())) }

    var rest: ArraySlice<UInt8> { bytes[min(offset, bytes.count)...] }
}

/// An IPv4 address from its dotted form (harness constants only).
func ipv4(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32) -> IPAddress { .v4(a << 24 | b << 16 | c << 8 | d) }
