import GrandstandCore
import HTTPServer
import Synchronization

/// A segment buffer in a memory file, so the fan listener answers segments and parts with
/// `sendfile` (docs/serving.md, "Segment storage"). If the file cannot be made or grown (memory
/// pressure), the bytes continue in an array and are answered from memory, as before.
final class MemoryFileSegmentBuffer: SegmentBuffer, Sendable {
    private struct Storage {
        var file: MemoryFile?
        var fallback: [UInt8] = []
    }
    private let storage: Mutex<Storage>

    static let factory: SegmentBufferFactory = { MemoryFileSegmentBuffer(capacityHint: $0) }

    init(capacityHint: Int) {
        var start = Storage(file: try? MemoryFile(name: "grandstand-segment"))
        if start.file == nil { start.fallback.reserveCapacity(capacityHint) }
        storage = Mutex(start)
    }

    /// The memory file holding the bytes; nil once they moved to memory (or never were in one).
    var file: MemoryFile? { storage.withLock { $0.file } }

    var count: Int { storage.withLock { $0.file?.size ?? $0.fallback.count } }

    func append(_ bytes: UnsafeRawBufferPointer) {
        storage.withLock { storage in
            if let file = storage.file {
                do throws(HTTPServerError) {
                    try file.append(bytes)
                    return
                } catch {
                    storage.fallback = (try? file.read(0..<file.size)) ?? []
                    storage.file = nil
                }
            }
            storage.fallback.append(contentsOf: bytes)
        }
    }

    func copy(_ range: Range<Int>) -> [UInt8] {
        // Read outside the lock: written bytes never change, and the file stays open while held.
        // A buffer only ever moves from its file to memory, so without a file now the array has it all.
        if let file { return (try? file.read(range)) ?? [] }
        return storage.withLock { storage in
            range == storage.fallback.indices ? storage.fallback : Array(storage.fallback[range])
        }
    }
}

extension HTTPResponse {
    /// A 200 whose body is `bytes`: from their memory file when they have one, else in memory.
    init(status: Int, headers: [(name: String, value: String)], bytes: SegmentBytes) {
        if let file = (bytes.buffer as? MemoryFileSegmentBuffer)?.file {
            self.init(status: status, headers: headers)
            self.file = FileBody(file, bytes.range)
        } else {
            self.init(status: status, headers: headers, body: bytes.array)
        }
    }
}
