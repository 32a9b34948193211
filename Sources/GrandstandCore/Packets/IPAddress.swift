/// An IPv4 or IPv6 address as carried in packets, SAP origins and SDP `c=`/`o=` lines.
public enum IPAddress: Hashable, Sendable, Comparable, CustomStringConvertible {
    case v4(UInt32)
    /// 128 bits as two big-endian halves.
    case v6(UInt64, UInt64)

    /// Reads 4 or 16 network-order bytes.
    public init?(bytes: ArraySlice<UInt8>) {
        switch bytes.count {
        case 4:
            guard let value = bytes.be32(at: 0) else { return nil }
            self = .v4(value)
        case 16:
            var high: UInt64 = 0, low: UInt64 = 0
            for (i, byte) in bytes.enumerated() {
                if i < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt64(byte) }
            }
            self = .v6(high, low)
        default:
            return nil
        }
    }

    /// Parses dotted-quad IPv4 or textual IPv6 (RFC 4291 §2.2, including `::` and an embedded
    /// dotted-quad tail); nil when malformed. Zone ids (`%eth0`) are not accepted.
    public init?(parsing text: Substring) {
        if text.contains(":") {
            guard let value = IPAddress.parseV6(text) else { return nil }
            self = value
        } else {
            guard let value = IPAddress.parseV4(text) else { return nil }
            self = .v4(value)
        }
    }

    public init?(parsing text: String) { self.init(parsing: text[...]) }

    /// 224.0.0.0/4 (RFC 5771) or ff00::/8 (RFC 4291 §2.7).
    public var isMulticast: Bool {
        switch self {
        case .v4(let value): return value >> 28 == 0xE
        case .v6(let high, _): return high >> 56 == 0xFF
        }
    }

    public var isIPv6: Bool { if case .v6 = self { return true } else { return false } }

    public var description: String {
        switch self {
        case .v4(let v):
            return "\(v >> 24).\(v >> 16 & 0xFF).\(v >> 8 & 0xFF).\(v & 0xFF)"
        case .v6(let high, let low):
            return IPAddress.formatV6(high, low)
        }
    }

    private static func parseV4(_ text: Substring) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let octet = UInt32(part), octet <= 255 else { return nil }
            value = value << 8 | octet
        }
        return value
    }

    private static func parseV6(_ text: Substring) -> IPAddress? {
        var groups: [UInt16] = []
        var gap: Int? = nil
        var rest = text
        if rest.hasPrefix("::") { gap = 0; rest = rest.dropFirst(2) }
        while !rest.isEmpty {
            let end = rest.firstIndex(of: ":") ?? rest.endIndex
            let piece = rest[rest.startIndex..<end]
            if end == rest.endIndex, piece.contains(".") {
                guard let v4 = parseV4(piece) else { return nil }
                groups.append(UInt16(v4 >> 16)); groups.append(UInt16(v4 & 0xFFFF))
                rest = rest[end...]
                break
            }
            guard (1...4).contains(piece.count), let group = UInt16(piece, radix: 16) else { return nil }
            groups.append(group)
            rest = rest[end...]
            if rest.hasPrefix("::") {
                guard gap == nil else { return nil }
                gap = groups.count
                rest = rest.dropFirst(2)
            } else if rest.hasPrefix(":") {
                rest = rest.dropFirst()
                guard !rest.isEmpty else { return nil }
            }
        }
        if let gap {
            guard groups.count < 8 else { return nil }
            groups.insert(contentsOf: [UInt16](repeating: 0, count: 8 - groups.count), at: gap)
        }
        guard groups.count == 8 else { return nil }
        var high: UInt64 = 0, low: UInt64 = 0
        for (i, g) in groups.enumerated() {
            if i < 4 { high = high << 16 | UInt64(g) } else { low = low << 16 | UInt64(g) }
        }
        return .v6(high, low)
    }

    /// RFC 5952 §4: lowercase, leading zeros dropped, the longest run (≥ 2) of zero groups as `::`.
    private static func formatV6(_ high: UInt64, _ low: UInt64) -> String {
        let groups = (0..<8).map { i -> UInt16 in
            let half = i < 4 ? high : low
            return UInt16(truncatingIfNeeded: half >> (UInt64(3 - i % 4) * 16))
        }
        var best = (start: -1, length: 0), run = (start: -1, length: 0)
        for (i, g) in groups.enumerated() {
            if g == 0 {
                if run.start < 0 { run = (i, 0) }
                run.length += 1
                if run.length > best.length { best = run }
            } else {
                run = (-1, 0)
            }
        }
        func hex(_ slice: ArraySlice<UInt16>) -> String { slice.map { String($0, radix: 16) }.joined(separator: ":") }
        guard best.length >= 2 else { return hex(groups[...]) }
        return hex(groups[..<best.start]) + "::" + hex(groups[(best.start + best.length)...])
    }
}

/// An address and UDP port.
public struct Endpoint: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var address: IPAddress
    public var port: UInt16

    public init(address: IPAddress, port: UInt16) {
        self.address = address
        self.port = port
    }

    public static func < (a: Endpoint, b: Endpoint) -> Bool { (a.address, a.port) < (b.address, b.port) }

    /// One hasher word for an IPv4 endpoint (address and port), three for IPv6: the ingest
    /// pipeline looks up every datagram's destination (docs/performance.md). Consistent with
    /// the synthesized `==`.
    public func hash(into hasher: inout Hasher) {
        switch address {
        case .v4(let value):
            hasher.combine(UInt64(value) << 16 | UInt64(port))
        case .v6(let high, let low):
            hasher.combine(high)
            hasher.combine(low)
            hasher.combine(port)
        }
    }

    public var description: String { address.isIPv6 ? "[\(address)]:\(port)" : "\(address):\(port)" }
}
