import Foundation
import TestSupport

/// Fixture files for the core's packet and discovery tests (tools/fixtures/make-discovery-fixtures.py).
enum CoreFixtures {
    static func bytes(_ relative: String) throws -> [UInt8] { try Fixtures.bytes(relative) }

    static func text(_ relative: String) throws -> String {
        String(decoding: try bytes(relative), as: UTF8.self)
    }

    /// The frames of a classic little-endian pcap file (microsecond timestamps) and its link type.
    static func pcapFrames(_ relative: String) throws -> (linkType: Int32, frames: [(Int64, [UInt8])]) {
        let data = try bytes(relative)
        func le32(_ at: Int) -> UInt32 { (0..<4).reduce(UInt32(0)) { $0 | UInt32(data[at + $1]) << (8 * UInt32($1)) } }
        guard data.count >= 24, le32(0) == 0xA1B2C3D4 else { throw CocoaError(.fileReadCorruptFile) }
        var frames: [(Int64, [UInt8])] = []
        var offset = 24
        while offset + 16 <= data.count {
            let ns = Int64(le32(offset)) * 1_000_000_000 + Int64(le32(offset + 4)) * 1000
            let length = Int(le32(offset + 8))
            guard offset + 16 + length <= data.count else { throw CocoaError(.fileReadCorruptFile) }
            frames.append((ns, Array(data[(offset + 16)..<(offset + 16 + length)])))
            offset += 16 + length
        }
        return (Int32(bitPattern: le32(20)), frames)
    }
}
