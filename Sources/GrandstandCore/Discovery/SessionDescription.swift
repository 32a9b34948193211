/// An SDP session description (RFC 8866 §5) with the fields Grandstand uses; other line types
/// (u=, e=, p=, r=, z=, k=) are accepted and kept only as raw lines.
public struct SessionDescription: Sendable, Equatable {
    /// `o=` (§5.2): the session's globally unique identity is (username, sessionID, nettype,
    /// addrtype, address); `sessionVersion` grows with each modification.
    public struct Origin: Sendable, Equatable {
        public var username: String
        /// Numeric string (may exceed 64 bits in theory; kept as text).
        public var sessionID: String
        public var sessionVersion: String
        public var networkType: String
        public var addressType: String
        public var address: String
    }

    /// `c=` (§5.7): `IN IP4 239.1.1.1/127/3` is a TTL of 127 and groups .1, .2, .3;
    /// `IN IP6 ff15::1/3` is three groups (IPv6 has no TTL field).
    public struct Connection: Sendable, Equatable {
        public var networkType: String
        public var addressType: String
        /// The base address as written (a name is allowed for unicast).
        public var address: String
        public var ttl: Int?
        /// Number of consecutive addresses (1 when absent).
        public var addressCount: Int

        /// The base address when it is numeric.
        public var ipAddress: IPAddress? { IPAddress(parsing: address) }
    }

    /// `b=` (§5.8), e.g. `AS` in kilobits per second.
    public struct Bandwidth: Sendable, Equatable {
        public var type: String
        public var value: Int
    }

    /// `t=` (§5.9) in NTP seconds; 0 0 is an unbounded session.
    public struct Timing: Sendable, Equatable {
        public var start: UInt64
        public var stop: UInt64
    }

    /// `a=name` (property) or `a=name:value` (§5.13).
    public struct Attribute: Sendable, Equatable {
        public var name: String
        public var value: String?
    }

    /// `m=` (§5.14) and the lines that follow it.
    public struct Media: Sendable, Equatable {
        public var media: String
        public var port: UInt16
        /// `port/count` for hierarchical layers; 1 when absent.
        public var portCount: Int
        public var proto: String
        public var formats: [String]
        public var title: String?
        public var connections: [Connection] = []
        public var bandwidths: [Bandwidth] = []
        public var attributes: [Attribute] = []

        /// `a=rtpmap:<fmt> <encoding>/<clock>[/<params>]` (RFC 8866 §6.6) for `format`.
        public func rtpmap(_ format: String) -> RTPMap? {
            for attribute in attributes where attribute.name == "rtpmap" {
                if let map = RTPMap(attribute.value ?? ""), map.format == format { return map }
            }
            return nil
        }
    }

    public var version: Int
    public var origin: Origin
    public var name: String
    public var information: String?
    public var uri: String?
    public var connection: Connection?
    public var bandwidths: [Bandwidth] = []
    public var timings: [Timing] = []
    public var attributes: [Attribute] = []
    public var media: [Media] = []

    /// The first session-level attribute `name`'s value ("" for a property attribute).
    public func attribute(_ name: String) -> String? {
        attributes.first { $0.name == name }.map { $0.value ?? "" }
    }
}

extension SessionDescription.Media {
    /// A media-level attribute's value ("" for a property attribute).
    public func attribute(_ name: String) -> String? {
        attributes.first { $0.name == name }.map { $0.value ?? "" }
    }
}

/// `a=rtpmap` (RFC 8866 §6.6): payload type to encoding name, clock rate and parameters.
public struct RTPMap: Sendable, Equatable {
    public var format: String
    public var encoding: String
    public var clockRate: Int
    public var parameters: String?

    public init?(_ value: String) {
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2 else { return nil }
        let fields = parts[1].split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count >= 2, !fields[0].isEmpty, let rate = Int(fields[1]), rate > 0 else { return nil }
        format = String(parts[0])
        encoding = String(fields[0])
        clockRate = rate
        parameters = fields.count > 2 ? String(fields[2]) : nil
    }
}
