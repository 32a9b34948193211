import Testing
@testable import GrandstandCore

/// Builds endpoints from "group:port" or "source>group:port" ("[v6]:port" for IPv6 groups).
func memberEndpoint(_ text: String) -> MulticastEndpoint {
    var rest = Substring(text)
    var source: IPAddress? = nil
    if let arrow = rest.firstIndex(of: ">") {
        source = IPAddress(parsing: rest[..<arrow])
        rest = rest[rest.index(after: arrow)...]
    }
    let colon = rest.lastIndex(of: ":")!
    var host = rest[..<colon]
    if host.hasPrefix("[") { host = host.dropFirst().dropLast() }
    return MulticastEndpoint(group: IPAddress(parsing: host)!, port: UInt16(rest[rest.index(after: colon)...])!, source: source)
}

struct MembershipFilterTests {
    static let exact: [([String], String)] = [
        (["239.255.1.1:5004"], "udp and ((dst host 239.255.1.1 and dst port 5004))"),
        // Ports of one group merge into one clause, ascending; duplicates vanish.
        (["239.255.1.1:5008", "239.255.1.1:5004", "239.255.1.1:5006", "239.255.1.1:5004"],
         "udp and ((dst host 239.255.1.1 and (dst port 5004 or dst port 5006 or dst port 5008)))"),
        // Source-specific endpoints test the sender too; any-source sorts first.
        (["10.0.0.9>239.255.1.1:5004", "239.255.1.1:5004"],
         "udp and ((dst host 239.255.1.1 and dst port 5004) or (src host 10.0.0.9 and dst host 239.255.1.1 and dst port 5004))"),
        // IPv6 groups and sources; IPv4 sorts before IPv6.
        (["2001:db8::5>[ff15::20:7]:5200", "239.255.255.255:9875"],
         "udp and ((dst host 239.255.255.255 and dst port 9875) or (src host 2001:db8::5 and dst host ff15::20:7 and dst port 5200))"),
        ([], "udp and dst port 0"),
    ]

    @Test(arguments: exact)
    func exactFilters(endpoints: [String], expected: String) {
        let filter = CaptureFilter(endpoints: endpoints.map(memberEndpoint))
        #expect(filter.expression == expected)
        #expect(!filter.isCoarse)
    }

    @Test func orderOfTheInputDoesNotMatter() {
        let set = ["239.255.1.2:5000", "10.1.1.1>239.255.1.1:5000", "[ff0e::2:7ffe]:9875", "224.2.127.254:9875", "239.255.1.1:5002"]
        let once = CaptureFilter(endpoints: set.map(memberEndpoint))
        for rotation in 1..<set.count {
            let rotated = Array(set[rotation...] + set[..<rotation]).reversed().map(memberEndpoint)
            #expect(CaptureFilter(endpoints: rotated) == once)
        }
    }

    static let coarse: [([String], String)] = [
        (["239.0.0.1:1", "239.0.0.2:1", "239.0.0.3:1"], "udp and dst net 224.0.0.0/4"),
        (["[ff15::1]:1", "[ff15::2]:1", "[ff15::3]:1"], "udp and dst net ff00::/8"),
        (["239.0.0.1:1", "[ff15::2]:1", "[ff15::3]:1"], "udp and (dst net 224.0.0.0/4 or dst net ff00::/8)"),
    ]

    @Test(arguments: coarse)
    func beyondTheBoundTheFilterIsCoarse(endpoints: [String], expected: String) {
        let filter = CaptureFilter(endpoints: endpoints.map(memberEndpoint), maximumEndpoints: 2)
        #expect(filter.isCoarse && filter.expression == expected && filter.endpointCount == 3)
        // Exactly at the bound it stays exact.
        #expect(!CaptureFilter(endpoints: endpoints.map(memberEndpoint), maximumEndpoints: 3).isCoarse)
    }

    @Test func defaultBoundKeepsTheFilterShort() {
        var many: [MulticastEndpoint] = []
        for i in 0..<CaptureFilter.defaultMaximumEndpoints {
            let group = IPAddress.v4(0xEFFF_0000 + UInt32(i / 3))
            let port = UInt16(5000 + 2 * (i % 3))
            many.append(MulticastEndpoint(group: group, port: port))
        }
        let exact = CaptureFilter(endpoints: many)
        #expect(!exact.isCoarse && exact.expression.count < 4096)
        let coarse = CaptureFilter(endpoints: many + [MulticastEndpoint(group: .v4(0xEFFF_FFFF), port: 1)])
        #expect(coarse.isCoarse)
    }

    @Test func sapDefaultsAreTheWellKnownGroups() {
        #expect(MulticastEndpoint.sap().map(\.description) == ["224.2.127.254:9875", "239.255.255.255:9875", "[ff0e::2:7ffe]:9875"])
        #expect(MulticastEndpoint.sap([IPAddress(parsing: "ff05::2:7ffe")!]).map(\.description) == ["[ff05::2:7ffe]:9875"])
        #expect(memberEndpoint("10.0.0.9>239.255.1.1:5004").membership.description == "(10.0.0.9, 239.255.1.1)")
        #expect(memberEndpoint("239.255.1.1:5004").membership.description == "(*, 239.255.1.1)")
    }
}
