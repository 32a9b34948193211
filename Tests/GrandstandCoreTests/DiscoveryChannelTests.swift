import Testing
@testable import GrandstandCore

struct DiscoveryChannelTests {
    let license = LicenseTriplet(venueName: "Example;Arena", contentOwner: "Example Sports", appDeveloper: "Grandstand")

    func channel(_ sapFixture: String) throws -> ChannelAnnouncement {
        guard case .success(let sap) = SAPMessage.parse(try CoreFixtures.bytes("discovery/\(sapFixture)")) else {
            throw DropReason.sapTruncated
        }
        return ChannelAnnouncement(sdp: try SDPParser.parse(sap.payload[...]), sap: sap)
    }

    @Test func vlcMPEGTSIsVideo() throws {
        let c = try channel("sap-ipv4-vlc.bin")
        #expect(c.kind == .video && c.id == "bowl-cam-1" && c.name == "Bowl Cam 1" && c.channelText == "N/A")
        #expect(c.group?.description == "239.255.12.42" && c.port == 5004 && c.ttl == 255 && c.format == "33")
        #expect(c.streamer?.description == "192.0.2.10" && c.messageIDHash == 0x1A2B)
        #expect(c.license == nil && c.licenseError == nil)
    }

    @Test func ffmpegH264IsUnsupportedWithReason() throws {
        let c = try channel("sap-ipv4-ffmpeg.bin")
        #expect(c.kind == .unsupported(reason: "H.264 RTP (RFC 6184) is not MPEG-TS"))
        #expect(c.kind.name == "unsupported" && c.id == "no-name" && c.bandwidthKbps == 200 && c.port == 5000)
    }

    @Test func grandstandVideoFromCompressedSAP() throws {
        let c = try channel("sap-zlib.bin")
        #expect(c.kind == .video && c.sessionID == "4242" && c.sessionVersion == "7" && c.bandwidthKbps == 6000)
        #expect(c.channelText == "Main bowl, wide" && c.license == license && c.ttl == 16)
    }

    @Test func dataAndFileChannels() throws {
        let data = try channel("sap-no-type.bin")
        #expect(data.kind == .data && data.id == "live-scores" && data.group?.description == "239.255.20.9")
        #expect(data.port == 5100 && data.bandwidthKbps == 16 && data.license == license)
        let file = try channel("sap-ipv6-auth.bin")
        #expect(file.kind == .file && file.id == "replays-highlights" && file.group?.description == "ff15::20:7")
        #expect(file.sourceFilter?.description == "2001:db8::5" && file.streamer?.description == "2001:db8::5")
    }

    static let head = "v=0\no=- 1 2 IN IP4 10.0.0.1\ns=Test\nc=IN IP4 239.1.1.1/8\n"

    @Test(arguments: [
        ("m=video 5000 RTP/AVP 96\na=rtpmap:96 MP2T/90000\n", ChannelKind.video),
        ("m=video 5000 RTP/AVP 96\na=rtpmap:96 H265/90000\n", .unsupported(reason: "H.265 RTP (RFC 7798) is not MPEG-TS")),
        ("m=video 5000 udp mpeg\n", .video),            // VLC #udp{mux=ts,sap}
        ("m=video 5000 udp 33\n", .video),
        ("m=video 5000 MP2T/UDP 33\n", .video),
        ("m=video 5000 udp h264\n", .unsupported(reason: "video udp h264 is not MPEG-TS over RTP (RTP/AVP 33)")),
        ("m=audio 5000 RTP/AVP 14\n", .unsupported(reason: "audio RTP/AVP 14 is not carried (video must be MPEG-TS over RTP)")),
        ("m=application 5000 udp x\n", .unsupported(reason: "m=application without a=x-grandstand-kind:data|file")),
        ("m=application 5000 FLUTE/UDP 0\na=flute-tsi:3\n", .file),   // RFC 6726 §7, as FLUTE senders announce
        ("m=application 5000 flute/udp 0\n", .file),
        ("m=application 5000 udp x\na=x-grandstand-kind:movie\n", .unsupported(reason: "unknown x-grandstand-kind \"movie\"")),
        ("m=audio 5002 RTP/AVP 14\nm=video 5000 RTP/AVP 33\n", .video),
        ("", .unsupported(reason: "no m= line")),
    ])
    func kinds(media: String, kind: ChannelKind) throws {
        #expect(ChannelAnnouncement(sdp: try SDPParser.parse(Self.head + media)).kind == kind)
    }

    @Test func videoWithoutNumericGroupIsUnsupported() throws {
        let c = ChannelAnnouncement(sdp: try SDPParser.parse("v=0\no=- 1 2 IN IP4 h\ns=T\nc=IN IP4 host.example/8\nm=video 1 RTP/AVP 33\n"))
        #expect(c.kind == .unsupported(reason: "no numeric c= connection address") && c.streamer == nil)
    }

    @Test(arguments: [
        ("venueName=A;contentOwner=B;appDeveloper=C", "A|B|C"),
        ("appDeveloper=C;venueName=A%3B%25;contentOwner=B%3d;future=x", "A;%|B=|C"),
        ("venueName=St%C3%A4dion;contentOwner=B;appDeveloper=C", "Städion|B|C"),
        ("venueName=A;contentOwner=B", "missing appDeveloper"),
        ("venueName=A;venueName=A;contentOwner=B;appDeveloper=C", "venueName appears twice"),
        ("venueName=;contentOwner=B;appDeveloper=C", "venueName is empty"),
        ("venueName=A%2;contentOwner=B;appDeveloper=C", "bad percent-encoding in venueName"),
        ("venueName=%FF;contentOwner=B;appDeveloper=C", "bad percent-encoding in venueName"),
        ("venueName", "\"venueName\" is not key=value"),
    ])
    func licenseSyntax(value: String, expected: String) {
        switch LicenseTriplet.parse(value) {
        case .success(let t): #expect("\(t.venueName)|\(t.contentOwner)|\(t.appDeveloper)" == expected)
        case .failure(let e): #expect(e.reason == expected)
        }
    }

    @Test func licenseRoundTripsAndMalformedIsReported() throws {
        let odd = LicenseTriplet(venueName: "a;b=c%d\u{1}", contentOwner: "Ö", appDeveloper: "x y")
        #expect(LicenseTriplet.parse(odd.attributeValue) == .success(odd))
        let c = ChannelAnnouncement(sdp: try SDPParser.parse(Self.head + "a=x-grandstand-license:venueName=A\nm=video 1 RTP/AVP 33\n"))
        #expect(c.license == nil && c.licenseError?.description == "malformed x-grandstand-license: missing contentOwner, appDeveloper")
    }

    @Test(arguments: [
        ("Bowl Cam 1", "bowl-cam-1"), ("  --Replays & Highlights!! ", "replays-highlights"), ("Café Noir", "caf-noir"),
        ("ÜÖÄ", "channel"), ("", "channel"), ("A__B", "a-b"), (String(repeating: "ab ", count: 40), String("ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab".prefix(47))),
    ])
    func slugs(name: String, slug: String) {
        #expect(ChannelSlug.make(name) == slug)
        #expect(slug.count <= ChannelSlug.maximumLength)
    }

    @Test func uniqueSlugs() {
        #expect(ChannelSlug.unique("Bowl", taken: []) == "bowl")
        #expect(ChannelSlug.unique("Bowl", taken: ["bowl"]) == "bowl-2")
        #expect(ChannelSlug.unique("BOWL", taken: ["bowl", "bowl-2"]) == "bowl-3")
    }
}
