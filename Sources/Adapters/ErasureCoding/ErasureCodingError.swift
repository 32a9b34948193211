/// Why a Reed-Solomon or GF(2^8) operation was refused or failed, with the operation's name.
public struct ErasureCodingError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Reason: Equatable, Sendable {
        /// k and m must satisfy 1 ≤ k, 1 ≤ m, k + m ≤ 255.
        case invalidParameters(sourceCount: Int, repairCount: Int)
        /// `encode` needs exactly k source symbols.
        case wrongSourceCount(expected: Int, got: Int)
        /// An output list (repairs to fill, sources to rebuild) of the wrong size.
        case wrongOutputCount(expected: Int, got: Int)
        /// Every symbol of a window has the same length.
        case lengthMismatch(index: Int, expected: Int, got: Int)
        /// A symbol index outside 0..<(k + m).
        case indexOutOfRange(index: Int, symbolCount: Int)
        /// Fewer than k distinct symbols arrived: MDS recovery needs received ≥ k.
        case tooFewSymbols(received: Int, needed: Int)
        /// ISA-L's gf_invert_matrix found the survivors' rows singular (never for Cauchy rows).
        case singularMatrix(rows: [Int])
    }

    public let operation: String
    public let reason: Reason
    /// ISA-L's return code where the library gave one (gf_invert_matrix), else 0.
    public let code: Int32

    public init(_ operation: String, _ reason: Reason, code: Int32 = 0) {
        self.operation = operation
        self.reason = reason
        self.code = code
    }

    public var description: String {
        let what: String
        switch reason {
        case let .invalidParameters(k, m):
            what = "k=\(k) sources and m=\(m) repairs: need k ≥ 1, m ≥ 1 and k + m ≤ 255"
        case let .wrongSourceCount(expected, got):
            what = "expected \(expected) source symbols, got \(got)"
        case let .wrongOutputCount(expected, got):
            what = "expected \(expected) output buffers, got \(got)"
        case let .lengthMismatch(index, expected, got):
            what = "symbol \(index) is \(got) bytes, expected \(expected)"
        case let .indexOutOfRange(index, count):
            what = "symbol index \(index) outside 0..<\(count)"
        case let .tooFewSymbols(received, needed):
            what = "received \(received) symbols, need at least \(needed) to recover the window"
        case let .singularMatrix(rows):
            what = "decode matrix from rows \(rows) is singular (gf_invert_matrix returned \(code))"
        }
        return "\(operation): \(what)"
    }
}
