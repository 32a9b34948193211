import Testing
import TestSupport
@testable import GrandstandCore

/// SAP/SDP and RTP as real senders put them on the wire (VLC 3.0 and FFmpeg 5.1, captured by
/// tools/fixtures/make-sap-captures.sh), through the same path as live capture. Only what the
/// senders always send is asserted; session ids, hashes and ports of origin change per capture.
struct RealSenderTests {
    static let streamerV4 = IPAddress(parsing: "10.200.1.1")
    static let streamerV6 = IPAddress(parsing: "fd00:201::1")

    /// The SDP line types in order ("v", "o", "s", …): the shape of a description.
    static func lineTypes(_ payload: [UInt8]) -> [String] {
        String(decoding: payload, as: UTF8.self).split(whereSeparator: \.isNewline).map { String($0.prefix(1)) }
    }

    @Test func vlcMPEGTSOverIPv4() throws {
        let capture = try RealSenderCapture("vlc-sap.pcap")
        #expect(capture.link == .ethernet && capture.datagrams.count == 5)
        #expect(capture.announcements.count == 2 && capture.rtp.count == 3)
        for a in capture.announcements {
            // VLC announces in the scope of the group: 239.255.255.255 for 239.255.0.0/16.
            #expect(a.datagram.destination.description == "239.255.255.255:9875" && a.datagram.hopLimit == 255)
            #expect(a.sap.kind == .announcement && a.sap.origin == Self.streamerV4 && !a.sap.wasCompressed)
            #expect(a.sap.payloadType == "application/sdp" && a.sap.authenticationLength == 0)
        }
        // The same session each time: same hash and payload.
        #expect(capture.announcements[0].sap.messageIDHash == capture.announcements[1].sap.messageIDHash)
        #expect(capture.announcements[0].sap.payload == capture.announcements[1].sap.payload)

        let a = capture.announcements[0]
        let c = a.channel
        #expect(c.kind == .video && c.id == "bowl-cam-1" && c.name == "Bowl Cam 1" && c.channelText == "Main bowl, wide")
        #expect(c.group?.description == "239.255.1.1" && c.port == 5004 && c.ttl == 255 && c.format == "33")
        #expect(c.streamer == Self.streamerV4 && c.bandwidthKbps == nil && c.license == nil && c.sourceFilter == nil)
        // o=: an NTP-based session id reused as version, and the host *name* as address.
        #expect(c.sessionID == c.sessionVersion && (UInt64(c.sessionID) ?? 0) > 0)
        #expect(a.sdp.origin.username == "-" && IPAddress(parsing: a.sdp.origin.address) == nil)
        #expect(a.sdp.attribute("tool")?.hasPrefix("vlc 3.0.") == true)
        #expect(a.sdp.attribute("recvonly") == "" && a.sdp.attribute("type") == "broadcast" && a.sdp.attribute("charset") == "UTF-8")
        #expect(a.sdp.media.count == 1 && a.sdp.media[0].bandwidths == [.init(type: "RR", value: 0)])
        #expect(a.sdp.media[0].rtpmap("33") == RTPMap("33 MP2T/90000"))

        // RTP/AVP 33: 7 × 188-byte TS packets per datagram, consecutive sequence numbers, one SSRC.
        let sequences = capture.rtp.map(\.1.sequenceNumber)
        #expect(sequences == (0..<3).map { sequences[0] &+ UInt16($0) })
        for (datagram, packet) in capture.rtp {
            #expect(datagram.destination.description == "239.255.1.1:5004" && datagram.source.address == Self.streamerV4)
            #expect(packet.payloadType == 33 && packet.ssrc == capture.rtp[0].1.ssrc && packet.payload.count == 7 * 188)
            let split = TSPacket.split(packet.payload)
            #expect(split.trailing == 0 && split.packets.count == 7)
            #expect(split.packets.allSatisfy { if case .success = $0 { return true } else { return false } })
        }
    }

    /// The hand-written lookalike (sap-ipv4-vlc.bin, vlc-mpegts.sdp) has the real one's shape:
    /// same SAP flags and payload type, same SDP lines in the same order.
    @Test func vlcLookalikeMatchesTheRealSender() throws {
        let real = try RealSenderCapture("vlc-sap.pcap").announcements[0]
        let lookalikeBytes = try CoreFixtures.bytes("discovery/sap-ipv4-vlc.bin")
        guard case .success(let lookalike) = SAPMessage.parse(lookalikeBytes) else {
            Issue.record("sap-ipv4-vlc.bin does not parse")
            return
        }
        // V=1, IPv4 origin, not a deletion, not encrypted or compressed; no authentication data.
        #expect(real.datagram.payload.prefix(2).elementsEqual(lookalikeBytes.prefix(2)))
        #expect(lookalike.payloadType == real.sap.payloadType)
        #expect(Self.lineTypes(lookalike.payload) == Self.lineTypes(real.sap.payload))
        #expect(Self.lineTypes(try CoreFixtures.bytes("discovery/vlc-mpegts.sdp")) == Self.lineTypes(real.sap.payload))
        let fake = ChannelAnnouncement(sdp: try SDPParser.parse(lookalike.payload[...]), sap: lookalike)
        #expect(fake.kind == real.channel.kind && fake.format == real.channel.format && fake.ttl == real.channel.ttl)
    }

    @Test func ffmpegH264OverIPv4IsUnsupportedAndDeletedOnExit() throws {
        let capture = try RealSenderCapture("ffmpeg-sap.pcap")
        #expect(capture.link == .ethernet && capture.announcements.count == 2 && capture.rtp.count == 4)
        let (announcement, deletion) = (capture.announcements[0], capture.announcements[1])
        for a in capture.announcements {
            // FFmpeg announces on the global SAP group whatever the group's scope.
            #expect(a.datagram.destination.description == "224.2.127.254:9875" && a.datagram.hopLimit == 255)
            #expect(a.sap.origin == Self.streamerV4 && a.sap.payloadType == "application/sdp" && !a.sap.wasCompressed)
        }
        #expect(announcement.sap.kind == .announcement && deletion.sap.kind == .deletion)
        // The deletion repeats the whole description under the same hash.
        #expect(deletion.sap.messageIDHash == announcement.sap.messageIDHash && deletion.sap.payload == announcement.sap.payload)

        let c = announcement.channel
        #expect(c.kind == .unsupported(reason: "H.264 RTP (RFC 6184) is not MPEG-TS"))
        #expect(c.id == "no-name" && c.name == "No Name" && c.channelText == nil)
        #expect(c.group?.description == "239.255.1.2" && c.port == 5006 && c.ttl == 255 && c.format == "96")
        // o= says 127.0.0.1 (sess-id 0): the SAP origin is the streamer that counts.
        #expect(announcement.sdp.origin.address == "127.0.0.1" && c.sessionID == "0" && c.sessionVersion == "0")
        #expect(c.streamer == Self.streamerV4 && c.bandwidthKbps == nil)
        #expect(announcement.sdp.connection?.address == "239.255.1.2" && announcement.sdp.media[0].connections.isEmpty)
        #expect(announcement.sdp.attribute("tool")?.hasPrefix("libavformat") == true)
        #expect(announcement.sdp.media[0].rtpmap("96")?.encoding == "H264")
        #expect(announcement.sdp.media[0].attribute("fmtp")?.hasPrefix("96 packetization-mode=1;") == true)
        #expect(SDPParser.origin(in: String(decoding: deletion.sap.payload, as: UTF8.self))?.address == "127.0.0.1")

        for (datagram, packet) in capture.rtp {
            #expect(datagram.destination.description == "239.255.1.2:5006" && packet.payloadType == 96)
        }
        // RFC 6184: the first packet is a STAP-A (NAL type 24) carrying the parameter sets.
        #expect(capture.rtp.first.map { $0.1.payload.first.map { $0 & 0x1F } } == 24)
    }

    @Test func bothSendersOverIPv6() throws {
        let capture = try RealSenderCapture("sap-ipv6.pcap")
        #expect(capture.announcements.count == 3 && capture.rtp.count == 4)
        for a in capture.announcements {
            #expect(a.datagram.destination.description == "[ff0e::2:7ffe]:9875")
            #expect(a.sap.origin == Self.streamerV6 && a.datagram.source.address == Self.streamerV6)
        }
        let vlc = try #require(capture.announcements.first { $0.sdp.attribute("tool")?.hasPrefix("vlc") == true })
        #expect(vlc.channel.kind == .video && vlc.channel.name == "Bowl Cam 6" && vlc.channel.port == 5008)
        // IPv6 has no TTL in c= (RFC 8866 §5.7).
        #expect(vlc.channel.group?.description == "ff0e::1:1" && vlc.channel.ttl == nil && vlc.sdp.connection?.addressType == "IP6")
        #expect(vlc.channel.streamer == Self.streamerV6)

        let ffmpeg = capture.announcements.filter { $0.sdp.attribute("tool")?.hasPrefix("libavformat") == true }
        #expect(ffmpeg.map(\.sap.kind) == [.announcement, .deletion])
        let f = try #require(ffmpeg.first)
        #expect(f.channel.kind == .unsupported(reason: "H.264 RTP (RFC 6184) is not MPEG-TS"))
        #expect(f.channel.group?.description == "ff0e::1:2" && f.channel.port == 5010 && f.sdp.origin.address == "::1")

        let byPort = Dictionary(grouping: capture.rtp, by: { $0.0.destination.port })
        #expect(byPort[5008]?.map(\.1.payloadType) == [33, 33] && byPort[5010]?.map(\.1.payloadType) == [96, 96])
        #expect(byPort[5008]?.allSatisfy { $0.1.payload.count == 7 * 188 } == true)
    }
}
