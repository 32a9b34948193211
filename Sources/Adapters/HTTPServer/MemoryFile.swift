import CGSEventLoop
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An anonymous memory file (`memfd_create`): bytes the listener sends with `sendfile`, from the
/// page cache, instead of copying them out of user memory for every answer (docs/serving.md,
/// "Segment storage"). The descriptor closes with the last owner; an answer in flight holds the
/// file (`FileBody`), so a file dropped meanwhile is still sent whole.
public final class MemoryFile: Sendable {
    public let descriptor: Int32
    /// Bytes written so far. Appends hold it while they write, so they follow each other;
    /// readers take ranges below the size they saw, which never change (append-only).
    private let written = Mutex(0)

    public init(name: String) throws(HTTPServerError) {
        let fd = gs_el_memfd(name)
        guard fd >= 0 else { throw HTTPServerError("memfd_create \(name)", errno: errno) }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Bytes written so far.
    public var size: Int { written.withLock { $0 } }

    /// Writes `bytes` at the end. On failure the size is unchanged (what was written is ignored).
    public func append(_ bytes: UnsafeRawBufferPointer) throws(HTTPServerError) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        try written.withLock { (size: inout Int) throws(HTTPServerError) in
            var done = 0
            while done < bytes.count {
                let count = pwrite(descriptor, base + done, bytes.count - done, off_t(size + done))
                if count < 0 {
                    if errno == EINTR { continue }
                    throw HTTPServerError("pwrite to memory file (\(bytes.count) bytes at \(size))", errno: errno)
                }
                done += count
            }
            size += done
        }
    }

    /// A copy of `range` (within `0..<size`).
    public func read(_ range: Range<Int>) throws(HTTPServerError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: range.count)
        var done = 0
        while done < range.count {
            let got = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return pread(descriptor, base + done, range.count - done, off_t(range.lowerBound + done))
            }
            if got < 0 && errno == EINTR { continue }
            if got < 0 { throw HTTPServerError("pread from memory file (\(range))", errno: errno) }
            if got == 0 { throw HTTPServerError("pread from memory file (\(range)): past the end", errno: EIO) }
            done += got
        }
        return bytes
    }
}

/// A response body sent from a memory file: `range` of `file`.
public struct FileBody: Sendable {
    public let file: MemoryFile
    public let range: Range<Int>

    public init(_ file: MemoryFile, _ range: Range<Int>) {
        self.file = file
        self.range = range
    }
}
