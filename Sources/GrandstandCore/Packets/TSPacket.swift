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
        guard bytes.octet(at: 0) == syncByte, let b1 = bytes.octet(at: 1), let b2 = bytes.octet(at: 2),
              let b3 = bytes.octet(at: 3) else { return .failure(.tsLostSync) }
        guard b1 & 0x80 == 0 else { return .failure(.tsTransportError) }
        let control = (b3 >> 4) & 0x3
        guard control != 0 else { return .failure(.tsReservedAdaptationControl) }
        var packet = TSPacket(transportError: false, payloadUnitStart: b1 & 0x40 != 0, priority: b1 & 0x20 != 0,
                              pid: UInt16(b1 & 0x1F) << 8 | UInt16(b2), scrambling: b3 >> 6,
                              hasAdaptationField: control & 0x2 != 0, hasPayload: control & 0x1 != 0,
                              continuityCounter: b3 & 0x0F, discontinuityIndicator: false,
                              randomAccessIndicator: false, payload: [])
        var offset = 4
        if packet.hasAdaptationField {
            // adaptation_field_length: 0...183 with a payload, exactly 183 without (§2.4.3.5).
            guard let length = bytes.octet(at: 4),
                  packet.hasPayload ? length <= 182 : length == 183 else { return .failure(.tsBadAdaptationLength) }
            if length > 0, let flags = bytes.octet(at: 5) {
                packet.discontinuityIndicator = flags & 0x80 != 0
                packet.randomAccessIndicator = flags & 0x40 != 0
            }
            offset = 5 + Int(length)
        }
        if packet.hasPayload, let payload = bytes.suffix(from: offset) { packet.payload = payload }
        return .success(packet)
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
