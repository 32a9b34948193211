/// One LCT header extension (RFC 5651 §5.2). HET 0…127 are variable length (HEL in 32-bit
/// words, ≥ 1, including HET and HEL); HET 128…255 are one 32-bit word.
public enum LCTExtension: Sendable, Equatable {
    /// EXT_NOP (0): no-operation, `words` 32-bit words in all (contents ignored).
    case nop(words: Int)
    /// EXT_AUTH (1): authentication data, not verified.
    case auth([UInt8])
    /// EXT_TIME (2, RFC 5651 §5.2.2): kept raw.
    case time([UInt8])
    /// EXT_FTI (64, RFC 5775 §4.2): the FEC Object Transmission Information after HET/HEL
    /// (its layout depends on the FEC Encoding ID, `FECObjectInfo`).
    case fti([UInt8])
    /// EXT_FDT (192, RFC 6726 §3.4.1): FLUTE version (4 bits) and FDT Instance ID (20 bits).
    case fdt(version: UInt8, instanceID: UInt32)
    /// EXT_CENC (193, RFC 6726 §3.4.3): content encoding (0 null, 1 ZLIB, 2 DEFLATE, 3 GZIP).
    case contentEncoding(UInt8)
    /// Any other extension: type and contents after HET (and HEL for variable ones).
    case other(type: UInt8, contents: [UInt8])

    public static let nopType: UInt8 = 0, authType: UInt8 = 1, timeType: UInt8 = 2
    public static let ftiType: UInt8 = 64, fdtType: UInt8 = 192, cencType: UInt8 = 193

    /// Every extension in `area` (exactly HDR_LEN minus the fixed part), nil when one is cut off
    /// or has HEL = 0.
    static func parseAll(_ area: ArraySlice<UInt8>) -> [LCTExtension]? {
        var result: [LCTExtension] = []
        var offset = 0
        while offset < area.count {
            guard let het = area.octet(at: offset) else { return nil }
            if het >= 128 {
                guard let body = area.bytes(at: offset + 1, length: 3) else { return nil }
                switch het {
                case fdtType:
                    let id = UInt32(body[body.startIndex] & 0x0F) << 16 | UInt32(body[body.startIndex + 1]) << 8 | UInt32(body[body.startIndex + 2])
                    result.append(.fdt(version: body[body.startIndex] >> 4, instanceID: id))
                case cencType:
                    result.append(.contentEncoding(body[body.startIndex]))
                default:
                    result.append(.other(type: het, contents: Array(body)))
                }
                offset += 4
            } else {
                guard let hel = area.octet(at: offset + 1), hel > 0,
                      let body = area.bytes(at: offset + 2, length: Int(hel) * 4 - 2) else { return nil }
                switch het {
                case nopType: result.append(.nop(words: Int(hel)))
                case authType: result.append(.auth(Array(body)))
                case timeType: result.append(.time(Array(body)))
                case ftiType: result.append(.fti(Array(body)))
                default: result.append(.other(type: het, contents: Array(body)))
                }
                offset += Int(hel) * 4
            }
        }
        return result
    }

    /// Appends the extension; variable contents are zero-padded to a whole number of words.
    func encode(into out: inout [UInt8]) {
        func variable(_ type: UInt8, _ contents: [UInt8]) {
            let words = max(1, (contents.count + 2 + 3) / 4)
            out.append(type)
            out.append(UInt8(truncatingIfNeeded: words))
            out.append(contentsOf: contents)
            out.append(contentsOf: [UInt8](repeating: 0, count: words * 4 - 2 - contents.count))
        }
        switch self {
        case .nop(let words): variable(Self.nopType, [UInt8](repeating: 0, count: max(1, words) * 4 - 2))
        case .auth(let bytes): variable(Self.authType, bytes)
        case .time(let bytes): variable(Self.timeType, bytes)
        case .fti(let bytes): variable(Self.ftiType, bytes)
        case .fdt(let version, let id):
            out.append(Self.fdtType)
            out.append((version << 4) | UInt8((id >> 16) & 0x0F))
            out.append(UInt8(truncatingIfNeeded: id >> 8))
            out.append(UInt8(truncatingIfNeeded: id))
        case .contentEncoding(let algorithm):
            out.append(contentsOf: [Self.cencType, algorithm, 0, 0])
        case .other(let type, let contents):
            if type >= 128 {
                out.append(type)
                out.append(contentsOf: (contents + [0, 0, 0]).prefix(3))
            } else {
                variable(type, contents)
            }
        }
    }
}
