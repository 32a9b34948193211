/// A Session Announcement Protocol packet (RFC 2974 §3) with its payload decompressed.
public struct SAPMessage: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case announcement
        /// T bit set: the session is withdrawn (§4); the payload names it (an SDP o= line or the whole SDP).
        case deletion
    }

    /// The well-known SAP port and IPv4 groups (§3, §8): global scope 224.2.127.254 and the
    /// administratively scoped 239.255.255.255.
    public static let port: UInt16 = 9875

    public var kind: Kind
    /// The originating source (A bit: IPv6 when set).
    public var origin: IPAddress
    /// Together with `origin`, identifies the announcement version (§3, "message identifier hash").
    public var messageIDHash: UInt16
    /// Authentication data length in bytes (skipped, not verified).
    public var authenticationLength: Int
    /// Whether the payload arrived zlib-compressed (C bit); `payload` is always inflated.
    public var wasCompressed: Bool
    /// The MIME type before the payload, nil when absent (then the payload is SDP, §3).
    public var payloadType: String?
    public var payload: [UInt8]

    /// The most decompressed payload accepted, against zlib bombs; RFC 2974 §3 recommends
    /// announcements stay under 1 kB.
    public static let maximumPayload = 64 * 1024

    /// Parses a SAP packet: version 1 only (others count as version mismatches), encrypted
    /// packets (E bit) dropped since no key distribution is defined, compressed ones inflated,
    /// payload types other than `application/sdp` refused.
    public static func parse(_ bytes: ArraySlice<UInt8>) -> Result<SAPMessage, DropReason> {
        guard let flags = bytes.octet(at: 0), let authWords = bytes.octet(at: 1),
              let hash = bytes.be16(at: 2) else { return .failure(.sapTruncated) }
        // V(3) A R T E C
        guard flags >> 5 == 1 else { return .failure(.sapVersionMismatch) }
        let originLength = flags & 0x10 != 0 ? 16 : 4
        guard let origin = bytes.bytes(at: 4, length: originLength).flatMap(IPAddress.init(bytes:)) else {
            return .failure(.sapTruncated)
        }
        guard flags & 0x02 == 0 else { return .failure(.sapEncrypted) }
        let authLength = Int(authWords) * 4
        guard var body = bytes.suffix(from: 4 + originLength + authLength) else { return .failure(.sapTruncated) }
        let compressed = flags & 0x01 != 0
        var inflated: [UInt8] = []
        if compressed {
            do {
                inflated = try Inflate.zlib(body, limit: maximumPayload)
            } catch {
                return .failure(.sapBadCompression)
            }
            body = inflated[...]
        }
        var payloadType: String? = nil
        // §3: the optional payload type is a NUL-terminated MIME type; SDP without it starts "v=0".
        if !body.starts(with: Array("v=0".utf8)) {
            guard let nul = body.firstIndex(of: 0) else { return .failure(.sapTruncated) }
            let type = String(decoding: body[..<nul], as: UTF8.self)
            guard type.lowercased() == "application/sdp" else { return .failure(.sapUnsupportedPayloadType) }
            payloadType = type
            body = body[(nul + 1)...]
        }
        return .success(SAPMessage(kind: flags & 0x04 != 0 ? .deletion : .announcement, origin: origin,
                                   messageIDHash: hash, authenticationLength: authLength, wasCompressed: compressed,
                                   payloadType: payloadType, payload: Array(body)))
    }

    public static func parse(_ bytes: [UInt8]) -> Result<SAPMessage, DropReason> { parse(bytes[...]) }

    /// Builds a SAP packet (the streamer's side and the tests'); compression is the caller's.
    public static func encode(kind: Kind, origin: IPAddress, messageIDHash: UInt16, payloadType: String? = "application/sdp",
                              payload: [UInt8], authentication: [UInt8] = [], compressed: Bool = false) -> [UInt8] {
        var flags: UInt8 = 1 << 5
        if origin.isIPv6 { flags |= 0x10 }
        if kind == .deletion { flags |= 0x04 }
        if compressed { flags |= 0x01 }
        var bytes: [UInt8] = [flags, UInt8(truncatingIfNeeded: authentication.count / 4),
                              UInt8(messageIDHash >> 8), UInt8(messageIDHash & 0xFF)]
        switch origin {
        case .v4(let v): bytes += (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * UInt32($0))) }
        case .v6(let high, let low):
            bytes += (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64($0))) }
            bytes += (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64($0))) }
        }
        bytes += authentication
        if compressed { return bytes + payload }
        if let payloadType { bytes += Array(payloadType.utf8) + [0] }
        return bytes + payload
    }
}
