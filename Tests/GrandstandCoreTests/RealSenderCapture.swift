import Capture
import TestSupport
@testable import GrandstandCore

/// A real sender's capture (tools/fixtures/make-sap-captures.sh) read the way the live path reads
/// frames: libpcap (offline) → FrameDecoder → SAP → SDP → ChannelAnnouncement, and RTP.
struct RealSenderCapture {
    struct Announcement {
        var sap: SAPMessage
        var sdp: SessionDescription
        var channel: ChannelAnnouncement
        var datagram: Datagram
    }

    enum Failure: Error { case unknownLinkType(Int32), frame(DropReason), sap(DropReason), rtp(DropReason) }

    var link: LinkLayer
    var datagrams: [Datagram] = []
    var announcements: [Announcement] = []
    var rtp: [(Datagram, RTPPacket)] = []

    init(_ fixture: String) throws {
        let capture = try PacketCapture.open(file: Fixtures.path("discovery/\(fixture)"))
        guard let link = LinkLayer(linkType: capture.linkType.rawValue) else {
            throw Failure.unknownLinkType(capture.linkType.rawValue)
        }
        self.link = link
        while let packet = try capture.next() {
            switch FrameDecoder.decode(packet.bytes, link: link, timestampNanoseconds: packet.timestampNanoseconds) {
            case .failure(let reason): throw Failure.frame(reason)
            case .success(let datagram): try add(datagram)
            }
        }
    }

    private mutating func add(_ datagram: Datagram) throws {
        datagrams.append(datagram)
        if datagram.destination.port == SAPMessage.port {
            switch SAPMessage.parse(datagram.payload) {
            case .failure(let reason): throw Failure.sap(reason)
            case .success(let sap):
                let sdp = try SDPParser.parse(sap.payload[...])
                announcements.append(Announcement(sap: sap, sdp: sdp, channel: ChannelAnnouncement(sdp: sdp, sap: sap), datagram: datagram))
            }
        } else {
            switch RTPPacket.parse(datagram.payload) {
            case .failure(let reason): throw Failure.rtp(reason)
            case .success(let packet): rtp.append((datagram, packet))
            }
        }
    }
}
