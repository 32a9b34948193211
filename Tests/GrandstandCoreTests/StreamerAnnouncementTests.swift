import GrandstandCore
import Testing

/// SAP announcements and their SDP, read back through the ingest's own parsers.
struct StreamerAnnouncementTests {
    static let origin = IPAddress.v4(0xC000_0207)   // 192.0.2.7
    static let sapGroup = Endpoint(address: SAPAnnouncer.defaultGroupV4, port: SAPMessage.port)
    static let license = LicenseTriplet(venueName: "Example;Arena", contentOwner: "Example Sports", appDeveloper: "Grandstand")

    static func channels() -> [ChannelDescription] {
        [ChannelDescription(name: "Bowl Cam", information: "Main bowl camera", media: .video,
                            destination: Endpoint(address: .v4(0xEFFF_1401), port: 5000), ttl: 8, bandwidthKbps: 900,
                            license: license, origin: origin, sessionVersion: 3),
         ChannelDescription(name: "Scores", media: .data(rtpPayloadType: 98),
                            destination: Endpoint(address: .v4(0xEFFF_1402), port: 5002), license: license, origin: origin),
         ChannelDescription(name: "Ticker", media: .data(rtpPayloadType: nil),
                            destination: Endpoint(address: .v6(0xFF15_0000_0000_0000, 0x1404), port: 5004), origin: origin),
         ChannelDescription(name: "Files", media: .file, destination: Endpoint(address: .v4(0xEFFF_1405), port: 5006),
                            license: license, origin: origin, sourceFilter: true)]
    }

    @Test(arguments: [false, true])
    func announcementsParseBackIntoChannels(compress: Bool) throws {
        var announcer = SAPAnnouncer(destination: Self.sapGroup, origin: Self.origin, channels: Self.channels(),
                                     compress: compress, startNanoseconds: 1_000, intervalNanoseconds: 4_000_000_000)
        let packets = (0..<8).flatMap { _ in announcer.pop() }
        // One per channel per interval: the first round 10 ms apart, later ones evenly spread.
        let expected: [Int64] = [1_000, 10_001_000, 20_001_000, 30_001_000,
                                 4_000_001_000, 5_000_001_000, 6_000_001_000, 7_000_001_000]
        #expect(packets.map(\.dueNanoseconds) == expected)
        #expect(packets.allSatisfy { $0.flow == "sap" && $0.destination == Self.sapGroup })
        var announcements: [ChannelAnnouncement] = []
        for datagram in packets.prefix(4) {
            let sap = try SAPMessage.parse(datagram.payload).get()
            #expect(sap.kind == .announcement)
            #expect(sap.origin == Self.origin)
            #expect(sap.wasCompressed == compress)
            #expect(sap.payloadType == "application/sdp")
            let sdp = try SDPParser.parse(sap.payload[...])
            announcements.append(ChannelAnnouncement(sdp: sdp, sap: sap))
        }
        #expect(packets[4].payload == packets[0].payload)   // same version, same bytes
        let bowl = announcements[0], scores = announcements[1], ticker = announcements[2], files = announcements[3]
        #expect(bowl.kind == .video)
        #expect(bowl.name == "Bowl Cam" && bowl.id == "bowl-cam")
        #expect(bowl.channelText == "Main bowl camera")
        #expect(bowl.group == IPAddress(parsing: "239.255.20.1") && bowl.port == 5000 && bowl.ttl == 8)
        #expect(bowl.bandwidthKbps == 900)
        #expect(bowl.license == Self.license)
        #expect(bowl.sessionVersion == "3")
        #expect(bowl.streamer == Self.origin)
        #expect(bowl.format == "33")
        #expect(scores.kind == .data && scores.format == "98" && scores.port == 5002)
        #expect(ticker.kind == .data && ticker.group == IPAddress(parsing: "ff15::1404") && ticker.license == nil)
        #expect(files.kind == .file && files.sourceFilter == Self.origin)
        // Distinct sessions, stable ids.
        #expect(Set(announcements.map(\.sessionID)).count == 4)
        #expect(Set(announcements.map(\.messageIDHash)).count == 4)
    }

    @Test(arguments: [false, true])
    func deletionsNameTheAnnouncedSessions(compress: Bool) throws {
        let channels = Self.channels()
        let announcer = SAPAnnouncer(destination: Self.sapGroup, origin: Self.origin, channels: channels,
                                     compress: compress, startNanoseconds: 0, intervalNanoseconds: 1)
        let deletions = announcer.deletions(dueNanoseconds: 77)
        #expect(deletions.count == channels.count)
        for (deletion, announced) in zip(deletions, announcer.packets) {
            #expect(deletion.dueNanoseconds == 77)
            let message = try SAPMessage.parse(deletion.payload).get()
            let original = try SAPMessage.parse(announced).get()
            #expect(message.kind == .deletion)
            #expect(message.messageIDHash == original.messageIDHash)
            let text = String(decoding: message.payload, as: UTF8.self)
            let sdp = try SDPParser.parse(original.payload[...])
            #expect(SDPParser.origin(in: text) == sdp.origin)
        }
    }

    @Test func versionChangeChangesTheMessageIDHash() {
        var channel = Self.channels()[0]
        let before = SAPAnnouncer.messageIDHash(channel.sdp)
        channel.sessionVersion += 1
        #expect(SAPAnnouncer.messageIDHash(channel.sdp) != before)
        #expect(ChannelDescription(name: "A", media: .video, destination: Self.sapGroup, origin: Self.origin).sessionID
                == ChannelDescription(name: "A", media: .video, destination: Self.sapGroup, origin: Self.origin).sessionID)
    }

    @Test func sdpIsOneLinePerFieldWithCRLF() {
        let channel = ChannelDescription(name: "Evil\r\nm=video 1 RTP/AVP 33", media: .video,
                                         destination: Endpoint(address: .v4(0xEFFF_1401), port: 5000), origin: Self.origin)
        let lines = channel.sdp.components(separatedBy: "\r\n")
        #expect(lines.filter { $0.hasPrefix("m=") } == ["m=video 5000 RTP/AVP 33"])
        #expect(lines.last == "")
        #expect(!channel.sdp.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
    }

    @Test func deflateRoundTripsThroughInflate() throws {
        var inputs: [[UInt8]] = [[], [0x41], Array(Self.channels()[0].sdp.utf8), [UInt8](repeating: 7, count: 10_000)]
        var random: UInt64 = 1
        var noise: [UInt8] = []
        for _ in 0..<5000 {
            random = random &* 6364136223846793005 &+ 1442695040888963407
            noise.append(UInt8(truncatingIfNeeded: random >> 56))
        }
        inputs.append(noise)
        // Matches at every distance class and every length class.
        var ladder: [UInt8] = []
        for n in 0..<300 { ladder.append(contentsOf: (0..<(n % 40 + 3)).map { UInt8(truncatingIfNeeded: $0 * 7 + n / 40) }) }
        inputs.append(ladder)
        for input in inputs {
            let compressed = Deflate.zlib(input)
            let inflated = try Inflate.zlib(compressed[...])
            #expect(inflated == input)
        }
        let sdp = Array(Self.channels()[0].sdp.utf8)
        let compressedSize = Deflate.zlib(sdp).count
        #expect(compressedSize < sdp.count)
        #expect(Deflate.zlib([UInt8](repeating: 7, count: 10_000)).count < 200)
        #expect(Deflate.adler32(Array("Wikipedia".utf8)) == 0x11E6_0398)
    }
}
