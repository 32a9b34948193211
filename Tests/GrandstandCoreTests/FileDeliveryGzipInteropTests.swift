import Foundation
import Testing
@testable import GrandstandCore

/// What `send --files --file-encoding gzip` writes, decoded by another implementation: Python's
/// gzip module (Debian's /usr/bin/python3; the other direction is the files/fixture.txt.gz test).
@Suite struct FileDeliveryGzipInteropTests {
    @Test(arguments: [0, 1, 1000, 70_000])
    func ourGzipDecodesWithPython(_ size: Int) throws {
        var content = Array(String(repeating: "<clip src=\"media/clip.mp4\"/>\n", count: size / 30 + 1).utf8.prefix(size / 2))
        content += FluteTesting.bytes(size - content.count, seed: UInt64(size))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", "import gzip, sys; sys.stdout.buffer.write(gzip.decompress(sys.stdin.buffer.read()))"]
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        stdin.fileHandleForWriting.write(Data(ContentCoding.gzip(content)))
        try stdin.fileHandleForWriting.close()
        let decoded = Array(stdout.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "python3's gzip refused our stream")
        #expect(decoded == content)
    }
}
