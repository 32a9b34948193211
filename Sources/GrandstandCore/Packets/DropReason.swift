/// Why a captured frame or a payload inside it was not delivered. One enum for every layer so
/// the ingest path keeps a single table of counts; raw values are the `stats.json` keys.
public enum DropReason: String, Error, CaseIterable, Sendable, Comparable {
    // Link layer
    case linkTruncated = "link_truncated"
    /// Not IPv4/IPv6 (ARP, LLDP, …): filtered, not malformed.
    case notIP = "not_ip"
    // IPv4 (RFC 791)
    case ipv4Truncated = "ipv4_truncated"
    case ipv4BadHeaderLength = "ipv4_bad_header_length"
    case ipv4BadTotalLength = "ipv4_bad_total_length"
    case ipv4BadChecksum = "ipv4_bad_checksum"
    /// A fragment (MF set or non-zero offset): counted and dropped, never reassembled.
    case ipv4Fragment = "ipv4_fragment"
    // IPv6 (RFC 8200)
    case ipv6Truncated = "ipv6_truncated"
    case ipv6BadPayloadLength = "ipv6_bad_payload_length"
    case ipv6ExtensionTruncated = "ipv6_extension_truncated"
    case ipv6Fragment = "ipv6_fragment"
    /// The version nibble disagrees with the link layer's protocol, or is neither 4 nor 6.
    case ipBadVersion = "ip_bad_version"
    /// TCP, ICMP, ESP…: filtered, not malformed.
    case notUDP = "not_udp"
    // UDP (RFC 768)
    case udpTruncated = "udp_truncated"
    case udpBadLength = "udp_bad_length"
    // RTP (RFC 3550 §5.1)
    case rtpTruncated = "rtp_truncated"
    case rtpBadVersion = "rtp_bad_version"
    case rtpBadPadding = "rtp_bad_padding"
    // MPEG-TS (ISO/IEC 13818-1 §2.4.3.2)
    case tsBadLength = "ts_bad_length"
    case tsLostSync = "ts_lost_sync"
    case tsTransportError = "ts_transport_error"
    case tsReservedAdaptationControl = "ts_reserved_adaptation_control"
    case tsBadAdaptationLength = "ts_bad_adaptation_length"
    // SAP (RFC 2974 §3)
    case sapTruncated = "sap_truncated"
    case sapVersionMismatch = "sap_version_mismatch"
    case sapEncrypted = "sap_encrypted"
    case sapBadCompression = "sap_bad_compression"
    case sapUnsupportedPayloadType = "sap_unsupported_payload_type"
    case sdpInvalid = "sdp_invalid"

    /// False for traffic that is merely not ours (other protocols, fragments, encrypted SAP);
    /// true for bytes that break their format.
    public var isMalformed: Bool {
        switch self {
        case .notIP, .notUDP, .ipv4Fragment, .ipv6Fragment, .sapEncrypted, .sapUnsupportedPayloadType,
             .sapVersionMismatch:
            return false
        default:
            return true
        }
    }

    public static func < (a: DropReason, b: DropReason) -> Bool { a.rawValue < b.rawValue }
}

/// Counts per drop reason, reported in a stable (alphabetical) order.
public struct DropCounts: Sendable, Equatable {
    public private(set) var counts: [DropReason: Int] = [:]

    public init() {}

    public mutating func add(_ reason: DropReason, _ count: Int = 1) { counts[reason, default: 0] += count }

    public subscript(reason: DropReason) -> Int { counts[reason] ?? 0 }

    public var total: Int { counts.values.reduce(0, +) }

    /// Non-zero counts sorted by key, for deterministic output.
    public var sorted: [(reason: DropReason, count: Int)] {
        counts.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
