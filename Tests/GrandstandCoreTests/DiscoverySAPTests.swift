import Testing
@testable import GrandstandCore

struct DiscoverySAPTests {
    func message(_ fixture: String) throws -> SAPMessage {
        let result = SAPMessage.parse(try CoreFixtures.bytes("discovery/\(fixture)"))
        guard case .success(let message) = result else { throw result.failureReason ?? .sapTruncated }
        return message
    }

    @Test func ipv4AnnouncementWithPayloadType() throws {
        let m = try message("sap-ipv4-vlc.bin")
        #expect(m.kind == .announcement && m.origin.description == "192.0.2.10" && m.messageIDHash == 0x1A2B)
        #expect(m.payloadType == "application/sdp" && !m.wasCompressed && m.authenticationLength == 0)
        let expected = try CoreFixtures.bytes("discovery/vlc-mpegts.sdp")
        #expect(m.payload == expected)
    }

    @Test func ipv6OriginAndAuthenticationDataSkipped() throws {
        let m = try message("sap-ipv6-auth.bin")
        #expect(m.origin.description == "2001:db8::5" && m.messageIDHash == 0xBEEF && m.authenticationLength == 12)
        let expected = try CoreFixtures.bytes("discovery/grandstand-file.sdp")
        #expect(m.payload == expected)
    }

    @Test func absentPayloadTypeMeansSDP() throws {
        let m = try message("sap-no-type.bin")
        #expect(m.payloadType == nil)
        let expected = try CoreFixtures.bytes("discovery/grandstand-data.sdp")
        #expect(m.payload == expected)
    }

    @Test func deletion() throws {
        let m = try message("sap-deletion.bin")
        #expect(m.kind == .deletion && m.messageIDHash == 0x4242)
        let origin = try #require(SDPParser.origin(in: String(decoding: m.payload, as: UTF8.self)))
        #expect(origin.username == "grandstand" && origin.sessionID == "4242" && origin.sessionVersion == "7")
        let vlc = try CoreFixtures.text("discovery/vlc-mpegts.sdp")
        #expect(SDPParser.origin(in: vlc)?.address == "streamer-1")
        #expect(SDPParser.origin(in: "o=- x 1 IN IP4 a\r\n") == nil)
    }

    @Test func zlibCompressedPayloadIsInflated() throws {
        let m = try message("sap-zlib.bin")
        #expect(m.wasCompressed && m.payloadType == "application/sdp")
        let expected = try CoreFixtures.bytes("discovery/grandstand-video.sdp")
        #expect(m.payload == expected)
    }

    @Test func encodeRoundTrips() throws {
        let sdp = Array("v=0\r\n".utf8)
        let origin = try #require(IPAddress(parsing: "ff15::1"))
        let bytes = SAPMessage.encode(kind: .deletion, origin: origin, messageIDHash: 9, payload: sdp, authentication: [1, 2, 3, 4])
        #expect(SAPMessage.parse(bytes) == .success(SAPMessage(kind: .deletion, origin: origin, messageIDHash: 9,
                                                                authenticationLength: 4, wasCompressed: false,
                                                                payloadType: "application/sdp", payload: sdp)))
    }

    @Test func refusals() throws {
        var v2 = try CoreFixtures.bytes("discovery/sap-ipv4-vlc.bin"); v2[0] = 0x40
        var encrypted = try CoreFixtures.bytes("discovery/sap-ipv4-vlc.bin"); encrypted[0] |= 0x02
        var badZlib = try CoreFixtures.bytes("discovery/sap-zlib.bin"); badZlib[badZlib.count - 1] ^= 0xFF
        let otherType = SAPMessage.encode(kind: .announcement, origin: .v4(1), messageIDHash: 1, payloadType: "text/plain", payload: [65])
        let noTerminator = SAPMessage.encode(kind: .announcement, origin: .v4(1), messageIDHash: 1, payloadType: nil,
                                             payload: Array("application/sdp".utf8))
        #expect(SAPMessage.parse(v2).failureReason == .sapVersionMismatch)
        #expect(SAPMessage.parse(encrypted).failureReason == .sapEncrypted)
        #expect(SAPMessage.parse(badZlib).failureReason == .sapBadCompression)
        #expect(SAPMessage.parse(otherType).failureReason == .sapUnsupportedPayloadType)
        #expect(SAPMessage.parse(noTerminator).failureReason == .sapTruncated)
    }

    /// Every prefix that ends inside the header, origin, auth data or payload type is refused;
    /// none traps. (Prefixes of the plain SDP payload itself are SAP-valid.)
    @Test(arguments: ["sap-ipv4-vlc.bin", "sap-ipv6-auth.bin", "sap-zlib.bin", "sap-deletion.bin"])
    func everyTruncation(fixture: String) throws {
        let bytes = try CoreFixtures.bytes("discovery/\(fixture)")
        let whole = try message(fixture)
        for end in 0..<bytes.count {
            switch SAPMessage.parse(bytes[..<end]) {
            case .failure(let reason): #expect([.sapTruncated, .sapBadCompression].contains(reason), "\(fixture) \(end)")
            case .success(let m):
                #expect(!whole.wasCompressed, "\(fixture) \(end): a truncated zlib stream was accepted")
                #expect(whole.payload.starts(with: m.payload))
            }
        }
    }
}

extension Result {
    var failureReason: Failure? { if case .failure(let f) = self { return f } else { return nil } }
}
