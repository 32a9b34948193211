/// Where a FLUTE object's encoding symbols are kept while it is assembled (RFC 6726 §4, RFC 5052
/// §9.1 blocking): byte offsets from the object's start; source symbols at their place in the
/// object, Reed-Solomon repair symbols in an area past the source symbols. Small objects stay in
/// memory (`MemorySymbolStore`); large ones go to a spool file the adapter provides, so a
/// 230 MiB bundle costs the receiver only its per-block bookkeeping.
public protocol SymbolStore: Sendable {
    /// Bytes of memory the store holds (for the receiver's `maxBufferedBytes`).
    var memoryBytes: Int { get }
    mutating func write(_ bytes: ArraySlice<UInt8>, at offset: Int) throws(SymbolStoreError)
    /// `count` bytes at `offset`; never-written bytes read as zeros.
    func read(at offset: Int, count: Int) throws(SymbolStoreError) -> [UInt8]
    /// The symbols at `offsets` are no longer needed (a decoded block's repairs).
    mutating func discard(_ offsets: [Int])
    /// The object is complete and verified: its first `length` bytes, made durable.
    mutating func seal(length: Int, md5: [UInt8]) throws(SymbolStoreError) -> ObjectContent
}

/// Makes the store of an object that goes to disk (the adapter's spool directory).
public protocol SymbolStoreProvider: Sendable {
    /// A store for an object of `transferLength` bytes; fails with ENOSPC when it does not fit
    /// the free space minus the configured floor.
    func makeStore(transferLength: Int) throws(SymbolStoreError) -> any SymbolStore
}

/// A store operation failed: what, where, and the errno (ENOSPC = 28 when the disk is full).
public struct SymbolStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    public static let noSpace: Int32 = 28

    public var operation: String
    public var path: String
    public var errno: Int32

    public init(operation: String, path: String, errno: Int32) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    public var description: String { "\(operation) \(path): errno \(errno)" }
}

/// A completed object: its bytes (small objects) or its spool file.
public enum ObjectContent: Sendable, Equatable {
    case bytes([UInt8])
    case file(SpooledObject)
}

/// A complete, fsynced object in a spool file. The sink renames it into place; when the last
/// reference goes, `owner` (the adapter's store) removes whatever is still at `path`.
public final class SpooledObject: Sendable, Equatable {
    public let path: String
    public let size: Int
    /// MD5 (RFC 1321) of the object, computed while it was verified.
    public let md5: [UInt8]
    private let owner: any Sendable

    public init(path: String, size: Int, md5: [UInt8], owner: any Sendable) {
        self.path = path
        self.size = size
        self.md5 = md5
        self.owner = owner
    }

    public static func == (a: SpooledObject, b: SpooledObject) -> Bool { a.path == b.path && a.size == b.size && a.md5 == b.md5 }
}

/// Symbols in memory: a flat buffer of the source area, repairs by offset.
public struct MemorySymbolStore: SymbolStore {
    private var data: [UInt8]
    private var repairs: [Int: [UInt8]] = [:]

    public init(sourceBytes: Int) { data = [UInt8](repeating: 0, count: sourceBytes) }

    public var memoryBytes: Int { data.count + repairs.values.reduce(0) { $0 + $1.count } }

    public mutating func write(_ bytes: ArraySlice<UInt8>, at offset: Int) throws(SymbolStoreError) {
        guard offset >= 0 else { throw SymbolStoreError(operation: "write", path: "memory", errno: 22) }
        guard offset + bytes.count <= data.count else {
            repairs[offset] = Array(bytes)
            return
        }
        data.withUnsafeMutableBytes { target in
            bytes.withUnsafeBytes { source in
                guard let from = source.baseAddress, let to = target.baseAddress else { return }
                (to + offset).copyMemory(from: from, byteCount: source.count)
            }
        }
    }

    public func read(at offset: Int, count: Int) throws(SymbolStoreError) -> [UInt8] {
        guard offset >= 0, count >= 0 else { throw SymbolStoreError(operation: "read", path: "memory", errno: 22) }
        if offset >= data.count, let held = repairs[offset] {
            return held.count >= count ? Array(held.prefix(count)) : held + [UInt8](repeating: 0, count: count - held.count)
        }
        let end = min(data.count, offset + count)
        var out = offset < end ? Array(data[offset..<end]) : []
        if out.count < count { out += [UInt8](repeating: 0, count: count - out.count) }
        return out
    }

    public mutating func discard(_ offsets: [Int]) { for offset in offsets { repairs[offset] = nil } }

    public mutating func seal(length: Int, md5: [UInt8]) throws(SymbolStoreError) -> ObjectContent {
        repairs = [:]
        if data.count > length { data.removeLast(data.count - length) }
        return .bytes(data)
    }
}
