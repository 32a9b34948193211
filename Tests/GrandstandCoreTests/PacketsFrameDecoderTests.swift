import Testing
@testable import GrandstandCore

struct PacketsFrameDecoderTests {
    let payload: [UInt8] = Array("hello, venue".utf8)

    func datagram(_ frame: [UInt8], _ link: LinkLayer = .ethernet) -> Datagram? {
        if case .success(let d) = FrameDecoder.decode(frame, link: link, timestampNanoseconds: 7) { return d }
        return nil
    }

    func reason(_ frame: [UInt8], _ link: LinkLayer = .ethernet) -> DropReason? {
        if case .failure(let r) = FrameDecoder.decode(frame, link: link, timestampNanoseconds: 7) { return r }
        return nil
    }

    @Test(arguments: [[], [20], [20, 30]])
    func ethernetWithVLANTags(vlans: [Int]) throws {
        let d = try #require(datagram(FrameBuilder.multicastFrame(payload, vlans: vlans)))
        #expect(d.source == Endpoint(address: .v4(0x0A01_0203), port: 40000))
        #expect(d.destination.description == "239.255.20.1:5000")
        #expect(d.destination.address.isMulticast)
        #expect(Array(d.payload) == payload)
        #expect(d.timestampNanoseconds == 7)
        #expect(d.hopLimit == 16)
    }

    @Test func ethernetPaddingIsTrimmedByIPTotalLength() throws {
        let frame = FrameBuilder.multicastFrame([1, 2]) + [0, 0, 0, 0, 0, 0, 0, 0]
        #expect(Array(try #require(datagram(frame)).payload) == [1, 2])
    }

    @Test func ipv4OptionsAreSkipped() throws {
        let ip = FrameBuilder.ipv4(source: "10.0.0.1", destination: "239.1.1.1", options: [0x94, 0x04, 0, 0],
                                   segment: FrameBuilder.udp(sourcePort: 1, destinationPort: 2, payload: payload))
        #expect(Array(try #require(datagram(ip, .raw)).payload) == payload)
    }

    @Test func linuxCookedHeaders() throws {
        let ip = FrameBuilder.ipv4(source: "10.0.0.1", destination: "239.1.1.1",
                                   segment: FrameBuilder.udp(sourcePort: 1, destinationPort: 2, payload: payload))
        let sll: [UInt8] = [0, 2, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0, 0x08, 0x00]
        let sll2: [UInt8] = [0x08, 0x00, 0, 0, 0, 0, 0, 3, 0, 1, 2, 6, 2, 0, 0, 0, 0, 1, 0, 0]
        #expect(Array(try #require(datagram(sll + ip, .linuxCooked)).payload) == payload)
        #expect(Array(try #require(datagram(sll2 + ip, .linuxCooked2)).payload) == payload)
        #expect(Array(try #require(datagram([2, 0, 0, 0] + ip, .null)).payload) == payload)
        #expect(LinkLayer(linkType: 1) == .ethernet && LinkLayer(linkType: 276) == .linuxCooked2)
        #expect(LinkLayer(linkType: 101) == .raw && LinkLayer(linkType: 147) == nil)
    }

    static let v6Source: [UInt8] = [0x20, 0x01, 0x0D, 0xB8] + [UInt8](repeating: 0, count: 11) + [5]
    static let v6Group: [UInt8] = [0xFF, 0x15] + [UInt8](repeating: 0, count: 13) + [7]

    @Test func ipv6WithExtensionHeaders() throws {
        let udp = FrameBuilder.udp(sourcePort: 9875, destinationPort: 9875, payload: payload)
        // Hop-by-hop (8 bytes) → destination options (16 bytes) → UDP.
        let extensions: [UInt8] = [60, 0, 5, 2, 0, 0, 1, 0] + [17, 1] + [UInt8](repeating: 1, count: 14)
        let ip = FrameBuilder.ipv6(source: Self.v6Source, destination: Self.v6Group, next: 0, payload: extensions + udp)
        let d = try #require(datagram(FrameBuilder.ethernet(ip, etherType: 0x86DD)))
        #expect(d.source.description == "[2001:db8::5]:9875")
        #expect(d.destination.address.description == "ff15::7")
        #expect(Array(d.payload) == payload)
        #expect(d.hopLimit == 8)
    }

    @Test func ipv6FragmentAndOtherProtocolsAreDropped() {
        let fragment = FrameBuilder.ipv6(source: Self.v6Source, destination: Self.v6Group, next: 44,
                                         payload: [17, 0, 0, 1, 0, 0, 0, 1] + FrameBuilder.udp(sourcePort: 1, destinationPort: 2, payload: []))
        #expect(reason(fragment, .raw) == .ipv6Fragment)
        #expect(reason(FrameBuilder.ipv6(source: Self.v6Source, destination: Self.v6Group, next: 6, payload: [0]), .raw) == .notUDP)
        #expect(reason(FrameBuilder.ipv6(source: Self.v6Source, destination: Self.v6Group, next: 0, payload: [17, 4, 0, 0]), .raw)
                == .ipv6ExtensionTruncated)
    }

    @Test func ipv4Problems() {
        let udp = FrameBuilder.udp(sourcePort: 1, destinationPort: 2, payload: payload)
        let good = FrameBuilder.ipv4(source: "10.0.0.1", destination: "239.1.1.1", segment: udp)
        var badSum = good
        badSum[8] ^= 1
        #expect(reason(badSum, .raw) == .ipv4BadChecksum)
        #expect(reason(FrameBuilder.ipv4(source: "10.0.0.1", destination: "239.1.1.1", fragment: 0x2000, segment: udp), .raw) == .ipv4Fragment)
        #expect(reason(FrameBuilder.ipv4(source: "10.0.0.1", destination: "239.1.1.1", fragment: 0x0010, segment: udp), .raw) == .ipv4Fragment)
        #expect(reason(FrameBuilder.ipv4(source: "10.0.0.1", destination: "10.0.0.2", proto: 6, segment: udp), .raw) == .notUDP)
        #expect(reason([0x50] + good.dropFirst(), .raw) == .ipBadVersion)
        #expect(reason(FrameBuilder.ethernet(good, etherType: 0x0806)) == .notIP)
        #expect(reason(FrameBuilder.ethernet(good, etherType: 0x86DD)) == .ipBadVersion)
    }

    @Test func udpLengthChecks() {
        var short = FrameBuilder.udp(sourcePort: 1, destinationPort: 2, payload: payload)
        short[5] = 7   // length below the 8-byte header
        #expect(reason(FrameBuilder.ipv4(source: "10.0.0.1", destination: "239.1.1.1", segment: short), .raw) == .udpBadLength)
        var long = FrameBuilder.udp(sourcePort: 1, destinationPort: 2, payload: payload)
        long[5] += 1   // one byte more than the IP datagram holds
        #expect(reason(FrameBuilder.ipv4(source: "10.0.0.1", destination: "239.1.1.1", segment: long), .raw) == .udpBadLength)
        #expect(reason(FrameBuilder.ipv4(source: "10.0.0.1", destination: "239.1.1.1", segment: [0, 1, 0]), .raw) == .udpTruncated)
    }

    /// Every prefix of good frames of every link type gives a drop reason (malformed), never a trap
    /// and never a datagram, except the whole frame.
    @Test(arguments: [LinkLayer.ethernet, .linuxCooked, .linuxCooked2, .raw, .null])
    func everyTruncationIsADrop(link: LinkLayer) throws {
        let ip4 = FrameBuilder.ipv4(source: "10.0.0.1", destination: "239.1.1.1", options: [1, 1, 1, 0],
                                    segment: FrameBuilder.udp(sourcePort: 1, destinationPort: 2, payload: payload))
        let ip6 = FrameBuilder.ipv6(source: Self.v6Source, destination: Self.v6Group, next: 0,
                                    payload: [17, 0, 1, 0, 0, 0, 0, 0] + FrameBuilder.udp(sourcePort: 1, destinationPort: 2, payload: payload))
        for (ip, type) in [(ip4, 0x0800), (ip6, 0x86DD)] {
            let frame: [UInt8]
            switch link {
            case .ethernet: frame = FrameBuilder.ethernet(ip, etherType: type, vlans: [5])
            case .linuxCooked: frame = [0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0] + FrameBuilder.be16(type) + ip
            case .linuxCooked2: frame = FrameBuilder.be16(type) + [UInt8](repeating: 0, count: 18) + ip
            case .raw: frame = ip
            case .null: frame = [2, 0, 0, 0] + ip
            }
            #expect(datagram(frame, link) != nil)
            for end in 0..<frame.count {
                let r = reason(Array(frame[..<end]), link)
                #expect(r?.isMalformed == true, "\(link) prefix \(end): \(String(describing: r))")
            }
        }
    }

    /// Random garbage never traps; it comes back as a datagram or a reason.
    @Test func garbageNeverTraps() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var counts = DropCounts()
        for _ in 0..<3000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let length = Int(state >> 58)
            var bytes: [UInt8] = []
            for i in 0..<length { bytes.append(UInt8(truncatingIfNeeded: state >> UInt64(i % 56))) }
            if !bytes.isEmpty { bytes[0] = bytes[0] & 0x0F | (state & 1 == 0 ? 0x40 : 0x60) }
            if case .failure(let r) = FrameDecoder.decode(bytes, link: .raw, timestampNanoseconds: 0) { counts.add(r) }
        }
        #expect(counts.total > 2900)
        #expect(counts.sorted.map(\.reason) == counts.sorted.map(\.reason).sorted())
    }

    /// The Capture adapter's golden capture (tools/fixtures/capture_fixture.py): 5 RTP, 3 other
    /// UDP, 2 SAP datagrams; one TCP and one ARP frame dropped as not ours.
    @Test func goldenCapture() throws {
        let capture = try CoreFixtures.pcapFrames("capture/mixed.pcap")
        let link = try #require(LinkLayer(linkType: capture.linkType))
        var counts = DropCounts()
        var byPort: [UInt16: Int] = [:]
        for (ns, frame) in capture.frames {
            switch FrameDecoder.decode(frame, link: link, timestampNanoseconds: ns) {
            case .success(let d): byPort[d.destination.port, default: 0] += 1
            case .failure(let r): counts.add(r)
            }
        }
        #expect(byPort == [5000: 5, 5002: 3, 9875: 2])
        #expect(counts.sorted.map { "\($0.reason.rawValue)=\($0.count)" } == ["not_ip=1", "not_udp=1"])
    }
}
