import CGSISAL

// GF(2^8) with ISA-L's field polynomial x^8 + x^4 + x^3 + x^2 + 1 (0x11D).

/// a · b in GF(2^8) (ISA-L gf_mul).
public func gfMultiply(_ a: UInt8, _ b: UInt8) -> UInt8 { gf_mul(a, b) }

/// The b with a · b = 1 (ISA-L gf_inv); 0 for a = 0, which has no inverse.
public func gfInverse(_ a: UInt8) -> UInt8 { a == 0 ? 0 : gf_inv(a) }

/// destination[i] ^= coefficient · source[i] over GF(2^8), with ISA-L's SIMD gf_vect_mad.
/// This is the one-packet-at-a-time building block of encoding and repair.
public func gfMultiplyAccumulate(_ coefficient: UInt8, source: [UInt8], into destination: inout [UInt8]) throws {
    guard source.count == destination.count else {
        throw ErasureCodingError("gfMultiplyAccumulate", .lengthMismatch(index: 0, expected: destination.count, got: source.count))
    }
    guard !source.isEmpty else { return }
    var table = [UInt8](repeating: 0, count: 32)
    gf_vect_mul_init(coefficient, &table)
    let length = Int32(clamping: source.count)
    source.withUnsafeBufferPointer { src in
        destination.withUnsafeMutableBufferPointer { dst in
            let input = UnsafeMutablePointer(mutating: src.baseAddress!)
            // The SIMD versions need at least 64 bytes (shorter inputs are silently ignored).
            if source.count >= 64 {
                gf_vect_mad(length, 1, 0, &table, input, dst.baseAddress!)
            } else {
                gf_vect_mad_base(length, 1, 0, &table, input, dst.baseAddress!)
            }
        }
    }
}

/// Calls `body` with stable pointers to the storage of every array in `arrays` (no copies).
/// ISA-L takes `unsigned char **` for inputs it only reads, hence the mutable pointer type.
func withPinnedPointers<R>(_ arrays: [[UInt8]], _ body: ([UnsafeMutablePointer<UInt8>?]) throws -> R) throws -> R {
    var pointers: [UnsafeMutablePointer<UInt8>?] = []
    pointers.reserveCapacity(arrays.count)
    func pin(_ index: Int) throws -> R {
        guard index < arrays.count else { return try body(pointers) }
        return try arrays[index].withUnsafeBufferPointer { buffer in
            pointers.append(buffer.baseAddress.map { UnsafeMutablePointer(mutating: $0) })
            return try pin(index + 1)
        }
    }
    return try pin(0)
}
