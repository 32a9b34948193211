/// Grandstand's Reed-Solomon repair-packet header (version 1), carried after the repair packet's
/// 12-byte RTP header on the repair flow. Byte layout in docs/protocol.md; all fields big-endian.
///
///     0: version (4 bits, = 1) | reserved (4 bits, = 0)
///     1: k, source packets in the window (1...254)
///     2: m, repair packets in the window (1...254)
///     3: repair index r (0..<m); the repair is symbol k + r
///     4–7:   window id (increments by one per window, wraps)
///     8–9:   RTP sequence number of the window's first source (sources are consecutive)
///     10–11: symbol length S (bytes of repair data after this header)
///     12–15: SSRC of the protected source stream
///     16–19: CRC-32C of the repair symbol (checked before the symbol is used)
public struct ReedSolomonRepairHeader: Sendable, Equatable {
    public static let version: UInt8 = 1
    public static let size = 20
    /// Each source's symbol is its length (2 bytes) followed by the whole RTP packet, zero-padded.
    public static let symbolOverhead = 2

    public var sourceCount: Int
    public var repairCount: Int
    public var repairIndex: Int
    public var windowID: UInt32
    public var sequenceBase: UInt16
    public var symbolLength: Int
    public var ssrc: UInt32
    /// CRC-32C of the repair symbol.
    public var symbolChecksum: UInt32

    public init(sourceCount: Int, repairCount: Int, repairIndex: Int, windowID: UInt32, sequenceBase: UInt16,
                symbolLength: Int, ssrc: UInt32, symbolChecksum: UInt32) {
        self.sourceCount = sourceCount
        self.repairCount = repairCount
        self.repairIndex = repairIndex
        self.windowID = windowID
        self.sequenceBase = sequenceBase
        self.symbolLength = symbolLength
        self.ssrc = ssrc
        self.symbolChecksum = symbolChecksum
    }

    /// CRC-32C of `symbol`, the value of `symbolChecksum` for an intact repair.
    public static func checksum(of symbol: some Collection<UInt8>) -> UInt32 { CRC32C.checksum(symbol) }

    /// Why a repair packet was refused.
    public enum ParseError: Error, Sendable, Equatable {
        case truncated
        case notRTP
        case unsupportedVersion(UInt8)
        case reservedBitsSet
        case impossibleShape(k: Int, m: Int, index: Int)
        case lengthMismatch(declared: Int, actual: Int)
        case emptySymbol
    }

    /// Parses a whole repair RTP packet: header plus the repair symbol (a slice of `packet`).
    /// k + m > 255 parses (the receiver counts it as `window_error`); k, m = 0 or r ≥ m do not.
    public static func parse(packet: ArraySlice<UInt8>) -> Result<(ReedSolomonRepairHeader, ArraySlice<UInt8>), ParseError> {
        guard RTPFields(packet) != nil else { return .failure(packet.count < 12 ? .truncated : .notRTP) }
        guard let body = packet.suffix(from: 12) else { return .failure(.truncated) }
        return parse(body: body)
    }

    /// Parses the repair header at the start of `body` (the repair packet's RTP payload).
    public static func parse(body: ArraySlice<UInt8>) -> Result<(ReedSolomonRepairHeader, ArraySlice<UInt8>), ParseError> {
        guard let first = body.octet(at: 0), let k = body.octet(at: 1), let m = body.octet(at: 2),
              let index = body.octet(at: 3), let id = body.be32(at: 4), let base = body.be16(at: 8),
              let length = body.be16(at: 10), let ssrc = body.be32(at: 12),
              let crc = body.be32(at: 16) else { return .failure(.truncated) }
        guard first >> 4 == version else { return .failure(.unsupportedVersion(first >> 4)) }
        guard first & 0x0F == 0 else { return .failure(.reservedBitsSet) }
        guard k >= 1, m >= 1, index < m else { return .failure(.impossibleShape(k: Int(k), m: Int(m), index: Int(index))) }
        guard length > 0 else { return .failure(.emptySymbol) }
        let symbol = body.suffix(from: size) ?? []
        guard symbol.count == Int(length) else { return .failure(.lengthMismatch(declared: Int(length), actual: symbol.count)) }
        let header = ReedSolomonRepairHeader(sourceCount: Int(k), repairCount: Int(m), repairIndex: Int(index), windowID: id,
                                             sequenceBase: base, symbolLength: Int(length), ssrc: ssrc, symbolChecksum: crc)
        return .success((header, symbol))
    }

    /// The 16 header bytes.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(Self.size)
        out.append(Self.version << 4)
        out.append(UInt8(truncatingIfNeeded: sourceCount))
        out.append(UInt8(truncatingIfNeeded: repairCount))
        out.append(UInt8(truncatingIfNeeded: repairIndex))
        out.appendBE32(windowID)
        out.appendBE16(sequenceBase)
        out.appendBE16(UInt16(truncatingIfNeeded: symbolLength))
        out.appendBE32(ssrc)
        out.appendBE32(symbolChecksum)
        return out
    }

    /// A source packet's symbol: its length, the packet, zeros up to `symbolLength`.
    static func symbol(for packet: [UInt8], symbolLength: Int) -> [UInt8] {
        var symbol: [UInt8] = []
        symbol.reserveCapacity(symbolLength)
        symbol.appendBE16(UInt16(truncatingIfNeeded: packet.count))
        symbol.append(contentsOf: packet)
        if symbol.count < symbolLength { symbol.append(contentsOf: repeatElement(0, count: symbolLength - symbol.count)) }
        return symbol
    }

    /// The RTP packet inside a rebuilt symbol, if the symbol is well-formed: a plausible length
    /// and zero padding. The caller checks the RTP fields against the window.
    static func packet(inSymbol symbol: ArraySlice<UInt8>) -> [UInt8]? {
        guard let length = symbol.be16(at: 0).map(Int.init), length >= 12, 2 + length <= symbol.count else { return nil }
        let start = symbol.startIndex
        for byte in symbol[(start + 2 + length)...] where byte != 0 { return nil }
        return Array(symbol[(start + 2)..<(start + 2 + length)])
    }
}
