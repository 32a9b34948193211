// SDPParser on any text, then ChannelAnnouncement and the FEC attribute of every media section.
@testable import GrandstandCore

func fuzzOne(_ bytes: [UInt8]) {
    guard let sdp = try? SDPParser.parse(bytes[...]) else { return }
    let announcement = ChannelAnnouncement(sdp: sdp)
    _ = ChannelSlug.make(announcement.name)
    _ = ChannelAnnouncement.chooseMedia(sdp)
    for media in sdp.media {
        for attribute in media.attributes {
            if let value = attribute.value {
                _ = FECParameters.parse(value, mediaPort: media.port)
                _ = RTPMap(value)
            }
        }
    }
    _ = SDPParser.origin(in: String(decoding: bytes, as: UTF8.self))
}
