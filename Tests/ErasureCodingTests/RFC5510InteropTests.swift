import Foundation
import GrandstandCore
import Testing
@testable import ErasureCoding

/// FLUTE's Reed-Solomon (FEC Encoding ID 5, RFC 5510 §8) against an independent implementation:
/// zfec (Debian `python3-zfec`, in the Makefile's DEPS), Rizzo's Vandermonde code which RFC 5510
/// §8 follows. zfec encodes and we decode, we encode and zfec decodes, and both produce the same
/// repair bytes.
@Suite struct RFC5510InteropTests {
    /// (k, m, symbol length): a single source, small, FLUTE-sized, and the largest n = 255.
    static let shapes: [(Int, Int, Int)] = [(1, 1, 16), (4, 2, 100), (10, 5, 1000), (32, 8, 64), (64, 16, 33), (200, 55, 40)]

    /// zfec on stdin "k m length" + hex sources + hex repairs (ours): prints zfec's m repairs,
    /// then the k sources zfec decodes from our repairs with the first min(k, m) sources lost.
    static let script = """
    import sys, zfec
    lines = sys.stdin.read().split()
    k, m, length = int(lines[0]), int(lines[1]), int(lines[2])
    sources = [bytes.fromhex(h) for h in lines[3:3 + k]]
    ours = [bytes.fromhex(h) for h in lines[3 + k:3 + k + m]]
    for block in zfec.Encoder(k, k + m).encode(sources, list(range(k, k + m))):
        print(block.hex())
    lost = min(k, m)
    shares = sources[lost:] + ours[:lost]
    numbers = list(range(lost, k)) + list(range(k, k + lost))
    for block in zfec.Decoder(k, k + m).decode(shares, numbers):
        print(block.hex())
    """

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    static func unhex(_ text: Substring) -> [UInt8] {
        var out: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex, let next = text.index(index, offsetBy: 2, limitedBy: text.endIndex) {
            out.append(UInt8(text[index..<next], radix: 16) ?? 0)
            index = next
        }
        return out
    }

    /// Runs the zfec script; the stdout lines, or a readable failure (python3 or zfec missing).
    static func zfec(_ input: String) throws -> [Substring] {
        let process = Process()
        // Debian's interpreter, where python3-zfec installs (a python3 earlier on PATH may be another).
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script]
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw InteropFailure("/usr/bin/python3 with zfec (apt-get install python3-zfec, in DEPS) exited \(process.terminationStatus): "
                                 + String(decoding: errors, as: UTF8.self))
        }
        return String(decoding: output, as: UTF8.self).split(separator: "\n")
    }

    struct InteropFailure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    @Test(arguments: 0..<6)
    func zfecAndOursAgreeBothWays(shape: Int) throws {
        let (k, m, length) = Self.shapes[shape]
        var random = SeededBytes(state: UInt64(0x5510 + shape))
        let sources = random.window(k: k, length: length)
        let math = RFC5510ReedSolomonMath()
        let ours = try math.encode(sourceCount: k, repairCount: m, symbolLength: length, sources: sources)
        #expect(ours == RFC5510Generator.encode(sources: sources, repairCount: m), "ISA-L tables and the pure-Swift generator agree")

        var input = "\(k) \(m) \(length)\n"
        for block in sources + ours { input += Self.hex(block) + "\n" }
        let lines = try Self.zfec(input)
        try #require(lines.count == m + k, "zfec printed \(lines.count) lines")
        let theirs = lines[0..<m].map { Self.unhex($0) }
        #expect(theirs == ours, "zfec's repair symbols are byte-identical to ours (k \(k), m \(m))")
        let decodedByZfec = lines[m...].map { Self.unhex($0) }
        #expect(decodedByZfec == sources, "zfec decodes our repairs")

        // We decode zfec's repairs: the last min(k, m) sources lost, repairs from the end.
        let lost = min(k, m)
        var received: [Int: [UInt8]] = [:]
        for j in 0..<(k - lost) { received[j] = sources[j] }
        for r in (m - lost)..<m { received[k + r] = theirs[r] }
        let rebuilt = try math.reconstruct(sourceCount: k, repairCount: m, symbolLength: length, received: received)
        for j in (k - lost)..<k { #expect(rebuilt[j] == sources[j], "source \(j) rebuilt from zfec's repairs") }
    }

    @Test func generatorIsSystematicVandermonde() throws {
        // k = 2: V rows are e^0, e^1 for e = 0, α^0, α^1, …; V_top = [[1,0],[1,1]] is its own
        // inverse, so row i ≥ 2 is (1 + e_i, e_i) with e_i = α^(i−1).
        let g = try #require(RFC5510Generator.matrix(sourceCount: 2, repairCount: 3))
        #expect(Array(g[0..<4]) == [1, 0, 0, 1])
        let rows: [[UInt8]] = [[1 ^ 2, 2], [1 ^ 4, 4], [1 ^ 8, 8]]   // e_2 = α = 2, e_3 = α^2, e_4 = α^3
        #expect(Array(g[4..<6]) == rows[0])
        #expect(Array(g[6..<8]) == rows[1])
        #expect(Array(g[8..<10]) == rows[2])
        #expect(RFC5510Generator.matrix(sourceCount: 200, repairCount: 56) == nil, "n ≤ 255")
        let codec = try ReedSolomonCodec(sourceCount: 2, repairCount: 3, generator: g)
        #expect(codec.coefficient(row: 3, source: 0) == 5)
    }
}
