// The DVB service description table parser (ETSI EN 300 468 §5.2.3) and its text fields (Annex
// A) on arbitrary section bytes, whole and through the PSI section assembler in 184-byte payloads.
@testable import GrandstandCore

func fuzzOne(_ bytes: [UInt8]) {
    if let table = ServiceDescriptionTable.parse(section: bytes) {
        require(table.services.count <= bytes.count / 5, "every service takes at least its 5-byte header")
        for service in table.services {
            require((service.name?.utf8.count ?? 0) <= bytes.count * 3, "a name comes from the section's bytes")
        }
    }
    _ = DVBText.decode(bytes[...])
    var assembler = PSISectionAssembler()
    var outputs: [PSISectionAssembler.Output] = []
    var start = bytes.startIndex
    while start < bytes.endIndex {
        let end = min(start + 184, bytes.endIndex)
        assembler.push(payload: bytes[start..<end], unitStart: start == bytes.startIndex, into: &outputs)
        start = end
    }
    for case .section(let section) in outputs { _ = ServiceDescriptionTable.parse(section: section) }
}
