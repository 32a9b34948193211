import Testing
@testable import GrandstandCore

/// Packets and an FDT written by tools/fixtures/make-flute-fixtures.py straight from the RFC bit
/// layouts (not by our encoder): parse gives the fields, and our encoder gives the same bytes.
@Suite("FileDelivery golden fixtures")
struct FileDeliveryGoldenTests {
    @Test func compactNoCodePacket() throws {
        let bytes = try CoreFixtures.bytes("files/alc-nocode.bin")
        let packet = try ALCPacket.parse(bytes[...], encodingID: 0).get()
        #expect(packet.header.tsi == 0x0102_0304 && packet.header.toi == 5 && packet.header.codepoint == 0)
        #expect(packet.sourceBlockNumber == 2 && packet.encodingSymbolID == 3)
        #expect(Array(packet.symbol) == Array("0123456789".utf8))
        let fti = try #require(packet.header.fti)
        #expect(FECObjectInfo.parse(fti: fti, encodingID: 0) == FECObjectInfo(encodingID: 0, transferLength: 1000, symbolLength: 100,
                                                                                 maxSourceBlockLength: 16))
        let header = LCTHeader(tsi: 0x0102_0304, toi: 5, extensions: [FECObjectInfo(encodingID: 0, transferLength: 1000, symbolLength: 100,
                                                                                     maxSourceBlockLength: 16).ftiExtension],
                               tsiBytes: 4, toiBytes: 4)
        let ours = ALCPacket(header: header, sourceBlockNumber: 2, encodingSymbolID: 3, symbol: Array("0123456789".utf8)[...])
        #expect(ours.encode(encodingID: 0) == bytes)
    }

    @Test func reedSolomonFDTPacket() throws {
        let bytes = try CoreFixtures.bytes("files/alc-rs.bin")
        let packet = try ALCPacket.parse(bytes[...], encodingID: 5).get()
        #expect(packet.header.tsi == 0xBEEF && packet.header.toi == 0 && packet.header.codepoint == 5)
        #expect(packet.header.fdt?.version == 2 && packet.header.fdt?.instanceID == 0x12345)
        #expect(packet.sourceBlockNumber == 0x010203 && packet.encodingSymbolID == 0x17)
        let oti = FECObjectInfo(encodingID: 5, transferLength: 2500, symbolLength: 100, maxSourceBlockLength: 20, maxEncodingSymbols: 25)
        #expect(FECObjectInfo.parse(fti: try #require(packet.header.fti), encodingID: 5) == oti)
        let header = LCTHeader(tsi: 0xBEEF, toi: 0, codepoint: 5, extensions: [.fdt(version: 2, instanceID: 0x12345), oti.ftiExtension])
        #expect(ALCPacket(header: header, sourceBlockNumber: 0x010203, encodingSymbolID: 0x17, symbol: Array("abcd".utf8)[...])
            .encode(encodingID: 5) == bytes)
    }

    @Test func mbmsStyleFDT() throws {
        let fdt = try FDTInstance.parse(try CoreFixtures.bytes("files/fdt-mbms.xml")).get()
        #expect(fdt.expires == 3_987_654_321)
        #expect(fdt.files.map(\.contentLocation) == ["http://venue.example/ccast/ccast-timeline.xml", "media/clip-1.mp4"])
        #expect(fdt.files.map { ContentLocation.relativePath($0.contentLocation) } == ["ccast/ccast-timeline.xml", "media/clip-1.mp4"])
        #expect(fdt.files[0].md5 == MD5.digest(Array("hello\n".utf8)))
        #expect(fdt.files[1].contentType == "application/octet-stream")
        #expect(fdt.files[1].objectInfo == FECObjectInfo(encodingID: 0, transferLength: 60_000, symbolLength: 1024, maxSourceBlockLength: 64))
    }
}
