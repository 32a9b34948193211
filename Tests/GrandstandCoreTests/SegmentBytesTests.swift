import Testing
@testable import GrandstandCore

/// Segment bytes are append-only buffer ranges with value semantics.
struct SegmentBytesTests {
    @Test func appendsGrowTheRangeAndPartsAreSubranges() {
        var bytes = SegmentBytes(factory: ArraySegmentBuffer.factory, capacityHint: 16)
        bytes.append([1, 2, 3], factory: ArraySegmentBuffer.factory)
        let part = bytes[1..<3]
        bytes.append([4, 5], factory: ArraySegmentBuffer.factory)
        #expect(bytes.array == [1, 2, 3, 4, 5])
        #expect(bytes.count == 5 && !bytes.isEmpty)
        #expect(part.array == [2, 3])          // still the same bytes after the segment grew
        #expect(part == [2, 3])
        #expect(bytes[3..<5] == [4, 5])
        #expect(bytes.buffer === part.buffer)  // no copy for either
    }

    @Test func copiesThatAppendDiverge() {
        var a: SegmentBytes = [1, 2]
        var b = a
        a.append([3], factory: ArraySegmentBuffer.factory)
        b.append([9], factory: ArraySegmentBuffer.factory)   // a grew the shared buffer: b copies first
        #expect(a == [1, 2, 3])
        #expect(b == [1, 2, 9])
        #expect(a.buffer !== b.buffer)
        #expect(SegmentBytes([]) == [])
        #expect(a != b)
    }
}
