import CurlHTTP
import Foundation
import GrandstandRuntime
import TestSupport
import Testing

/// The libcurl adapter against origins that misbehave on purpose (issue 20, "Bad input"): a
/// scripted peer on loopback answers each request with raw bytes. Every case ends in a clear
/// error or a body bounded by what the request allows; nothing waits forever or grows unbounded.
@Suite struct HostileOriginTests {
    /// One loopback listener; `script` answers each connection (after reading its request head).
    final class ScriptedOrigin: @unchecked Sendable {
        let fd: Int32
        let port: UInt16
        let script: @Sendable (Int32) -> Void

        init(_ script: @escaping @Sendable (_ connection: Int32) -> Void) throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            self.fd = fd
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = in_addr_t(0x7f00_0001).bigEndian
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 8) == 0 && getsockname(fd, $0, &length) == 0 }
            }
            guard bound else { throw POSIXError(.EADDRNOTAVAIL) }
            port = UInt16(bigEndian: address.sin_port)
            self.script = script
            let listener = fd
            Thread.detachNewThread {
                while true {
                    let connection = accept(listener, nil, nil)
                    guard connection >= 0 else { return }
                    Thread.detachNewThread {
                        Self.readHead(connection)
                        script(connection)
                        close(connection)
                    }
                }
            }
        }

        var url: String { "http://127.0.0.1:\(port)/item.bin" }

        deinit { shutdown(fd, Int32(SHUT_RDWR)); close(fd) }

        static func readHead(_ fd: Int32) {
            var seen: [UInt8] = [], byte: UInt8 = 0
            while read(fd, &byte, 1) == 1 {
                seen.append(byte)
                if seen.suffix(4) == [13, 10, 13, 10] { return }
            }
        }

        /// Writes all of `bytes`; false once the client has gone.
        @discardableResult
        static func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
            var done = 0
            while done < bytes.count {
                // MSG_NOSIGNAL: a client that hung up is a failed write, not SIGPIPE for the test process.
                let n = bytes[done...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard n > 0 else { return false }
                done += n
            }
            return true
        }

        static func send(_ fd: Int32, _ text: String) -> Bool { send(fd, Array(text.utf8)) }
    }

    func fetch(_ origin: ScriptedOrigin, _ change: (inout CurlOptions) -> Void = { _ in }) -> Result<CurlResponse, CurlError> {
        var options = CurlOptions()
        options.idleTimeoutSeconds = 2
        options.totalTimeoutSeconds = 30
        change(&options)
        do { return .success(try CurlClient(options).perform(CurlRequest(url: origin.url))) } catch { return .failure(error) }
    }

    /// A slow drip (200 bytes a second, forever) is a timeout once it stays under the floor for
    /// the idle time, not a download that never ends.
    @Test func aSlowDripTimesOut() throws {
        let origin = try ScriptedOrigin { fd in
            guard ScriptedOrigin.send(fd, "HTTP/1.1 200 OK\r\nContent-Length: 100000000\r\n\r\n") else { return }
            while ScriptedOrigin.send(fd, [UInt8](repeating: 7, count: 20)) { usleep(100_000) }
        }
        let start = SystemClock().monotonicNanoseconds()
        let result = fetch(origin) { $0.minimumBytesPerSecond = 1024 }
        guard case .failure(let error) = result else { Issue.record("a drip finished: \(result)"); return }
        #expect(error.kind == .timeout, "\(error)")
        #expect(SystemClock().monotonicNanoseconds() - start < 10_000_000_000)
    }

    /// A response head past 64 KiB (many headers), or one header line past libcurl's own limit
    /// (100 KiB), ends the request as `headersTooLarge`.
    @Test(arguments: [(2_000, 100), (1, 300_000)])
    func hugeHeadersAreRefused(count: Int, size: Int) throws {
        let origin = try ScriptedOrigin { fd in
            var head = "HTTP/1.1 200 OK\r\n"
            for i in 0..<count { head += "X-Filler-\(i): " + String(repeating: "a", count: size) + "\r\n" }
            _ = ScriptedOrigin.send(fd, head + "Content-Length: 2\r\n\r\nok")
        }
        guard case .failure(let error) = fetch(origin) else { Issue.record("huge headers accepted"); return }
        #expect(error.kind == .headersTooLarge, "\(error)")
    }

    /// A body shorter than its Content-Length is `partialBody` (the cache resumes it with Range);
    /// bytes past a Content-Length are never taken as body.
    @Test func wrongLengthsAreCaught() throws {
        let short = try ScriptedOrigin { fd in
            _ = ScriptedOrigin.send(fd, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + String(repeating: "x", count: 500))
        }
        guard case .failure(let error) = fetch(short) else { Issue.record("a cut body accepted"); return }
        #expect(error.kind == .partialBody, "\(error)")
        let long = try ScriptedOrigin { fd in
            _ = ScriptedOrigin.send(fd, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\nConnection: close\r\n\r\n0123456789EXTRA-BYTES")
        }
        let response = try fetch(long).get()
        #expect(response.body == Array("0123456789".utf8))
    }

    /// A gzip bomb (128 MB of zeros in 128 KB): never inflated, since the gateway asks for no
    /// content coding; the bytes are kept as sent, within the response limit.
    @Test func aGzipBombIsNeverInflated() throws {
        let bomb = try Self.gzipOfZeros(megabytes: 128)
        #expect(bomb.count < 200_000)
        let origin = try ScriptedOrigin { fd in
            guard ScriptedOrigin.send(fd, "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: \(bomb.count)\r\n\r\n") else { return }
            ScriptedOrigin.send(fd, bomb)
        }
        let response = try fetch(origin).get()
        #expect(response.body.count == bomb.count)
        #expect(response.body.prefix(2) == [0x1F, 0x8B])
    }

    /// A body that never ends (chunked, no length) stops at the response limit.
    @Test func anEndlessBodyStopsAtTheLimit() throws {
        let origin = try ScriptedOrigin { fd in
            guard ScriptedOrigin.send(fd, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n") else { return }
            let chunk = "10000\r\n" + String(repeating: "z", count: 65_536) + "\r\n"
            while ScriptedOrigin.send(fd, chunk) {}
        }
        guard case .failure(let error) = fetch(origin, { $0.maxResponseBytes = 4 << 20 }) else { Issue.record("an endless body finished"); return }
        #expect(error.kind == .bodyTooLarge, "\(error)")
    }

    static func gzipOfZeros(megabytes: Int) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "head -c \(megabytes)M /dev/zero | gzip -9"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Array(data)
    }
}
