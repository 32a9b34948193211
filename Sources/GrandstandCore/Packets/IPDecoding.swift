extension FrameDecoder {
    static let protocolUDP: UInt8 = 17

    /// RFC 791 §3.1: version/IHL, total length, flags/fragment offset, TTL, protocol, header
    /// checksum, addresses; options (IHL > 5) skipped. Fragments are dropped, not reassembled.
    static func decodeIPv4(_ packet: ArraySlice<UInt8>) -> Result<NetworkPacket, DropReason> {
        guard let first = packet.octet(at: 0), packet.count >= 20 else { return .failure(.ipv4Truncated) }
        guard first >> 4 == 4 else { return .failure(.ipBadVersion) }
        let headerLength = Int(first & 0x0F) * 4
        guard headerLength >= 20 else { return .failure(.ipv4BadHeaderLength) }
        guard let header = packet.bytes(at: 0, length: headerLength) else { return .failure(.ipv4Truncated) }
        guard internetChecksum(header) == 0xFFFF else { return .failure(.ipv4BadChecksum) }
        guard let total = packet.be16(at: 2), Int(total) >= headerLength else { return .failure(.ipv4BadTotalLength) }
        // Bytes past total length are link padding (Ethernet's 60-byte minimum frame).
        guard let segment = packet.bytes(at: headerLength, length: Int(total) - headerLength) else { return .failure(.ipv4Truncated) }
        guard let fragment = packet.be16(at: 6), fragment & 0x3FFF == 0 else { return .failure(.ipv4Fragment) }
        guard let ttl = packet.octet(at: 8), let proto = packet.octet(at: 9),
              let source = packet.be32(at: 12).map(IPAddress.v4),
              let destination = packet.be32(at: 16).map(IPAddress.v4) else {
            return .failure(.ipv4Truncated)
        }
        guard proto == protocolUDP else { return .failure(.notUDP) }
        return .success(NetworkPacket(source: source, destination: destination, hopLimit: ttl, segment: segment))
    }

    /// RFC 8200 §3–4: fixed 40-byte header, then extension headers skipped until UDP. Hop-by-hop
    /// (0), routing (43), destination options (60) and other RFC 6564-format headers are
    /// skipped by their length; AH (51, RFC 4302) by its own unit; a fragment header (44) drops.
    static func decodeIPv6(_ packet: ArraySlice<UInt8>) -> Result<NetworkPacket, DropReason> {
        guard let first = packet.octet(at: 0), packet.count >= 40 else { return .failure(.ipv6Truncated) }
        guard first >> 4 == 6 else { return .failure(.ipBadVersion) }
        guard let payloadLength = packet.be16(at: 4), payloadLength > 0 else { return .failure(.ipv6BadPayloadLength) }
        guard var next = packet.octet(at: 6), let hopLimit = packet.octet(at: 7),
              let source = packet.bytes(at: 8, length: 16).flatMap(IPAddress.init(bytes:)),
              let destination = packet.bytes(at: 24, length: 16).flatMap(IPAddress.init(bytes:)),
              var rest = packet.bytes(at: 40, length: Int(payloadLength)) else { return .failure(.ipv6Truncated) }
        while next != protocolUDP {
            let length: Int
            switch next {
            case 0, 43, 60, 135, 139, 140:
                guard let units = rest.octet(at: 1) else { return .failure(.ipv6ExtensionTruncated) }
                length = (Int(units) + 1) * 8
            case 51:
                guard let units = rest.octet(at: 1) else { return .failure(.ipv6ExtensionTruncated) }
                length = (Int(units) + 2) * 4
            case 44:
                return .failure(.ipv6Fragment)
            default:
                return .failure(.notUDP)
            }
            guard let following = rest.octet(at: 0), let remainder = rest.suffix(from: length), rest.count >= length else {
                return .failure(.ipv6ExtensionTruncated)
            }
            next = following
            rest = remainder
        }
        return .success(NetworkPacket(source: source, destination: destination, hopLimit: hopLimit, segment: rest))
    }

    /// RFC 1071 one's-complement sum of 16-bit words; a correct IPv4 header sums to 0xFFFF.
    static func internetChecksum(_ bytes: ArraySlice<UInt8>) -> UInt16 {
        var sum: UInt32 = 0
        var i = bytes.startIndex
        while i + 1 < bytes.endIndex {
            sum += UInt32(bytes[i]) << 8 | UInt32(bytes[i + 1])
            i += 2
        }
        if i < bytes.endIndex { sum += UInt32(bytes[i]) << 8 }
        while sum > 0xFFFF { sum = (sum & 0xFFFF) + (sum >> 16) }
        return UInt16(sum)
    }
}
