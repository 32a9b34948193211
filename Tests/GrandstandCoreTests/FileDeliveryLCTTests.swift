import Testing
@testable import GrandstandCore

@Suite("FileDelivery LCT/ALC")
struct FileDeliveryLCTTests {
    /// RFC 5651 header: V=1, C=0, S=1, O=1, H=0, HDR_LEN=4 words, CP=0, CCI, TSI, TOI.
    static let minimal: [UInt8] = [0x10, 0xA0, 0x04, 0x00, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 9]

    @Test func parsesTheMinimalHeader() throws {
        let parsed = try LCTHeader.parse(Self.minimal[...]).get()
        #expect(parsed.length == 16)
        #expect(parsed.header.tsi == 7)
        #expect(parsed.header.toi == 9)
        #expect(parsed.header.extensions.isEmpty)
        var out: [UInt8] = []
        parsed.header.encode(into: &out)
        #expect(out == Self.minimal)
    }

    @Test func halfWordFieldsAndFlags() throws {
        // S=0, O=0, H=1: 16-bit TSI and TOI; A and B set; C=1 (8 bytes CCI).
        let bytes: [UInt8] = [0x14, 0x13, 0x05, 0x05, 1, 2, 3, 4, 5, 6, 7, 8, 0x12, 0x34, 0x56, 0x78]
        // 4 + 8 + 2 + 2 = 16, but HDR_LEN says 20: four bytes of extension area (EXT_CENC).
        let packet = bytes + [193, 2, 0, 0]
        let parsed = try LCTHeader.parse(packet[...]).get()
        #expect(parsed.header.tsi == 0x1234 && parsed.header.toi == 0x5678)
        #expect(parsed.header.closeSession && parsed.header.closeObject)
        #expect(parsed.header.congestionControl == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(parsed.header.codepoint == 5)
        #expect(parsed.header.contentEncoding == 2)
        var out: [UInt8] = []
        parsed.header.encode(into: &out)
        #expect(out == packet)
    }

    @Test func wideTOIWithZeroHighBitsIsAccepted() throws {
        // O=3, H=1: 14-byte TOI; S=1 H=1: 6-byte TSI.
        var bytes: [UInt8] = [0x10, 0xF0, 0x07, 0x00, 0, 0, 0, 0]
        bytes += [0, 0, 0, 0, 0, 1]
        bytes += [UInt8](repeating: 0, count: 13) + [42]
        bytes += [0]   // pad: 4 + 4 + 6 + 14 = 28 = 7 words
        bytes.removeLast()
        let parsed = try LCTHeader.parse(bytes[...]).get()
        #expect(parsed.header.toi == 42 && parsed.header.tsi == 1)
        var high = bytes
        high[14] = 1
        #expect(LCTHeader.parse(high[...]).failure == .toiTooLarge)
    }

    @Test func headerExtensionsRoundTrip() throws {
        let oti = FECObjectInfo(encodingID: 5, transferLength: 123_456, symbolLength: 1000, maxSourceBlockLength: 20, maxEncodingSymbols: 25)
        let header = LCTHeader(tsi: 0xABCDEF, toi: 0, codepoint: 5,
                               extensions: [.fdt(version: 2, instanceID: 0xF_FFFF), oti.ftiExtension, .nop(words: 2),
                                            .contentEncoding(1), .auth([1, 2, 3, 4, 5, 6]), .time([9, 9]), .other(type: 200, contents: [1, 2, 3])])
        var out: [UInt8] = []
        header.encode(into: &out)
        let parsed = try LCTHeader.parse(out[...]).get()
        #expect(parsed.length == out.count)
        #expect(parsed.header.fdt?.instanceID == 0xF_FFFF && parsed.header.fdt?.version == 2)
        let fti = try #require(parsed.header.fti)
        #expect(FECObjectInfo.parse(fti: fti, encodingID: 5) == oti)
        #expect(parsed.header.extensions.count == 7)
        #expect(parsed.header.extensions[2] == .nop(words: 2))
        #expect(parsed.header.extensions[4] == .auth([1, 2, 3, 4, 5, 6]))
        #expect(parsed.header.extensions[5] == .time([9, 9]))   // 2 + 2 bytes: one word
    }

    @Test func compactNoCodeFTIRoundTrips() {
        let oti = FECObjectInfo(encodingID: 0, transferLength: 0xFFFF_FFFF_FF, symbolLength: 1400, maxSourceBlockLength: 70_000)
        guard case .fti(let bytes) = oti.ftiExtension else { Issue.record("not an FTI"); return }
        #expect(bytes.count == 14)   // HEL 4: 16 bytes with HET/HEL
        #expect(FECObjectInfo.parse(fti: bytes, encodingID: 0) == oti)
    }

    /// Table of broken headers: each must be refused with the given reason.
    static let malformed: [(String, [UInt8], FluteDrop)] = [
        ("empty", [], .malformedLCT),
        ("three bytes", [0x10, 0xA0, 0x04], .malformedLCT),
        ("version 0", [0x00, 0xA0, 0x04, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 9], .malformedLCT),
        ("version 2", [0x20, 0xA0, 0x04, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 9], .malformedLCT),
        ("HDR_LEN below fixed part", [0x10, 0xA0, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 9], .malformedLCT),
        ("HDR_LEN past the packet", [0x10, 0xA0, 0x05, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 9], .malformedLCT),
        ("zero TSI width", [0x10, 0x20, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 9], .malformedLCT),
        ("zero TOI width", [0x10, 0x80, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 7], .malformedLCT),
        ("HEL zero", [0x10, 0xA0, 0x05, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 9, 64, 0, 0, 0], .malformedLCT),
        ("HEL past HDR_LEN", [0x10, 0xA0, 0x05, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 9, 64, 2, 0, 0, 0, 0, 0, 0], .malformedLCT),
        ("CCI past HDR_LEN", [0x1C, 0xA0, 0x04, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 9], .malformedLCT),
    ]

    @Test(arguments: 0..<11) func malformedHeaders(_ index: Int) {
        let (name, bytes, reason) = Self.malformed[index]
        #expect(LCTHeader.parse(bytes[...]).failure == reason, "\(name)")
    }

    @Test func everyPrefixOfAPacketIsRefusedCleanly() throws {
        let header = LCTHeader(tsi: 3, toi: 4, extensions: [FECObjectInfo(encodingID: 0, transferLength: 10, symbolLength: 10, maxSourceBlockLength: 1).ftiExtension])
        let packet = ALCPacket(header: header, sourceBlockNumber: 0, encodingSymbolID: 0, symbol: Array(repeating: 0x55, count: 10)[...])
        let bytes = packet.encode(encodingID: 0)
        #expect(try ALCPacket.parse(bytes[...], encodingID: 0).get() == packet)
        for cut in 0..<bytes.count {
            let prefix = bytes[..<cut]
            switch ALCPacket.parse(prefix, encodingID: 0) {
            case .success(let parsed): #expect(parsed.symbol.count < 10, "prefix \(cut) parsed whole")
            case .failure(let reason): #expect(reason == .malformedLCT || reason == .malformedALC)
            }
        }
        // Odd splits: the packet at an odd offset inside a bigger buffer parses the same.
        let padded = [0xEE, 0xEE, 0xEE] + bytes + [0xEE]
        let slice = padded[3..<(3 + bytes.count)]
        #expect(try ALCPacket.parse(slice, encodingID: 0).get() == packet)
    }

    @Test func payloadIDLayouts() throws {
        let header = LCTHeader(tsi: 1, toi: 2)
        let nocode = ALCPacket(header: header, sourceBlockNumber: 0x1234, encodingSymbolID: 0x5678, symbol: [1][...]).encode(encodingID: 0)
        #expect(Array(nocode.suffix(5)) == [0x12, 0x34, 0x56, 0x78, 1])
        let rs = ALCPacket(header: header, sourceBlockNumber: 0x123456, encodingSymbolID: 0x78, symbol: [1][...]).encode(encodingID: 5)
        #expect(Array(rs.suffix(5)) == [0x12, 0x34, 0x56, 0x78, 1])
        let back = try ALCPacket.parse(rs[...], encodingID: 5).get()
        #expect(back.sourceBlockNumber == 0x123456 && back.encodingSymbolID == 0x78)
        #expect(ALCPacket.parse(rs[...], encodingID: 3).failure == .unsupportedFEC)
    }

    @Test func blockPartitioningFollowsRFC5052() throws {
        // L = 10_000, E = 100 → T = 100; B = 30 → N = 4 blocks of 25.
        let even = try #require(FECObjectInfo(encodingID: 0, transferLength: 10_000, symbolLength: 100, maxSourceBlockLength: 30).blocks)
        #expect(even.map(\.sourceSymbols) == [25, 25, 25, 25])
        // T = 101 → N = 4, A_large = 26, A_small = 25, I = 1.
        let odd = try #require(FECObjectInfo(encodingID: 0, transferLength: 10_001, symbolLength: 100, maxSourceBlockLength: 30).blocks)
        #expect(odd.map(\.sourceSymbols) == [26, 25, 25, 25])
        #expect(odd.map(\.firstSymbol) == [0, 26, 51, 76])
        // RS: n = ⌊k · max_n / B⌋.
        let rs = try #require(FECObjectInfo(encodingID: 5, transferLength: 2_500, symbolLength: 100, maxSourceBlockLength: 20, maxEncodingSymbols: 25).blocks)
        #expect(rs.map(\.sourceSymbols) == [13, 12])
        #expect(rs.map(\.encodingSymbols) == [16, 15])
        #expect(FECObjectInfo(encodingID: 5, transferLength: 10, symbolLength: 1, maxSourceBlockLength: 20, maxEncodingSymbols: 10).blocks == nil)
        #expect(FECObjectInfo(encodingID: 0, transferLength: 0, symbolLength: 100, maxSourceBlockLength: 30).blocks == [])
    }
}
