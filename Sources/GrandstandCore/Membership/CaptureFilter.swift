/// The BPF expression (pcap-filter(7)) that captures exactly the wanted endpoints.
///
/// Endpoints are de-duplicated and sorted, and ports of the same (group, source) are merged into
/// one clause, so an unchanged set always yields the same string: the driver compares strings and
/// only re-installs the filter when it changed. Beyond `maximumEndpoints` the exact filter would
/// grow past what is cheap to run per packet (and toward the kernel's 4096-instruction BPF limit),
/// so the filter becomes coarse: all UDP to IPv4 and/or IPv6 multicast, per family present; the
/// ingest path then drops what it does not want. UDP fragments after the first carry no port and
/// are never captured (the ingest path counts the first as `ipv4_fragment` anyway).
public struct CaptureFilter: Sendable, Equatable, CustomStringConvertible {
    public let expression: String
    /// True when the endpoint count exceeded the bound and the family-wide fallback is in use.
    public let isCoarse: Bool
    /// How many distinct endpoints the filter was built from.
    public let endpointCount: Int

    /// 64 endpoints (e.g. 21 channels with two FEC ports each, plus SAP) compile to a few
    /// hundred BPF instructions.
    public static let defaultMaximumEndpoints = 64

    /// Accepts (practically) nothing: what an empty endpoint set captures. UDP port 0 is
    /// reserved; a contradiction like "udp and not udp" is refused by libpcap's optimizer
    /// ("expression rejects all packets").
    public static let nothing = "udp and dst port 0"

    public init(endpoints: [MulticastEndpoint], maximumEndpoints: Int = CaptureFilter.defaultMaximumEndpoints) {
        let unique = Set(endpoints).sorted()
        endpointCount = unique.count
        if unique.isEmpty {
            expression = CaptureFilter.nothing
            isCoarse = false
        } else if unique.count > maximumEndpoints {
            var nets: [String] = []
            if unique.contains(where: { !$0.group.isIPv6 }) { nets.append("dst net 224.0.0.0/4") }
            if unique.contains(where: { $0.group.isIPv6 }) { nets.append("dst net ff00::/8") }
            expression = nets.count == 1 ? "udp and \(nets[0])" : "udp and (\(nets.joined(separator: " or ")))"
            isCoarse = true
        } else {
            expression = "udp and (" + CaptureFilter.clauses(unique).joined(separator: " or ") + ")"
            isCoarse = false
        }
    }

    /// One clause per (group, source), ports ascending, in the endpoints' sorted order.
    static func clauses(_ sorted: [MulticastEndpoint]) -> [String] {
        var order: [GroupMembership] = []
        var ports: [GroupMembership: [UInt16]] = [:]
        for endpoint in sorted {
            let key = endpoint.membership
            if ports[key] == nil { order.append(key) }
            ports[key, default: []].append(endpoint.port)
        }
        return order.sorted().map { key in
            let portList = ports[key, default: []].sorted()
            let portTest = portList.count == 1 ? "dst port \(portList[0])"
                : "(" + portList.map { "dst port \($0)" }.joined(separator: " or ") + ")"
            var parts = ["dst host \(key.group)", portTest]
            if let source = key.source { parts.insert("src host \(source)", at: 0) }
            return "(" + parts.joined(separator: " and ") + ")"
        }
    }

    public var description: String { expression }
}
