// SAPMessage.parse (with zlib payloads), then the registry's whole SAP path (SDP, announcement,
// license, FEC attributes, channel changes) on the same bytes.
@testable import GrandstandCore

func fuzzOne(_ bytes: [UInt8]) {
    if case .success(let message) = SAPMessage.parse(bytes) {
        require(message.payload.count <= SAPMessage.maximumPayload, "inflated payload within the limit")
        if let sdp = try? SDPParser.parse(message.payload[...]) {
            _ = ChannelAnnouncement(sdp: sdp, sap: message)
        }
    }
    var registry = ChannelRegistry(policy: .permissive, staticChannels: [])
    _ = registry.receiveSAP(bytes[...], from: ipv4(10, 1, 2, 3), at: 1_000_000_000)
    _ = registry.receiveSAP(bytes[...], from: ipv4(10, 1, 2, 3), at: 2_000_000_000)
    _ = registry.tick(now: 4_000_000_000_000)
}
