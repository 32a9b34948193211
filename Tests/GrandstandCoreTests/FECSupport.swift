@testable import GrandstandCore

/// A small pure-Swift Reed-Solomon over GF(2^8) (polynomial 0x11D) with ISA-L's Cauchy generator
/// (repair row k + r, source j: 1 / ((k + r) ⊕ j)), so the core's windows are tested without a C
/// library; tests/ErasureCodingTests run the same windows through ISA-L.
final class ReferenceReedSolomon: ReedSolomonMath, Sendable {
    static let exp: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 512)
        var x = 1
        for i in 0..<255 {
            table[i] = UInt8(x)
            x <<= 1
            if x & 0x100 != 0 { x ^= 0x11D }
        }
        for i in 255..<512 { table[i] = table[i - 255] }
        return table
    }()
    static let log: [Int] = {
        var table = [Int](repeating: 0, count: 256)
        for i in 0..<255 { table[Int(exp[i])] = i }
        return table
    }()

    static func mul(_ a: UInt8, _ b: UInt8) -> UInt8 {
        a == 0 || b == 0 ? 0 : exp[log[Int(a)] + log[Int(b)]]
    }
    static func inv(_ a: UInt8) -> UInt8 { exp[255 - log[Int(a)]] }

    static func row(_ index: Int, k: Int) -> [UInt8] {
        index < k ? (0..<k).map { $0 == index ? 1 : 0 } : (0..<k).map { inv(UInt8(index ^ $0)) }
    }

    func encode(sourceCount k: Int, repairCount m: Int, symbolLength: Int, sources: [[UInt8]]) throws -> [[UInt8]] {
        (0..<m).map { r in
            let coefficients = Self.row(k + r, k: k)
            var out = [UInt8](repeating: 0, count: symbolLength)
            for (j, source) in sources.enumerated() {
                for i in 0..<symbolLength { out[i] ^= Self.mul(coefficients[j], source[i]) }
            }
            return out
        }
    }

    struct Singular: Error {}

    func reconstruct(sourceCount k: Int, repairCount m: Int, symbolLength: Int, received: [Int: [UInt8]]) throws -> [Int: [UInt8]] {
        let indices = received.keys.sorted().prefix(k)
        guard indices.count == k else { throw Singular() }
        // Gauss-Jordan on [A | symbols]: A's rows are the generator rows of the survivors.
        var a = indices.map { Self.row($0, k: k) }
        var b = indices.map { received[$0]! }
        for col in 0..<k {
            guard let pivot = (col..<k).first(where: { a[$0][col] != 0 }) else { throw Singular() }
            a.swapAt(col, pivot)
            b.swapAt(col, pivot)
            let scale = Self.inv(a[col][col])
            a[col] = a[col].map { Self.mul($0, scale) }
            b[col] = b[col].map { Self.mul($0, scale) }
            for r in 0..<k where r != col && a[r][col] != 0 {
                let f = a[r][col]
                for c in 0..<k { a[r][c] ^= Self.mul(f, a[col][c]) }
                for i in 0..<symbolLength { b[r][i] ^= Self.mul(f, b[col][i]) }
            }
        }
        var out: [Int: [UInt8]] = [:]
        for s in 0..<k where received[s] == nil { out[s] = b[s] }
        return out
    }
}

/// Deterministic RTP packets for FEC tests: MPEG-TS payloads (n × 188 bytes with sync bytes).
enum FECPackets {
    static func rtp(sequence: UInt16, timestamp: UInt32 = 0, ssrc: UInt32 = 0x1234_5678, payloadType: UInt8 = 33,
                    marker: Bool = false, tsPackets: Int = 7, seed: UInt64 = 0) -> [UInt8] {
        var packet: [UInt8] = [0x80, (marker ? 0x80 : 0) | payloadType]
        packet.appendBE16(sequence)
        packet.appendBE32(timestamp)
        packet.appendBE32(ssrc)
        var state = seed &+ UInt64(sequence) &* 0x9E37_79B9_7F4A_7C15
        for _ in 0..<tsPackets {
            packet.append(0x47)
            for _ in 1..<188 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                packet.append(UInt8(truncatingIfNeeded: state >> 33))
            }
        }
        return packet
    }

    static func stream(count: Int, firstSequence: UInt16 = 100, tsPackets: (Int) -> Int = { _ in 7 }) -> [[UInt8]] {
        (0..<count).map { i in
            rtp(sequence: firstSequence &+ UInt16(truncatingIfNeeded: i), timestamp: 9000 &* UInt32(i),
                marker: i % 5 == 4, tsPackets: tsPackets(i))
        }
    }
}

/// What a decoder emitted, split by kind.
struct FECOutput {
    var delivered: [FECDeliveredPacket] = []
    var lost: [UInt16] = []
    var windows: [FECWindowReport] = []

    mutating func add(_ actions: [FECAction]) {
        for action in actions {
            switch action {
            case let .deliver(packet): delivered.append(packet)
            case let .lost(first, count, _): lost += (0..<count).map { first &+ UInt16($0) }
            case let .windowClosed(report): windows.append(report)
            }
        }
    }

    var sequences: [UInt16] { delivered.map(\.sequenceNumber) }
    var results: [FECWindowResult] { windows.map(\.result) }
}
