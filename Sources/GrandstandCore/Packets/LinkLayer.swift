/// The link-layer framing of captured frames, from the capture's LINKTYPE_ value
/// (https://www.tcpdump.org/linktypes.html).
public enum LinkLayer: Sendable, Equatable {
    /// LINKTYPE_ETHERNET (1, DLT_EN10MB), with any IEEE 802.1Q / 802.1ad VLAN tags.
    case ethernet
    /// LINKTYPE_LINUX_SLL (113): the 16-byte "cooked" header of `any`-interface captures.
    case linuxCooked
    /// LINKTYPE_LINUX_SLL2 (276): the 20-byte cooked header with interface index.
    case linuxCooked2
    /// LINKTYPE_RAW (101; DLT_RAW 12 or 14 in live captures), LINKTYPE_IPV4 (228), LINKTYPE_IPV6
    /// (229): the frame starts with the IP header, version told by its first nibble.
    case raw
    /// LINKTYPE_NULL (0) / LINKTYPE_LOOP (108): a 4-byte address family, then IP.
    case null

    public init?(linkType: Int32) {
        switch linkType {
        case 1: self = .ethernet
        case 113: self = .linuxCooked
        case 276: self = .linuxCooked2
        case 12, 14, 101, 228, 229: self = .raw
        case 0, 108: self = .null
        default: return nil
        }
    }
}

/// EtherType values (IEEE 802.3) the decoder acts on.
enum EtherType {
    static let ipv4: UInt16 = 0x0800
    static let ipv6: UInt16 = 0x86DD
    static let vlan: UInt16 = 0x8100    // IEEE 802.1Q C-tag
    static let qinq: UInt16 = 0x88A8    // IEEE 802.1ad S-tag
}

extension FrameDecoder {
    /// The network-layer packet inside a link frame, with the EtherType that announces it (0 when
    /// the link layer does not say and the IP version nibble decides).
    static func unwrapLink(_ frame: ArraySlice<UInt8>, _ link: LinkLayer) -> Result<(UInt16, ArraySlice<UInt8>), DropReason> {
        switch link {
        case .ethernet:
            // Destination (6), source (6), EtherType (2); each VLAN tag inserts 4 bytes before it.
            var offset = 12
            var type = frame.be16(at: offset)
            var tags = 0
            while let tagged = type, tagged == EtherType.vlan || tagged == EtherType.qinq, tags < 2 {
                offset += 4
                tags += 1
                type = frame.be16(at: offset)
            }
            guard let etherType = type, let rest = frame.suffix(from: offset + 2) else { return .failure(.linkTruncated) }
            return .success((etherType, rest))
        case .linuxCooked:
            // Packet type, ARPHRD type, address length, 8 address bytes, protocol (offset 14).
            guard let proto = frame.be16(at: 14), let rest = frame.suffix(from: 16) else { return .failure(.linkTruncated) }
            return .success((proto, rest))
        case .linuxCooked2:
            // Protocol (offset 0), reserved, interface index, ARPHRD, packet type, address length, address.
            guard let proto = frame.be16(at: 0), let rest = frame.suffix(from: 20) else { return .failure(.linkTruncated) }
            return .success((proto, rest))
        case .raw:
            return .success((0, frame))
        case .null:
            // The family is in the capturing host's byte order; the IP version nibble is enough.
            guard let rest = frame.suffix(from: 4), frame.count >= 4 else { return .failure(.linkTruncated) }
            return .success((0, rest))
        }
    }
}
