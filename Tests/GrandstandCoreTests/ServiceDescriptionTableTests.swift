import Testing
import TestSupport
@testable import GrandstandCore

/// The DVB SDT (ETSI EN 300 468 §5.2.3) and its text fields (Annex A).
struct ServiceDescriptionTableTests {
    static func service(_ id: UInt16, type: UInt8 = 0x01, provider: [UInt8], name: [UInt8], running: UInt8 = 4) -> [UInt8] {
        let descriptor: [UInt8] = [0x48, UInt8(3 + provider.count + name.count), type, UInt8(provider.count)] + provider + [UInt8(name.count)] + name
        return [UInt8(id >> 8), UInt8(id & 0xFF), 0xFC, running << 5 | UInt8(descriptor.count >> 8), UInt8(descriptor.count & 0xFF)] + descriptor
    }

    static func sdt(_ services: [[UInt8]], version: UInt8 = 3) -> [UInt8] {
        TSBuilder.section(tableID: 0x42, idExtension: 0x0401, version: version, body: [0x20, 0x85, 0xFF] + services.flatMap { $0 })
    }

    @Test func twoServicesWithTheirNames() throws {
        let section = Self.sdt([Self.service(1, provider: Array("Venue".utf8), name: Array("Main Bowl".utf8)),
                                Self.service(2, type: 0x02, provider: [], name: [0x15] + Array("Tribüne Süd".utf8))])
        let table = try #require(ServiceDescriptionTable.parse(section: section))
        #expect(table.transportStreamID == 0x0401 && table.originalNetworkID == 0x2085 && table.version == 3)
        #expect(table.services.map(\.serviceID) == [1, 2])
        #expect(table.services.map(\.name) == ["Main Bowl", "Tribüne Süd"])
        #expect(table.services[0].provider == "Venue" && table.services[1].provider == nil)
        #expect(table.services.map(\.type) == [0x01, 0x02] && table.services[0].runningStatus == 4)
    }

    /// FFmpeg's mpegts muxer writes an SDT with its defaults (provider "FFmpeg", "Service01").
    @Test func ffmpegsTableFromTheFixture() throws {
        let bytes = try TSFixture.bytes()
        var assembler = PSISectionAssembler()
        var outputs: [PSISectionAssembler.Output] = []
        for start in stride(from: 0, to: bytes.count - 187, by: 188) {
            let pid = UInt16(bytes[start + 1] & 0x1F) << 8 | UInt16(bytes[start + 2])
            guard pid == ServiceDescriptionTable.pid else { continue }
            assembler.push(payload: bytes[(start + 4)..<(start + 188)], unitStart: bytes[start + 1] & 0x40 != 0, into: &outputs)
        }
        let tables = outputs.compactMap { output -> ServiceDescriptionTable? in
            if case .section(let section) = output { return ServiceDescriptionTable.parse(section: section) }
            return nil
        }
        let table = try #require(tables.first)
        #expect(table.services.map(\.serviceID) == [1])
        #expect(table.services.first?.provider == "FFmpeg" && table.services.first?.name == "Service01")
    }

    @Test(arguments: [
        ([UInt8](), nil),
        (Array("Plain".utf8), "Plain"),
        ([0x15] + Array("Stadion Ø".utf8), "Stadion Ø"),
        ([0x11, 0x00, 0x41, 0x00, 0xE9], "Aé"),                     // UTF-16
        ([0x10, 0x00, 0x01, 0x43, 0x61, 0x66, 0xE9], "Café"),       // ISO/IEC 8859-1
        ([0x86, 0x4E, 0x65, 0x77, 0x73, 0x87], "News"),             // emphasis on/off control codes
        ([0x05], nil),                                              // a table byte and nothing else
    ] as [([UInt8], String?)])
    func textFields(bytes: [UInt8], text: String?) {
        #expect(DVBText.decode(bytes[...]) == text)
    }

    /// Cut anywhere, a section never crashes the parser and never yields a name from past its end.
    @Test func truncatedAndWrongSectionsAreRefusedOrCutShort() throws {
        let section = Self.sdt([Self.service(1, provider: Array("P".utf8), name: Array("One".utf8)),
                                Self.service(2, provider: Array("P".utf8), name: Array("Two".utf8))])
        for length in 0..<section.count {
            let cut = Array(section.prefix(length))
            if let table = ServiceDescriptionTable.parse(section: cut) {
                #expect(table.services.count <= 2)
            }
        }
        var other = section
        other[0] = 0x46   // another transport stream's SDT
        #expect(ServiceDescriptionTable.parse(section: other) == nil)
    }
}
