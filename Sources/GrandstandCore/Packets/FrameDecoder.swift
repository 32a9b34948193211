/// Takes the UDP datagram out of one captured frame, or says why not. Stateless and total: any
/// byte sequence gives a `Datagram` or a `DropReason`, never a trap.
///
/// UDP checksums are deliberately not verified: captures taken on the sending host see
/// checksum-offloaded packets whose checksum the NIC has not filled in yet. The IPv4 header
/// checksum is always computed in software, so it is verified (RFC 791 §3.1).
public enum FrameDecoder {
    public static func decode(_ frame: ArraySlice<UInt8>, link: LinkLayer, timestampNanoseconds: Int64) -> Result<Datagram, DropReason> {
        let unwrapped: (UInt16, ArraySlice<UInt8>)
        switch unwrapLink(frame, link) {
        case .failure(let reason): return .failure(reason)
        case .success(let value): unwrapped = value
        }
        let (etherType, packet) = unwrapped
        let version: UInt8
        switch etherType {
        case EtherType.ipv4: version = 4
        case EtherType.ipv6: version = 6
        case 0:
            guard let first = packet.octet(at: 0) else { return .failure(.linkTruncated) }
            version = first >> 4
        default: return .failure(.notIP)
        }
        let network: Result<NetworkPacket, DropReason>
        switch version {
        case 4: network = decodeIPv4(packet)
        case 6: network = decodeIPv6(packet)
        default: return .failure(.ipBadVersion)
        }
        switch network {
        case .failure(let reason): return .failure(reason)
        case .success(let ip): return decodeUDP(ip, timestampNanoseconds: timestampNanoseconds)
        }
    }

    public static func decode(_ frame: [UInt8], link: LinkLayer, timestampNanoseconds: Int64) -> Result<Datagram, DropReason> {
        decode(frame[...], link: link, timestampNanoseconds: timestampNanoseconds)
    }

    /// A UDP segment's addresses and bytes (trimmed of link padding).
    struct NetworkPacket {
        var source: IPAddress
        var destination: IPAddress
        var hopLimit: UInt8
        var segment: ArraySlice<UInt8>
    }

    /// RFC 768: source port, destination port, length (header + data, ≥ 8), checksum.
    static func decodeUDP(_ ip: NetworkPacket, timestampNanoseconds: Int64) -> Result<Datagram, DropReason> {
        guard let sourcePort = ip.segment.be16(at: 0), let destinationPort = ip.segment.be16(at: 2),
              let length = ip.segment.be16(at: 4), ip.segment.count >= 8 else { return .failure(.udpTruncated) }
        guard length >= 8, Int(length) <= ip.segment.count,
              let payload = ip.segment.bytes(at: 8, length: Int(length) - 8) else { return .failure(.udpBadLength) }
        return .success(Datagram(source: Endpoint(address: ip.source, port: sourcePort),
                                 destination: Endpoint(address: ip.destination, port: destinationPort),
                                 payload: payload, timestampNanoseconds: timestampNanoseconds, hopLimit: ip.hopLimit))
    }
}
