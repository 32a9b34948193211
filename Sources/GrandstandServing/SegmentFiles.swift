import GrandstandCore
import HTTPServer

/// A segment buffer in a memory file, so the fan listener answers segments and parts with
/// `sendfile` (docs/serving.md, "Segment storage"). If the file cannot be made or grown (memory
/// pressure), the bytes continue in an array and are answered from memory, as before.
final class MemoryFileSegmentBuffer: SegmentBuffer, @unchecked Sendable {
    // @unchecked: appended only through its window, under the VideoChannel's lock.
    private(set) var file: MemoryFile?
    private var fallback: [UInt8] = []

    static let factory: SegmentBufferFactory = { MemoryFileSegmentBuffer(capacityHint: $0) }

    init(capacityHint: Int) {
        file = try? MemoryFile(name: "grandstand-segment")
        if file == nil { fallback.reserveCapacity(capacityHint) }
    }

    var count: Int { file?.size ?? fallback.count }

    func append(_ bytes: UnsafeRawBufferPointer) {
        if let file {
            do throws(HTTPServerError) {
                try file.append(bytes)
                return
            } catch {
                fallback = (try? file.read(0..<file.size)) ?? []
                self.file = nil
            }
        }
        fallback.append(contentsOf: bytes)
    }

    func copy(_ range: Range<Int>) -> [UInt8] {
        if let file { return (try? file.read(range)) ?? [] }
        return range == fallback.indices ? fallback : Array(fallback[range])
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
