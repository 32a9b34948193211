/// An ALC packet (RFC 5775 §4): LCT header, FEC Payload ID, one encoding symbol.
public struct ALCPacket: Sendable, Equatable {
    public var header: LCTHeader
    public var sourceBlockNumber: UInt32
    public var encodingSymbolID: UInt32
    public var symbol: ArraySlice<UInt8>

    public init(header: LCTHeader, sourceBlockNumber: UInt32, encodingSymbolID: UInt32, symbol: ArraySlice<UInt8>) {
        self.header = header
        self.sourceBlockNumber = sourceBlockNumber
        self.encodingSymbolID = encodingSymbolID
        self.symbol = symbol
    }

    /// Parses an ALC packet whose FEC Payload ID follows `encodingID` (0: SBN 16 · ESI 16;
    /// 5: SBN 24 · ESI 8). A packet without symbol bytes is malformed unless it only closes the
    /// session or object (A/B set), then `symbol` is empty.
    public static func parse(_ datagram: ArraySlice<UInt8>, encodingID: UInt8) -> Result<ALCPacket, FluteDrop> {
        let header: LCTHeader, length: Int
        switch LCTHeader.parse(datagram) {
        case .failure(let reason): return .failure(reason)
        case .success(let parsed): (header, length) = parsed
        }
        if datagram.count == length, header.closeSession || header.closeObject {
            return .success(ALCPacket(header: header, sourceBlockNumber: 0, encodingSymbolID: 0, symbol: datagram[datagram.endIndex...]))
        }
        guard let id = datagram.be32(at: length), let symbol = datagram.suffix(from: length + 4), !symbol.isEmpty else {
            return .failure(.malformedALC)
        }
        switch encodingID {
        case FECObjectInfo.compactNoCode:
            return .success(ALCPacket(header: header, sourceBlockNumber: id >> 16, encodingSymbolID: id & 0xFFFF, symbol: symbol))
        case FECObjectInfo.reedSolomonGF256:
            return .success(ALCPacket(header: header, sourceBlockNumber: id >> 8, encodingSymbolID: id & 0xFF, symbol: symbol))
        default:
            return .failure(.unsupportedFEC)
        }
    }

    /// The packet's bytes: header, Payload ID for `encodingID`, symbol.
    public func encode(encodingID: UInt8) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + symbol.count)
        header.encode(into: &out)
        let id = encodingID == FECObjectInfo.reedSolomonGF256
            ? (sourceBlockNumber & 0xFF_FFFF) << 8 | (encodingSymbolID & 0xFF)
            : (sourceBlockNumber & 0xFFFF) << 16 | (encodingSymbolID & 0xFFFF)
        out.append(contentsOf: [UInt8(truncatingIfNeeded: id >> 24), UInt8(truncatingIfNeeded: id >> 16),
                                UInt8(truncatingIfNeeded: id >> 8), UInt8(truncatingIfNeeded: id)])
        out.append(contentsOf: symbol)
        return out
    }
}
