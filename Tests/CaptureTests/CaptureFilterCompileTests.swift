import Testing
import TestSupport
import GrandstandCore
@testable import Capture

/// The core's CaptureFilter expressions compile in libpcap and select what they promise, on the
/// offline fixture (5 RTP to 239.255.1.1:5000, 3 to 239.255.1.2:5002 and 2 SAP to
/// 239.255.255.255:9875, all from 10.0.0.5; plus TCP and ARP).
struct CaptureFilterCompileTests {
    static let cases: [([String], Int)] = [
        (["239.255.1.1:5000"], 5),
        (["239.255.1.1:5000", "239.255.1.2:5002"], 8),
        (["239.255.1.1:5002", "239.255.1.2:5000"], 0),
        (["10.0.0.5>239.255.1.1:5000", "10.0.0.9>239.255.1.2:5002"], 5),
        (["sap"], 2),
        (["sap", "239.255.1.2:5002", "ff15::1:5002"], 5),
        ([], 0),
    ]

    static func endpoints(_ texts: [String]) -> [MulticastEndpoint] {
        var result: [MulticastEndpoint] = []
        for text in texts {
            if text == "sap" { result += MulticastEndpoint.sap(); continue }
            var rest = Substring(text)
            var source: IPAddress?
            if let arrow = rest.firstIndex(of: ">") {
                source = IPAddress(parsing: rest[..<arrow])
                rest = rest[rest.index(after: arrow)...]
            }
            let colon = rest.lastIndex(of: ":")!
            result.append(MulticastEndpoint(group: IPAddress(parsing: rest[..<colon])!, port: UInt16(rest[rest.index(after: colon)...])!, source: source))
        }
        return result
    }

    func count(_ expression: String) throws -> Int {
        let capture = try PacketCapture.open(file: Fixtures.path("capture/mixed.pcap"))
        try capture.setFilter(expression)
        var n = 0
        while try capture.next() != nil { n += 1 }
        return n
    }

    @Test(arguments: cases)
    func exactFiltersSelectTheirEndpoints(endpoints: [String], expected: Int) throws {
        let filter = CaptureFilter(endpoints: Self.endpoints(endpoints))
        #expect(try count(filter.expression) == expected, "\(filter.expression)")
    }

    @Test func coarseFiltersCompileAndKeepAllMulticastUDP() throws {
        let mixed = Self.endpoints(["239.255.1.1:5000", "ff15::1:5000", "239.255.1.2:5002"])
        for endpoints in [mixed, mixed.filter { !$0.group.isIPv6 }, mixed.filter(\.group.isIPv6)] {
            let filter = CaptureFilter(endpoints: endpoints, maximumEndpoints: 0)
            #expect(filter.isCoarse)
            #expect(try count(filter.expression) == (endpoints.contains { !$0.group.isIPv6 } ? 10 : 0), "\(filter.expression)")
        }
    }
}
