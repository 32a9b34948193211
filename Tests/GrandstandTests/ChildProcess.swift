import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

// Child processes for the end-to-end tests (send, live ingest, FEC, daemon); `waitFor` is in TestSupport.

/// Waits until the file at `path` has not grown for `quietSeconds`: a capture writer (tcpdump
/// -U) starved of CPU may still hold packets in its ring, and SIGKILL would lose them.
func waitForQuietFile(_ path: String, quietSeconds: Double = 1) throws {
    var size = -1, since = Date()
    try waitFor("\(path) to stop growing") {
        let now = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1
        if now != size { size = now; since = Date() }
        return Date().timeIntervalSince(since) >= quietSeconds
    }
}

/// A child process with its output collected.
final class Child {
    let process = Process()
    private let pipe = Pipe()
    /// Output already read by `output(containing:)`.
    private var collected: [UInt8] = []

    init(_ command: [String]) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
    }

    var status: Int32 { process.terminationStatus }
    var isRunning: Bool { process.isRunning }

    /// SIGKILL: the one signal a child cannot have blocked.
    func kill() {
        if process.isRunning { _ = Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Reads the output as it arrives until it contains `marker` (or `timeout` s pass, or the
    /// child closes its output): waits on the pipe, not on a clock. Returns what was read.
    func output(containing marker: String, timeout: Double = 30) -> String {
        let fd = pipe.fileHandleForReading.fileDescriptor
        let deadline = Date().addingTimeInterval(timeout)
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !String(decoding: collected, as: UTF8.self).contains(marker) {
            let left = deadline.timeIntervalSinceNow
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard left > 0, poll(&entry, 1, Int32(left * 1000)) > 0 else { break }
            let count = read(fd, &chunk, chunk.count)
            guard count > 0 else { break }
            collected += chunk[..<count]
        }
        return String(decoding: collected, as: UTF8.self)
    }

    func finish() -> String {
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: collected + Array(data), as: UTF8.self)
    }
}
