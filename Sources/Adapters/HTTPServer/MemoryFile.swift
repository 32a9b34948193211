import CGSEventLoop
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An anonymous memory file (`memfd_create`): bytes the listener sends with `sendfile`, from the
/// page cache, instead of copying them out of user memory for every answer (docs/serving.md,
/// "Segment storage"). The descriptor closes with the last owner; an answer in flight holds the
/// file (`FileBody`), so a file dropped meanwhile is still sent whole.
public final class MemoryFile: SendFileSource {
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
        try FileBody.pread(descriptor, range, what: "memory file")
    }
}

/// What the listener can send a body from with `sendfile(2)`: an open descriptor it reads from,
/// kept open while an answer holds it.
public protocol SendFileSource: AnyObject, Sendable {
    var descriptor: Int32 { get }
    /// A copy of `range` (for an ETag made from the bytes, and tests).
    func read(_ range: Range<Int>) throws(HTTPServerError) -> [UInt8]
}

/// A file on disk opened read-only for answers (a recording, a cached item, a file channel's
/// file): sent with `sendfile` from the page cache in ranges, never read into memory, so a 2 GB
/// item serves on a 512 MB box. Size and modification time are taken at open; the descriptor
/// keeps the bytes of a file replaced or removed meanwhile, so an answer stays whole.
public final class DiskFile: SendFileSource {
    public let descriptor: Int32
    public let size: Int
    /// Modification time (seconds and nanoseconds since the epoch), for validators.
    public let modifiedSeconds: Int
    public let modifiedNanoseconds: Int

    /// Opens `path`; ENOENT and other failures are thrown with the operation.
    public init(path: String) throws(HTTPServerError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw HTTPServerError("open \(path)", errno: errno) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = HTTPServerError("fstat \(path)", errno: errno)
            close(fd)
            throw error
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw HTTPServerError("open \(path): not a regular file", errno: EISDIR)
        }
        descriptor = fd
        size = Int(info.st_size)
        modifiedSeconds = Int(info.st_mtim.tv_sec)
        modifiedNanoseconds = Int(info.st_mtim.tv_nsec)
    }

    deinit { close(descriptor) }

    /// A strong validator from size and modification time (RFC 9110 §8.8.3), without reading.
    public var entityTag: String {
        "\"\(String(size, radix: 16))-\(String(modifiedSeconds, radix: 16))\(String(modifiedNanoseconds, radix: 16))\""
    }

    public func read(_ range: Range<Int>) throws(HTTPServerError) -> [UInt8] {
        try FileBody.pread(descriptor, range, what: "file")
    }
}

/// A response body sent from a file: `range` of `file`.
public struct FileBody: Sendable {
    public let file: any SendFileSource
    public let range: Range<Int>

    /// Reads `range` of `descriptor` whole (EINTR retried; short file: EIO).
    static func pread(_ descriptor: Int32, _ range: Range<Int>, what: String) throws(HTTPServerError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: range.count)
        var done = 0
        while done < range.count {
            let got = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return Glibc.pread(descriptor, base + done, range.count - done, off_t(range.lowerBound + done))
            }
            if got < 0 && errno == EINTR { continue }
            if got < 0 { throw HTTPServerError("pread from \(what) (\(range))", errno: errno) }
            if got == 0 { throw HTTPServerError("pread from \(what) (\(range)): past the end", errno: EIO) }
            done += got
        }
        return bytes
    }

    public init(_ file: any SendFileSource, _ range: Range<Int>) {
        self.file = file
        self.range = range
    }
}
