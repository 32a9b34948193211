/// An RTP data packet (RFC 3550 §5.1): fixed header, CSRC list, optional header extension
/// (§5.3.1) and padding (§5.1 P bit) removed from `payload`.
public struct RTPPacket: Sendable, Equatable {
    public var marker: Bool
    public var payloadType: UInt8
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var ssrc: UInt32
    public var csrcs: [UInt32]
    /// The extension's profile-defined 16 bits and its data (§5.3.1), when X is set.
    public var extensionProfile: UInt16?
    public var extensionData: ArraySlice<UInt8>
    /// The payload without header, extension and padding.
    public var payload: ArraySlice<UInt8>
    /// Padding octets removed from the end (0 when P is clear).
    public var paddingLength: Int

    /// Parses one RTP packet; the validity checks follow RFC 3550 Appendix A.1 (version 2,
    /// padding count within the packet) plus the length checks the header itself implies.
    public static func parse(_ bytes: ArraySlice<UInt8>) -> Result<RTPPacket, DropReason> {
        guard let first = bytes.octet(at: 0), let second = bytes.octet(at: 1), let sequence = bytes.be16(at: 2),
              let timestamp = bytes.be32(at: 4), let ssrc = bytes.be32(at: 8) else { return .failure(.rtpTruncated) }
        guard first >> 6 == 2 else { return .failure(.rtpBadVersion) }
        let hasPadding = first & 0x20 != 0
        let hasExtension = first & 0x10 != 0
        let csrcCount = Int(first & 0x0F)
        var offset = 12
        var csrcs: [UInt32] = []
        csrcs.reserveCapacity(csrcCount)
        for _ in 0..<csrcCount {
            guard let csrc = bytes.be32(at: offset) else { return .failure(.rtpTruncated) }
            csrcs.append(csrc)
            offset += 4
        }
        var profile: UInt16? = nil
        var extensionData: ArraySlice<UInt8> = []
        if hasExtension {
            // 16 bits profile-defined, 16 bits length in 32-bit words excluding this 4-byte header.
            guard let defined = bytes.be16(at: offset), let words = bytes.be16(at: offset + 2),
                  let data = bytes.bytes(at: offset + 4, length: Int(words) * 4) else { return .failure(.rtpTruncated) }
            profile = defined
            extensionData = data
            offset += 4 + Int(words) * 4
        }
        var end = bytes.count
        var paddingLength = 0
        if hasPadding {
            // The last octet counts the padding including itself; it cannot be 0 or reach the header.
            guard let count = bytes.octet(at: bytes.count - 1), count > 0, Int(count) <= bytes.count - offset else {
                return .failure(.rtpBadPadding)
            }
            paddingLength = Int(count)
            end -= paddingLength
        }
        guard let payload = bytes.bytes(at: offset, length: end - offset) else { return .failure(.rtpTruncated) }
        return .success(RTPPacket(marker: second & 0x80 != 0, payloadType: second & 0x7F, sequenceNumber: sequence,
                                  timestamp: timestamp, ssrc: ssrc, csrcs: csrcs, extensionProfile: profile,
                                  extensionData: extensionData, payload: payload, paddingLength: paddingLength))
    }

    public static func parse(_ bytes: [UInt8]) -> Result<RTPPacket, DropReason> { parse(bytes[...]) }
}
