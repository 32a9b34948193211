/// The fixed part of a PES packet header (ISO/IEC 13818-1 §2.4.3.6) with its time stamps.
public struct PESHeader: Sendable, Equatable {
    public var streamID: UInt8
    /// PES_packet_length: bytes after this field; 0 means unbounded (video in TS).
    public var packetLength: Int
    /// 33-bit presentation/decoding time stamps in 90 kHz ticks.
    public var pts: Int64?
    public var dts: Int64?
    /// Offset of the first payload byte from the start of the PES packet.
    public var headerLength: Int

    /// Whether this stream_id carries the optional header (§2.4.3.7: not padding, private 2, ECM…).
    static func hasOptionalHeader(_ id: UInt8) -> Bool {
        ![0xBC, 0xBE, 0xBF, 0xF0, 0xF1, 0xFF, 0xF2, 0xF8].contains(id)
    }

    public enum ParseResult: Sendable, Equatable {
        case header(PESHeader)
        /// More bytes are needed for the header.
        case incomplete
        /// No packet_start_code_prefix or an inconsistent header.
        case invalid
    }

    /// Parses the header at the start of `bytes` (the first bytes of a PES packet).
    public static func parse(_ bytes: ArraySlice<UInt8>) -> ParseResult {
        guard bytes.count >= 6 else { return .incomplete }
        guard bytes.octet(at: 0) == 0, bytes.octet(at: 1) == 0, bytes.octet(at: 2) == 1,
              let id = bytes.octet(at: 3), let length = bytes.be16(at: 4) else { return .invalid }
        var header = PESHeader(streamID: id, packetLength: Int(length), pts: nil, dts: nil, headerLength: 6)
        guard hasOptionalHeader(id) else { return .header(header) }
        guard let flags1 = bytes.octet(at: 6), let flags2 = bytes.octet(at: 7),
              let dataLength = bytes.octet(at: 8) else { return .incomplete }
        guard flags1 & 0xC0 == 0x80 else { return .invalid }
        header.headerLength = 9 + Int(dataLength)
        let ptsDTS = flags2 >> 6
        if ptsDTS & 0x2 != 0 {
            guard Int(dataLength) >= (ptsDTS == 3 ? 10 : 5) else { return .invalid }
            guard let pts = timestamp(bytes, at: 9) else { return .incomplete }
            header.pts = pts
            if ptsDTS == 3 {
                guard let dts = timestamp(bytes, at: 14) else { return .incomplete }
                header.dts = dts
            }
        }
        if header.packetLength != 0 && header.packetLength + 6 < header.headerLength { return .invalid }
        return .header(header)
    }

    /// A 33-bit time stamp in its 5-byte marker-bit layout.
    static func timestamp(_ b: ArraySlice<UInt8>, at i: Int) -> Int64? {
        guard let b0 = b.octet(at: i), let b12 = b.be16(at: i + 1), let b34 = b.be16(at: i + 3) else { return nil }
        return Int64(b0 >> 1 & 0x07) << 30 | Int64(b12 >> 1) << 15 | Int64(b34 >> 1)
    }
}

/// One reassembled PES packet of an elementary stream.
public struct PESPacket: Sendable, Equatable {
    public var pid: UInt16
    public var streamType: StreamType
    public var header: PESHeader
    /// The PES payload (for H.264/HEVC: Annex-B bytes of normally one access unit).
    public var payload: [UInt8]
    /// The random_access_indicator of the packet that started it.
    public var randomAccess: Bool
    /// Capture time of the TS packet that started it.
    public var timestampNanoseconds: Int64
    /// False when it was cut short (its declared length not reached, or bytes were lost).
    public var complete: Bool

    public var pts: Int64? { header.pts }
    /// DTS, or PTS when the stream sends no separate DTS (§2.4.3.7).
    public var dts: Int64? { header.dts ?? header.pts }
}

/// The program clock reference from an adaptation field (§2.4.3.5), in 27 MHz ticks.
enum ProgramClockReference {
    static func read(_ packet: ArraySlice<UInt8>) -> Int64? {
        guard packet.count == TSPacket.size, let control = packet.octet(at: 3), control & 0x20 != 0,
              let length = packet.octet(at: 4), length >= 7, let flags = packet.octet(at: 5),
              flags & 0x10 != 0, let high = packet.be32(at: 6), let low = packet.be16(at: 10) else { return nil }
        let base = Int64(high) << 1 | Int64(low >> 15)
        let ext = Int64(low & 0x1FF)
        return base * 300 + ext
    }
}
