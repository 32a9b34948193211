#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
import TestSupport
@testable import HTTPServer

/// Memory files and answers sent from them (`HTTPResponse.file`, sendfile).
struct MemoryFileTests {
    /// 300,000 bytes that differ at every offset a short or misplaced send could leave. Built
    /// with one loop, before any server starts: built lazily by a closure per byte inside the
    /// handler it took 2.9 s of an idle core under qemu-user (debug build), and 12 s on a shared
    /// core, past the client's 10 s receive timeout ("no header end in 0 bytes").
    static let pattern: [UInt8] = [UInt8](unsafeUninitializedCapacity: 300_000) { buffer, count in
        for index in 0..<buffer.count { buffer[index] = UInt8(truncatingIfNeeded: index &* 7 &+ index >> 9) }
        count = buffer.count
    }

    @Test func appendsAndReadsBack() throws {
        let file = try MemoryFile(name: "test")
        try Self.pattern[..<1000].withUnsafeBytes { try file.append($0) }
        try Self.pattern[1000...].withUnsafeBytes { try file.append($0) }
        try [UInt8]().withUnsafeBytes { try file.append($0) }
        #expect(file.size == Self.pattern.count)
        let all = try file.read(0..<Self.pattern.count)
        let some = try file.read(999..<1003)
        #expect(all == Self.pattern)
        #expect(some == Array(Self.pattern[999..<1003]))
        let past = thrownError(HTTPServerError.self) { _ = try file.read(299_990..<300_010) }
        #expect(past?.errno == EIO)
        #expect(past.map { String(describing: $0).contains("past the end") } == true)
    }

    /// Each answer holds its memory file: the file may go (a segment evicted) while the
    /// answer is in flight, and it is still sent whole. Ranges of a file answer only that range.
    @Test func answersFromAMemoryFileEvenAfterItIsDropped() throws {
        let pattern = Self.pattern   // built here, on the test's thread: the handler only copies it
        let server = try EventLoopServer(HTTPListenerConfiguration(host: "127.0.0.1", port: 0)) { request in
            guard let file = try? MemoryFile(name: "answer") else { return .text(500, "no memory file") }
            do { try pattern.withUnsafeBytes { try file.append($0) } } catch { return .text(500, "\(error)") }
            var response = HTTPResponse(status: 200, headers: [("Content-Type", "video/mp2t")])
            response.file = request.path == "/part" ? FileBody(file, 1000..<5000) : FileBody(file, 0..<file.size)
            return response   // the handler's `file` reference ends here, before a byte is sent
        }
        defer { server.stop() }
        let whole = try RawHTTPClient(port: server.port).get("/whole")
        #expect(whole.status == 200)
        #expect(whole.headers["content-length"] == "\(Self.pattern.count)")
        #expect(whole.body == Self.pattern)
        let part = try RawHTTPClient(port: server.port).get("/part")
        #expect(part.body == Array(Self.pattern[1000..<5000]))
        let head = try RawHTTPClient(port: server.port).send(Array("HEAD /whole HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        #expect(head.headers["content-length"] == "\(Self.pattern.count)" && head.body.isEmpty)
    }

    /// A file on disk is sent from its descriptor (sendfile), never read: a 3 GiB sparse file (past
    /// 2^31, where 32-bit offsets would break) serves whole to curl and in ranges near its end,
    /// and this process's resident memory does not grow by the file's size. A missing file or a
    /// directory is refused with its errno.
    @Test func diskFilesServeWholeAndInRangesWithoutBeingRead() throws {
        let path = "/tmp/gs-diskfile-\(getpid()).bin"
        defer { unlink(path) }
        let size = 3 << 30, tail = Array(Self.pattern[..<4096])
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #expect(fd >= 0)
        #expect(ftruncate(fd, off_t(size)) == 0)
        #expect(tail.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(size - tail.count)) } == tail.count)
        close(fd)

        let server = try EventLoopServer(HTTPListenerConfiguration(host: "127.0.0.1", port: 0)) { request in
            guard let file = try? DiskFile(path: path) else { return .text(500, "cannot open") }
            var response = HTTPResponse(status: 200, headers: [("Content-Type", "application/octet-stream")])
            switch request.path {
            case "/tail": response.file = FileBody(file, (file.size - 4096)..<file.size)
            case "/head": response.file = FileBody(file, 0..<(64 << 20))
            default: response.file = FileBody(file, 0..<file.size)
            }
            return response
        }
        defer { server.stop() }
        let end = try RawHTTPClient(port: server.port).get("/tail")
        #expect(end.status == 200 && end.body == tail)
        let before = Self.residentBytes()
        // Under qemu-user curl itself is emulated and takes minutes for 3 GiB: 64 MiB there.
        let (route, expected) = TestEnvironment.isQEMUUser ? ("/head", 64 << 20) : ("/whole", size)
        let whole = try runTool("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code} %{size_download}",
                                                  "http://127.0.0.1:\(server.port)\(route)"], timeout: 300)
        #expect(whole.stdout == "200 \(expected)", "\(whole.stdout) \(whole.stderr)")
        let grown = Self.residentBytes() - before
        #expect(grown < 64 << 20, "resident memory grew by \(grown) bytes serving \(size)")

        #expect(thrownError(HTTPServerError.self) { _ = try DiskFile(path: path + ".missing") }?.errno == ENOENT)
        #expect(thrownError(HTTPServerError.self) { _ = try DiskFile(path: "/tmp") }?.errno == EISDIR)
        let file = try DiskFile(path: path)
        #expect(try file.read((size - 4096)..<size) == tail && file.entityTag.hasPrefix("\"c0000000-"))
    }

    /// This process's resident set (/proc/self/statm, pages × page size).
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }
}
