/// FEC Object Transmission Information (RFC 5052 §6.2) for the two schemes Grandstand reads:
/// Compact No-Code (FEC Encoding ID 0, RFC 5445 §3) and Reed-Solomon over GF(2^8) (ID 5,
/// RFC 5510 §5). Carried in EXT_FTI and/or the FDT's FEC-OTI attributes.
public struct FECObjectInfo: Sendable, Equatable {
    public static let compactNoCode: UInt8 = 0
    public static let reedSolomonGF256: UInt8 = 5

    public var encodingID: UInt8
    /// Transfer-Length: octets of the object as transported (< 2^48).
    public var transferLength: UInt64
    /// Encoding-Symbol-Length E in octets (> 0).
    public var symbolLength: Int
    /// Maximum-Source-Block-Length B in symbols (> 0; ≤ 255 for ID 5).
    public var maxSourceBlockLength: Int
    /// ID 5 only: max_n, the most encoding symbols of any block (B ≤ max_n ≤ 255).
    public var maxEncodingSymbols: Int

    public init(encodingID: UInt8, transferLength: UInt64, symbolLength: Int, maxSourceBlockLength: Int,
                maxEncodingSymbols: Int? = nil) {
        self.encodingID = encodingID
        self.transferLength = transferLength
        self.symbolLength = symbolLength
        self.maxSourceBlockLength = maxSourceBlockLength
        self.maxEncodingSymbols = maxEncodingSymbols ?? maxSourceBlockLength
    }

    /// Whether the values are usable: a supported ID, E > 0, B > 0, and for ID 5 B ≤ max_n ≤ 255.
    public var isValid: Bool {
        guard symbolLength > 0, maxSourceBlockLength > 0, transferLength < 1 << 48 else { return false }
        switch encodingID {
        case Self.compactNoCode: return maxSourceBlockLength <= 0xFFFF_FFFF
        case Self.reedSolomonGF256: return maxSourceBlockLength <= maxEncodingSymbols && maxEncodingSymbols <= 255
        default: return false
        }
    }

    /// Parses EXT_FTI contents (after HET/HEL) for `encodingID`.
    /// ID 0: TL(48) · reserved(16) · E(16) · B(32) — HEL 4. ID 5: TL(48) · E(16) · B(8) · max_n(8) — HEL 3.
    public static func parse(fti: [UInt8], encodingID: UInt8) -> FECObjectInfo? {
        let bytes = fti[...]
        guard let hi = bytes.be16(at: 0), let lo = bytes.be32(at: 2) else { return nil }
        let length = UInt64(hi) << 32 | UInt64(lo)
        switch encodingID {
        case compactNoCode:
            guard let e = bytes.be16(at: 8), let b = bytes.be32(at: 10) else { return nil }
            return FECObjectInfo(encodingID: 0, transferLength: length, symbolLength: Int(e), maxSourceBlockLength: Int(b))
        case reedSolomonGF256:
            guard let e = bytes.be16(at: 6), let b = bytes.octet(at: 8), let n = bytes.octet(at: 9) else { return nil }
            return FECObjectInfo(encodingID: 5, transferLength: length, symbolLength: Int(e), maxSourceBlockLength: Int(b),
                                 maxEncodingSymbols: Int(n))
        default:
            return nil
        }
    }

    /// The EXT_FTI extension for this OTI.
    public var ftiExtension: LCTExtension {
        var out: [UInt8] = []
        for shift in stride(from: 40, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: transferLength >> UInt64(shift))) }
        if encodingID == Self.reedSolomonGF256 {
            out.append(contentsOf: [UInt8(truncatingIfNeeded: symbolLength >> 8), UInt8(truncatingIfNeeded: symbolLength),
                                    UInt8(truncatingIfNeeded: maxSourceBlockLength), UInt8(truncatingIfNeeded: maxEncodingSymbols)])
        } else {
            out.append(contentsOf: [0, 0, UInt8(truncatingIfNeeded: symbolLength >> 8), UInt8(truncatingIfNeeded: symbolLength)])
            for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: maxSourceBlockLength >> shift)) }
        }
        return .fti(out)
    }

    /// Bytes of the FEC Payload ID in each ALC packet: 4 for both schemes
    /// (ID 0: SBN 16 · ESI 16; ID 5: SBN 24 · ESI 8).
    public static let payloadIDSize = 4

    /// One source block of the partitioning: its first source symbol and its source count k,
    /// and (ID 5) its encoding symbol count n.
    public struct Block: Sendable, Equatable {
        public var firstSymbol: Int
        public var sourceSymbols: Int
        public var encodingSymbols: Int
    }

    /// The blocking algorithm of RFC 5052 §9.1: T = ⌈L/E⌉ source symbols in N = ⌈T/B⌉ blocks,
    /// the first I = T − ⌊T/N⌋·N of ⌈T/N⌉ symbols, the rest of ⌊T/N⌋. For ID 5 each block of k
    /// sources has n = ⌊k · max_n / B⌋ encoding symbols (RFC 5510 §5.? "n_r"), at least k.
    /// Nil when the partitioning needs more blocks than the Payload ID can number.
    public var blocks: [Block]? {
        guard isValid else { return nil }
        let t = Int((transferLength + UInt64(symbolLength) - 1) / UInt64(symbolLength))
        if t == 0 { return [] }
        let b = maxSourceBlockLength
        let n = (t + b - 1) / b
        let maxBlocks = encodingID == Self.reedSolomonGF256 ? 1 << 24 : 1 << 16
        guard n <= maxBlocks else { return nil }
        let large = (t + n - 1) / n, small = t / n
        let bigCount = t - small * n
        var result: [Block] = []
        result.reserveCapacity(n)
        var first = 0
        for index in 0..<n {
            let k = index < bigCount ? large : small
            let total = encodingID == Self.reedSolomonGF256 ? max(k, min(255, k * maxEncodingSymbols / b)) : k
            result.append(Block(firstSymbol: first, sourceSymbols: k, encodingSymbols: total))
            first += k
        }
        return result
    }
}
