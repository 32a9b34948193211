/// SHA-256 (FIPS 180-4), streaming: verifies origin hashes and names stored objects by content.
///
/// The block function reads words through raw pointers and keeps the state in locals, with only
/// operators the compiler inlines even without optimization: test builds (debug, and debug under
/// qemu-user) hash every stored object, and a generic call per operation made hashing there ~20×
/// slower than the arithmetic.
public struct SHA256: Sendable {
    /// FIPS 180-4 §4.2.2: the first 32 bits of the fractional parts of the cube roots of the first
    /// 64 primes.
    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]
    /// FIPS 180-4 §5.3.3: the initial hash value.
    private var h: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
    /// The bytes of an unfinished block, fewer than 64.
    private var buffer: [UInt8] = []
    private var length: UInt64 = 0

    public init() { buffer.reserveCapacity(64) }

    public mutating func update(_ bytes: some Collection<UInt8>) {
        length &+= UInt64(bytes.count)
        let done: Void? = bytes.withContiguousStorageIfAvailable { absorb(UnsafeRawBufferPointer($0)) }
        guard done == nil else { return }
        Array(bytes).withUnsafeBytes { absorb($0) }
    }

    /// Fills the pending block first, then compresses whole blocks straight from the input.
    private mutating func absorb(_ input: UnsafeRawBufferPointer) {
        guard let base = input.baseAddress, input.count > 0 else { return }
        var offset = 0
        if !buffer.isEmpty {
            offset = min(64 - buffer.count, input.count)
            buffer.append(contentsOf: UnsafeRawBufferPointer(start: base, count: offset))
            guard buffer.count == 64 else { return }
            compressBuffer()
        }
        let blocks = (input.count - offset) / 64
        if blocks > 0 { compress(base + offset, blocks: blocks) }
        offset += blocks * 64
        buffer.append(contentsOf: UnsafeRawBufferPointer(start: base + offset, count: input.count - offset))
    }

    private mutating func compressBuffer() {
        let block = buffer
        block.withUnsafeBytes { compress($0.baseAddress!, blocks: 1) }
        buffer.removeAll(keepingCapacity: true)
    }

    /// The digest as 64 lowercase hex digits (FIPS 180-4 §5.1.1 padding).
    public mutating func finalizeHex() -> String {
        let bits = length &* 8
        buffer.append(0x80)
        if buffer.count > 56 {
            while buffer.count < 64 { buffer.append(0) }
            compressBuffer()
        }
        while buffer.count < 56 { buffer.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { buffer.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        compressBuffer()
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for word in h {
            for shift in stride(from: 28, through: 0, by: -4) { out.append(digits[Int((word >> UInt32(shift)) & 0xF)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func hex(_ bytes: some Collection<UInt8>) -> String {
        var hash = SHA256()
        hash.update(bytes)
        return hash.finalizeHex()
    }

    /// `blocks` 64-byte blocks from `input` (FIPS 180-4 §6.2.2).
    private mutating func compress(_ input: UnsafeRawPointer, blocks: Int) {
        var h0 = h[0], h1 = h[1], h2 = h[2], h3 = h[3], h4 = h[4], h5 = h[5], h6 = h[6], h7 = h[7]
        Self.k.withUnsafeBufferPointer { constants in
            let k = constants.baseAddress!
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
                let w = schedule.baseAddress!
                let bytes = input.assumingMemoryBound(to: UInt8.self)
                var block = 0
                while block < blocks {
                    let p = bytes + block &* 64
                    var i = 0
                    while i < 16 {
                        let q = p + i &* 4
                        w[i] = UInt32(q[0]) &<< 24 | UInt32(q[1]) &<< 16 | UInt32(q[2]) &<< 8 | UInt32(q[3])
                        i &+= 1
                    }
                    while i < 64 {
                        let x = w[i &- 15], y = w[i &- 2]
                        let s0 = (x &>> 7 | x &<< 25) ^ (x &>> 18 | x &<< 14) ^ (x &>> 3)
                        let s1 = (y &>> 17 | y &<< 15) ^ (y &>> 19 | y &<< 13) ^ (y &>> 10)
                        w[i] = w[i &- 16] &+ s0 &+ w[i &- 7] &+ s1
                        i &+= 1
                    }
                    var a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, hh = h7
                    i = 0
                    while i < 64 {
                        let s1 = (e &>> 6 | e &<< 26) ^ (e &>> 11 | e &<< 21) ^ (e &>> 25 | e &<< 7)
                        let t1 = hh &+ s1 &+ ((e & f) ^ (~e & g)) &+ k[i] &+ w[i]
                        let s0 = (a &>> 2 | a &<< 30) ^ (a &>> 13 | a &<< 19) ^ (a &>> 22 | a &<< 10)
                        let t2 = s0 &+ ((a & b) ^ (a & c) ^ (b & c))
                        hh = g; g = f; f = e; e = d &+ t1; d = c; c = b; b = a; a = t1 &+ t2
                        i &+= 1
                    }
                    h0 &+= a; h1 &+= b; h2 &+= c; h3 &+= d; h4 &+= e; h5 &+= f; h6 &+= g; h7 &+= hh
                    block &+= 1
                }
            }
        }
        h[0] = h0; h[1] = h1; h[2] = h2; h[3] = h3; h[4] = h4; h[5] = h5; h[6] = h6; h[7] = h7
    }
}
