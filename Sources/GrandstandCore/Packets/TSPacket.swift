/// One 188-byte MPEG-TS packet header (ISO/IEC 13818-1 §2.4.3.2) and the adaptation-field
/// facts continuity checking needs (§2.4.3.4–5).
public struct TSPacket: Sendable, Equatable {
    public static let size = 188
    public static let syncByte: UInt8 = 0x47
    public static let nullPID: UInt16 = 0x1FFF

    public var transportError: Bool
    public var payloadUnitStart: Bool
    public var priority: Bool
    public var pid: UInt16
    public var scrambling: UInt8
    /// adaptation_field_control bit 1: an adaptation field is present.
    public var hasAdaptationField: Bool
    /// adaptation_field_control bit 0: a payload is present.
    public var hasPayload: Bool
    public var continuityCounter: UInt8
    /// The adaptation field's discontinuity_indicator (§2.4.3.5).
    public var discontinuityIndicator: Bool
    public var randomAccessIndicator: Bool
    /// The payload bytes after any adaptation field.
    public var payload: ArraySlice<UInt8>

    /// Parses one packet of exactly 188 bytes. A set transport_error_indicator is reported as a
    /// drop: the header itself may be wrong.
    public static func parse(_ bytes: ArraySlice<UInt8>) -> Result<TSPacket, DropReason> {
        guard bytes.count == size else { return .failure(.tsBadLength) }
        let header: Header
        let parsed = bytes.withUnsafeBufferPointer { buffer -> Result<Header, DropReason> in
            guard let base = buffer.baseAddress else { return .failure(.tsBadLength) }
            return Header.parse(base)
        }
        switch parsed {
        case .failure(let reason): return .failure(reason)
        case .success(let parsed): header = parsed
        }
        return .success(TSPacket(transportError: false, payloadUnitStart: header.b1 & 0x40 != 0, priority: header.b1 & 0x20 != 0,
                                 pid: header.pid, scrambling: header.b3 >> 6,
                                 hasAdaptationField: header.hasAdaptationField, hasPayload: header.hasPayload,
                                 continuityCounter: header.continuityCounter,
                                 discontinuityIndicator: header.discontinuityIndicator,
                                 randomAccessIndicator: header.randomAccessIndicator,
                                 payload: header.hasPayload ? bytes[(bytes.startIndex + header.payloadOffset)...] : []))
    }

    /// The header facts of one packet, read in place without building a `TSPacket` (no payload
    /// slice, so no reference counting): what the ingest demux needs per packet, on its hot path.
    /// `parse(_:)` is built on it, so both apply the same checks.
    struct Header {
        var b1: UInt8
        var b3: UInt8
        var pid: UInt16
        var discontinuityIndicator: Bool
        var randomAccessIndicator: Bool
        var payloadOffset: Int

        var hasAdaptationField: Bool { b3 & 0x20 != 0 }
        var hasPayload: Bool { b3 & 0x10 != 0 }
        var continuityCounter: UInt8 { b3 & 0x0F }

        /// Reads the packet of `TSPacket.size` bytes at `start` (the caller guarantees them).
        @inline(__always)
        static func parse(_ start: UnsafePointer<UInt8>) -> Result<Header, DropReason> {
            guard start[0] == syncByte else { return .failure(.tsLostSync) }
            let b1 = start[1], b3 = start[3]
            guard b1 & 0x80 == 0 else { return .failure(.tsTransportError) }
            let control = (b3 >> 4) & 0x3
            guard control != 0 else { return .failure(.tsReservedAdaptationControl) }
            var header = Header(b1: b1, b3: b3, pid: UInt16(b1 & 0x1F) << 8 | UInt16(start[2]),
                                discontinuityIndicator: false, randomAccessIndicator: false, payloadOffset: 4)
            if control & 0x2 != 0 {
                // adaptation_field_length: 0...183 with a payload, exactly 183 without (§2.4.3.5).
                let length = start[4]
                guard control & 0x1 != 0 ? length <= 182 : length == 183 else { return .failure(.tsBadAdaptationLength) }
                if length > 0 {
                    header.discontinuityIndicator = start[5] & 0x80 != 0
                    header.randomAccessIndicator = start[5] & 0x40 != 0
                }
                header.payloadOffset = 5 + Int(length)
            }
            return .success(header)
        }
    }

    /// Splits a datagram payload (normally 7 × 188 bytes, RFC 2250 §2) into packets; bytes that
    /// do not make a whole packet are reported as one `tsBadLength`.
    public static func split(_ bytes: ArraySlice<UInt8>) -> (packets: [Result<TSPacket, DropReason>], trailing: Int) {
        var packets: [Result<TSPacket, DropReason>] = []
        packets.reserveCapacity(bytes.count / size)
        var offset = 0
        while let chunk = bytes.bytes(at: offset, length: size) {
            packets.append(parse(chunk))
            offset += size
        }
        return (packets, bytes.count - offset)
    }
}
