/// An SMPTE 2022-1 (Pro-MPEG COP3 release 2) FEC packet: a 12-byte RTP header whose P, X, CC and
/// M bits carry the XOR of the protected packets' (RFC 2733 §3.2), then the 16-byte FEC header
/// (RFC 2733's 12 bytes extended by SMPTE 2022-1 §7), then the XOR of the protected packets'
/// bytes after their 12-byte RTP headers, zero-extended to the longest.
///
///     0–1   SNBase low bits          2–3  length recovery
///     4     E (1) | PT recovery (7)  5–7  mask (24 bits, 0)
///     8–11  TS recovery
///     12    X (1) | D (1) | type (3) | index (3)     13 offset     14 NA     15 SNBase ext bits
///
/// Column FEC (D = 0, port + 2) protects SNBase + i·L for i < D (offset = L, NA = D); row FEC
/// (D = 1, port + 4) protects SNBase + i for i < L (offset = 1, NA = L).
public struct SMPTE2022FECPacket: Sendable, Equatable {
    public static let headerSize = 16

    /// The FEC packet's own RTP sequence number (its flow's counter, not the media's).
    public var sequenceNumber: UInt16
    /// P, X and CC recovery: the low 6 bits of the FEC packet's first RTP byte.
    public var headerBitsRecovery: UInt8
    /// M recovery: the FEC packet's RTP marker bit.
    public var markerRecovery: Bool
    public var snBase: UInt16
    public var lengthRecovery: UInt16
    public var extensionFlag: Bool
    public var payloadTypeRecovery: UInt8
    public var mask: UInt32
    public var timestampRecovery: UInt32
    public var extendedHeader: Bool
    /// D: false for column FEC, true for row FEC.
    public var isRow: Bool
    public var type: UInt8
    public var index: UInt8
    public var offset: UInt8
    public var count: UInt8
    public var snBaseExtension: UInt8
    /// XOR of the protected packets' bytes after their fixed RTP headers.
    public var payload: ArraySlice<UInt8>

    public init(sequenceNumber: UInt16, headerBitsRecovery: UInt8, markerRecovery: Bool, snBase: UInt16, lengthRecovery: UInt16,
                payloadTypeRecovery: UInt8, timestampRecovery: UInt32, isRow: Bool, offset: UInt8, count: UInt8,
                payload: ArraySlice<UInt8>, extensionFlag: Bool = true, mask: UInt32 = 0, extendedHeader: Bool = false,
                type: UInt8 = 0, index: UInt8 = 0, snBaseExtension: UInt8 = 0) {
        self.sequenceNumber = sequenceNumber
        self.headerBitsRecovery = headerBitsRecovery
        self.markerRecovery = markerRecovery
        self.snBase = snBase
        self.lengthRecovery = lengthRecovery
        self.extensionFlag = extensionFlag
        self.payloadTypeRecovery = payloadTypeRecovery
        self.mask = mask
        self.timestampRecovery = timestampRecovery
        self.extendedHeader = extendedHeader
        self.isRow = isRow
        self.type = type
        self.index = index
        self.offset = offset
        self.count = count
        self.snBaseExtension = snBaseExtension
        self.payload = payload
    }

    public enum ParseError: Error, Sendable, Equatable {
        case truncated
        case notRTP
        /// E must be 1, X 0, type 0 (XOR) and index 0 in SMPTE 2022-1.
        case unsupported(String)
        /// Column FEC needs offset = L ≥ 1 and NA = D ≥ 1; row FEC offset 1 and NA = L ≥ 1.
        case badGeometry(offset: UInt8, count: UInt8, isRow: Bool)
        case emptyPayload
    }

    /// Parses one FEC packet (the whole UDP payload).
    public static func parse(_ packet: ArraySlice<UInt8>) -> Result<SMPTE2022FECPacket, ParseError> {
        guard packet.count >= 12 else { return .failure(.truncated) }
        guard let rtp = RTPFields(packet) else { return .failure(.notRTP) }
        guard let body = packet.suffix(from: 12), let snBase = body.be16(at: 0), let length = body.be16(at: 2),
              let ePT = body.octet(at: 4), let maskHigh = body.octet(at: 5), let maskLow = body.be16(at: 6),
              let ts = body.be32(at: 8), let flags = body.octet(at: 12), let offset = body.octet(at: 13),
              let count = body.octet(at: 14), let ext = body.octet(at: 15) else { return .failure(.truncated) }
        let fec = SMPTE2022FECPacket(sequenceNumber: rtp.sequence, headerBitsRecovery: rtp.first & 0x3F, markerRecovery: rtp.marker,
                                     snBase: snBase, lengthRecovery: length, payloadTypeRecovery: ePT & 0x7F,
                                     timestampRecovery: ts, isRow: flags & 0x40 != 0, offset: offset, count: count,
                                     payload: body.suffix(from: headerSize) ?? [], extensionFlag: ePT & 0x80 != 0,
                                     mask: UInt32(maskHigh) << 16 | UInt32(maskLow), extendedHeader: flags & 0x80 != 0,
                                     type: (flags >> 3) & 0x07, index: flags & 0x07, snBaseExtension: ext)
        guard fec.extensionFlag else { return .failure(.unsupported("E bit clear (RFC 2733 header without the SMPTE extension)")) }
        guard !fec.extendedHeader else { return .failure(.unsupported("X bit set")) }
        guard fec.type == 0, fec.index == 0 else { return .failure(.unsupported("type \(fec.type) index \(fec.index) (only XOR)")) }
        guard offset >= 1, count >= 1, !fec.isRow || offset == 1 else {
            return .failure(.badGeometry(offset: offset, count: count, isRow: fec.isRow))
        }
        guard !fec.payload.isEmpty else { return .failure(.emptyPayload) }
        return .success(fec)
    }

    /// L (columns) and D (rows, nil for a row FEC, which only tells L).
    public var columns: Int { isRow ? Int(count) : Int(offset) }
    public var rows: Int? { isRow ? nil : Int(count) }

    /// The whole FEC RTP packet with the given flow payload type and SSRC (0 in SMPTE 2022-1).
    public func serialized(payloadType: UInt8 = 96, timestamp: UInt32, ssrc: UInt32 = 0) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(12 + Self.headerSize + payload.count)
        out.append(0x80 | (headerBitsRecovery & 0x3F))
        out.append((markerRecovery ? 0x80 : 0) | (payloadType & 0x7F))
        out.appendBE16(sequenceNumber)
        out.appendBE32(timestamp)
        out.appendBE32(ssrc)
        out.appendBE16(snBase)
        out.appendBE16(lengthRecovery)
        out.append((extensionFlag ? 0x80 : 0) | (payloadTypeRecovery & 0x7F))
        out.append(UInt8(truncatingIfNeeded: mask >> 16))
        out.appendBE16(UInt16(truncatingIfNeeded: mask))
        out.appendBE32(timestampRecovery)
        out.append((extendedHeader ? 0x80 : 0) | (isRow ? 0x40 : 0) | (type & 0x07) << 3 | (index & 0x07))
        out.append(offset)
        out.append(count)
        out.append(snBaseExtension)
        out += payload
        return out
    }
}
