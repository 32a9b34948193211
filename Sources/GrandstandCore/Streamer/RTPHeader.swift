/// Builds RTP fixed headers (RFC 3550 §5.1): version 2, no padding, extension or CSRCs.
public enum RTPHeader {
    public static let size = 12
    /// RFC 3551 §6: MP2T, 90 kHz.
    public static let mpegTransportStreamPayloadType: UInt8 = 33

    public static func append(to bytes: inout [UInt8], marker: Bool = false, payloadType: UInt8,
                              sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32) {
        bytes.append(0x80)
        bytes.append((marker ? 0x80 : 0) | payloadType & 0x7F)
        bytes.append(UInt8(sequenceNumber >> 8)); bytes.append(UInt8(sequenceNumber & 0xFF))
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: timestamp >> UInt32(shift))) }
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: ssrc >> UInt32(shift))) }
    }

    /// Nanoseconds on the caller's clock → RTP units at `clockRate` (wraps mod 2^32).
    public static func ticks(_ nanoseconds: Int64, clockRate: Int64 = 90_000) -> UInt32 {
        // Split at whole seconds so the product cannot overflow.
        let value = nanoseconds / 1_000_000_000 * clockRate + nanoseconds % 1_000_000_000 * clockRate / 1_000_000_000
        return UInt32(truncatingIfNeeded: value)
    }
}

/// The identity of one RTP flow: SSRC and the random starting points RFC 3550 §5.1 asks for,
/// derived from a name and seed so the same command line gives the same wire bytes.
public struct RTPIdentity: Sendable, Equatable {
    public var ssrc: UInt32
    public var initialSequence: UInt16
    public var initialTimestamp: UInt32

    public init(ssrc: UInt32, initialSequence: UInt16, initialTimestamp: UInt32) {
        self.ssrc = ssrc
        self.initialSequence = initialSequence
        self.initialTimestamp = initialTimestamp
    }

    public init(name: String, seed: UInt64 = 0) {
        let hash = FNV.hash64(Array(name.utf8)) ^ seed
        ssrc = UInt32(truncatingIfNeeded: hash >> 32) | 1
        initialSequence = UInt16(truncatingIfNeeded: hash >> 16)
        initialTimestamp = UInt32(truncatingIfNeeded: hash &* 0x9E37_79B9)
    }
}
