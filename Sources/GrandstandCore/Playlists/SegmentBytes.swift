import Synchronization

/// Where one segment's bytes live. Append-only: bytes once written never change, so a reader
/// holding a range keeps seeing the same bytes while the segment grows part by part. The
/// default keeps them in a Swift array; the daemon supplies memory files that its HTTP listener
/// sends with `sendfile` (docs/serving.md, "Segment storage"). Owners serialise appends (the
/// window's owner holds a lock); buffers lock for themselves, so a copy may race an append.
public protocol SegmentBuffer: AnyObject, Sendable {
    /// Bytes written so far.
    var count: Int { get }
    /// Appends `bytes` at the end.
    func append(_ bytes: UnsafeRawBufferPointer)
    /// A copy of `range` (within `0..<count`).
    func copy(_ range: Range<Int>) -> [UInt8]
}

/// Makes the buffer of a new segment; the argument is the expected size (a capacity hint).
public typealias SegmentBufferFactory = @Sendable (_ capacityHint: Int) -> any SegmentBuffer

/// The default buffer: a Swift array, behind its own mutex (a reader on another thread may copy
/// while the owner appends).
public final class ArraySegmentBuffer: SegmentBuffer, Sendable {
    private let storage: Mutex<[UInt8]>

    public init(_ bytes: [UInt8] = [], capacity: Int = 0) {
        var bytes = bytes
        bytes.reserveCapacity(capacity)
        storage = Mutex(bytes)
    }

    public static let factory: SegmentBufferFactory = { ArraySegmentBuffer(capacity: $0) }

    /// The bytes written so far (a copy-on-write snapshot).
    public var bytes: [UInt8] { storage.withLock { $0 } }
    public var count: Int { storage.withLock { $0.count } }
    public func append(_ more: UnsafeRawBufferPointer) { storage.withLock { $0.append(contentsOf: more) } }
    public func copy(_ range: Range<Int>) -> [UInt8] {
        storage.withLock { bytes in range == bytes.indices ? bytes : Array(bytes[range]) }
    }
}

/// A range of a segment buffer: a segment, or one of its parts. A value: appending to a
/// segment whose buffer has grown past this range (another copy appended) copies first.
public struct SegmentBytes: Sendable, Equatable, ExpressibleByArrayLiteral {
    public private(set) var buffer: any SegmentBuffer
    public private(set) var range: Range<Int>

    public init(_ bytes: [UInt8]) {
        buffer = ArraySegmentBuffer(bytes)
        range = 0..<bytes.count
    }

    public init(arrayLiteral elements: UInt8...) { self.init(elements) }

    /// An empty segment in a buffer from `factory`.
    public init(factory: SegmentBufferFactory, capacityHint: Int) {
        buffer = factory(capacityHint)
        range = buffer.count..<buffer.count
    }

    public var count: Int { range.count }
    public var isEmpty: Bool { range.isEmpty }

    /// The bytes as an array (a copy, except for a whole array buffer).
    public var array: [UInt8] { buffer.copy(range) }

    /// The bytes `offsets` (relative to these bytes).
    public subscript(_ offsets: Range<Int>) -> SegmentBytes {
        var sub = self
        sub.range = (range.lowerBound + offsets.lowerBound)..<(range.lowerBound + offsets.upperBound)
        return sub
    }

    /// Appends `more`, copying into a buffer from `factory` first if these bytes do not end the
    /// buffer (value semantics: another copy appended since).
    public mutating func append(_ more: [UInt8], factory: SegmentBufferFactory) {
        if range.upperBound != buffer.count {
            let fresh = factory(count + more.count)
            array.withUnsafeBytes { fresh.append($0) }
            buffer = fresh
            range = 0..<fresh.count
        }
        more.withUnsafeBytes { buffer.append($0) }
        range = range.lowerBound..<buffer.count
    }

    public static func == (a: SegmentBytes, b: SegmentBytes) -> Bool {
        a.count == b.count && (a.buffer === b.buffer && a.range == b.range || a.array == b.array)
    }
}
