import Testing
import TestSupport
@testable import GrandstandCore

/// The pure-Swift inflater against python3's zlib output (tools/fixtures/make-discovery-fixtures.py):
/// stored (level 0), fixed-Huffman (Z_FIXED) and dynamic-Huffman (levels 1 and 9) blocks.
struct DiscoveryInflateTests {
    static let cases = ["text", "noise", "runs", "empty"].flatMap { name in ["0", "1", "9", "fixed"].map { (name, $0) } }

    @Test(arguments: cases)
    func inflatesPythonZlib(name: String, level: String) throws {
        let expected = try CoreFixtures.bytes("discovery/inflate-\(name).raw")
        let compressed = try CoreFixtures.bytes("discovery/inflate-\(name)-\(level).zz")
        #expect(try Inflate.zlib(compressed[...]) == expected)
    }

    @Test func everyTruncationFails() throws {
        for level in ["0", "9", "fixed"] {
            let compressed = try CoreFixtures.bytes("discovery/inflate-text-\(level).zz")
            for end in stride(from: 0, to: compressed.count, by: TestEnvironment.sweepStep) {
                #expect(throws: Inflate.Failure.self) { try Inflate.zlib(compressed[..<end]) }
            }
        }
    }

    @Test func detectsCorruptionAndBounds() throws {
        var compressed = try CoreFixtures.bytes("discovery/inflate-text-9.zz")
        var badSum = compressed
        badSum[badSum.count - 1] ^= 1
        #expect(thrownError(Inflate.Failure.self) { try Inflate.zlib(badSum[...]) } == .checksumMismatch)
        #expect(thrownError(Inflate.Failure.self) { try Inflate.zlib(compressed[...], limit: 100) } == .outputLimit)
        compressed[1] ^= 1
        #expect(thrownError(Inflate.Failure.self) { try Inflate.zlib(compressed[...]) } == .badZlibHeader)
        // BTYPE 3 is reserved: first byte after the header is BFINAL=1, BTYPE=11.
        #expect(thrownError(Inflate.Failure.self) { try Inflate.zlib([0x78, 0x9C, 0x07, 0, 0][...]) } == .invalidBlockType)
        // A stored block whose NLEN is not the complement of LEN.
        #expect(thrownError(Inflate.Failure.self) { try Inflate.raw([0x01, 0x02, 0x00, 0x00, 0x00, 0x41, 0x42][...]) } == .storedLengthMismatch)
        // Fixed Huffman: BFINAL, BTYPE=01, length symbol 257 (0000001), distance code 0 → distance 1 with no output yet.
        #expect(thrownError(Inflate.Failure.self) { try Inflate.raw([0x03, 0x02][...]) } == .distanceTooFar)
    }

    /// Flipping any single byte of a compressed stream fails cleanly or yields other bytes
    /// (caught by Adler-32): never a trap, never unbounded output.
    @Test func bitFlipsNeverTrap() throws {
        let compressed = try CoreFixtures.bytes("discovery/inflate-runs-9.zz")
        let expected = try CoreFixtures.bytes("discovery/inflate-runs.raw")
        for i in stride(from: 0, to: compressed.count, by: TestEnvironment.sweepStep) {
            var mutated = compressed
            mutated[i] ^= 0x5A
            if let out = try? Inflate.zlib(mutated[...], limit: 1 << 16) { #expect(out == expected, "byte \(i)") }
        }
    }

    @Test func adler32KnownValue() {
        // RFC 1950 example value for "Wikipedia" (well-known: 0x11E60398).
        #expect(Inflate.adler32(Array("Wikipedia".utf8)) == 0x11E6_0398)
    }
}
