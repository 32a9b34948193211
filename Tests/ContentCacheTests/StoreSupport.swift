import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A fresh directory under the system temp dir, removed by `remove()`.
struct ScratchDirectory {
    let path: String

    init(_ name: String) {
        var template = Array("\(NSTemporaryDirectory())/gs-cache-\(name)-XXXXXX".utf8CString)
        path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }

    func bytes(_ relative: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path + "/" + relative).map { Array($0) }
    }

    func write(_ relative: String, _ bytes: [UInt8]) {
        _ = FileManager.default.createFile(atPath: path + "/" + relative, contents: Data(bytes))
    }
}
