import Foundation
import Testing
import TestSupport
@testable import GrandstandCore

struct DiscoverySDPTests {
    func sdp(_ fixture: String) throws -> SessionDescription {
        try SDPParser.parse(try CoreFixtures.text("discovery/\(fixture)"))
    }

    @Test func vlcMPEGTSAnnouncement() throws {
        let d = try sdp("vlc-mpegts.sdp")
        #expect(d.origin == .init(username: "-", sessionID: "15892934395405885440", sessionVersion: "15892934395405885440",
                                  networkType: "IN", addressType: "IP4", address: "streamer-1"))
        #expect(d.name == "Bowl Cam 1" && d.information == "N/A")
        #expect(d.connection == .init(networkType: "IN", addressType: "IP4", address: "239.255.12.42", ttl: 255, addressCount: 1))
        #expect(d.timings == [.init(start: 0, stop: 0)])
        #expect(d.attribute("tool") == "vlc 3.0.18" && d.attribute("recvonly") == "" && d.attribute("type") == "broadcast")
        let m = try #require(d.media.first)
        #expect(d.media.count == 1)
        #expect(m.media == "video" && m.port == 5004 && m.proto == "RTP/AVP" && m.formats == ["33"])
        #expect(m.bandwidths == [.init(type: "RR", value: 0)])
        #expect(m.rtpmap("33") == RTPMap("33 MP2T/90000"))
        #expect(m.rtpmap("33")?.clockRate == 90_000)
    }

    @Test func ffmpegH264AndAAC() throws {
        let d = try sdp("ffmpeg-h264.sdp")
        #expect(d.name == "No Name" && d.origin.sessionID == "0" && d.origin.address == "192.0.2.10")
        #expect(d.media.map(\.media) == ["video", "audio"] && d.media.map(\.port) == [5000, 5002])
        #expect(d.media[0].rtpmap("96")?.encoding == "H264")
        #expect(d.media[1].rtpmap("97") == RTPMap("97 MPEG4-GENERIC/48000/2"))
        #expect(d.media[1].rtpmap("97")?.parameters == "2")
        #expect(d.media[0].attribute("fmtp")?.hasPrefix("96 packetization-mode=1;") == true)
    }

    @Test func mediaLevelConnectionsAndIPv6() throws {
        let data = try sdp("grandstand-data.sdp")
        #expect(data.connection == nil)
        #expect(data.media[0].connections.first?.ipAddress?.description == "239.255.20.9")
        #expect(data.media[0].connections.first?.ttl == 16)
        let file = try sdp("grandstand-file.sdp")
        #expect(file.connection == .init(networkType: "IN", addressType: "IP6", address: "ff15::20:7", ttl: nil, addressCount: 2))
        #expect(file.media[0].proto == "FLUTE/UDP")
    }

    /// The same description with CRLF, LF, a blank line and trailing newline parses identically.
    @Test func lineEndingsAreTolerated() throws {
        let lf = try CoreFixtures.text("discovery/grandstand-video.sdp").replacingOccurrences(of: "\r\n", with: "\n")
        let crlf = lf.replacingOccurrences(of: "\n", with: "\r\n")
        let mixed = lf.replacingOccurrences(of: "s=", with: "\ns=") + "\r\n\n"
        #expect(try SDPParser.parse(lf) == SDPParser.parse(crlf))
        #expect(try SDPParser.parse(lf) == SDPParser.parse(mixed))
        #expect(try SDPParser.parse(Array(crlf.utf8)[...]).name == "Bowl Cam 1")
    }

    @Test(arguments: [
        ("", 1, "empty description (no v= line)"),
        ("o=- 1 1 IN IP4 a\n", 1, "the first line must be v="),
        ("v=1\n", 1, "unsupported SDP version 1"),
        ("v=0\nbad line\n", 2, "expected <type>=<value>"),
        ("v=0\no=- 1 IN IP4 a\n", 2, "o= needs 6 fields, got 5"),
        ("v=0\no=- x 1 IN IP4 a\n", 2, "o= sess-id and sess-version must be numeric"),
        ("v=0\r\no=- 1 1 IN IP4 a\r\ns=x\r\nc=IN IP4 239.1.1.1/300\r\n", 4, "TTL 300 is out of range 0...255"),
        ("v=0\no=- 1 1 IN IP4 a\ns=x\nc=IN IP6 ff15::1/5/2\n", 4, "an IP6 connection address has no TTL"),
        ("v=0\no=- 1 1 IN IP4 a\ns=x\nc=IN IP4\n", 4, "c= needs 3 fields, got 2"),
        ("v=0\no=- 1 1 IN IP4 a\ns=x\nm=video 70000 RTP/AVP 33\n", 4, "bad port 70000"),
        ("v=0\no=- 1 1 IN IP4 a\ns=x\nm=video 5000 RTP/AVP\n", 4, "m= needs <media> <port> <proto> <fmt>..."),
        ("v=0\no=- 1 1 IN IP4 a\ns=x\nb=AS\n", 4, "b= must be <bwtype>:<bandwidth>"),
        ("v=0\no=- 1 1 IN IP4 a\ns=x\nt=0\n", 4, "t= must be <start-time> <stop-time>"),
        ("v=0\no=- 1 1 IN IP4 a\ns=x\na=\n", 4, "a= has no attribute name"),
        ("v=0\no=- 1 1 IN IP4 a\ns=x\ns=y\n", 4, "s= must appear once, at session level"),
        ("v=0\ns=x\n", 2, "missing o= line"),
        ("v=0\no=- 1 1 IN IP4 a\n\n", 2, "missing s= line"),
        ("\n\n", 1, "empty description (no v= line)"),
    ])
    func errorsNameTheLine(text: String, line: Int, reason: String) {
        #expect(thrownError(SDPParser.Failure.self) { try SDPParser.parse(text) } == SDPParser.Failure(line: line, reason: reason))
    }

    @Test func everyTruncationParsesOrFailsCleanly() throws {
        let bytes = try CoreFixtures.bytes("discovery/ffmpeg-h264.sdp")
        var parsed = 0
        for end in 0...bytes.count {
            if (try? SDPParser.parse(bytes[..<end])) != nil { parsed += 1 }
        }
        // Parses once o= and s= are complete (any later cut is a shorter valid description).
        #expect(parsed > 0 && parsed < bytes.count)
    }

    @Test func unknownLineTypesAreSkipped() throws {
        let d = try SDPParser.parse("v=0\no=- 1 1 IN IP4 a\ns=x\ne=ops@example.com\nz=0 0\nk=clear:x\nm=video 1 RTP/AVP 33\n")
        #expect(d.media.count == 1)
    }
}
