// FLUTE file channels (docs/files.md): the LCT header with its extensions, the ALC Payload IDs
// of both FEC schemes, the FDT XML subset and the receiver fed the input as packets. Accepted
// LCT headers encode back to bytes that parse to the same header. The input is also a gzip
// member (Content-Encoding, bounded output; whatever decodes re-encodes and decodes to itself)
// and an a=flute-tsi value.
@testable import GrandstandCore

func fuzzOne(_ bytes: [UInt8]) {
    let packet = bytes[...]
    if case .success(let (header, length)) = LCTHeader.parse(packet) {
        require(length <= bytes.count && length >= 8, "header length within the packet")
        var again: [UInt8] = []
        header.encode(into: &again)
        if case .success(let (reparsed, _)) = LCTHeader.parse(again[...]) {
            require(reparsed.tsi == header.tsi && reparsed.toi == header.toi && reparsed.extensions.count == header.extensions.count,
                    "LCT header round trip")
        } else {
            require(header.extensions.contains { if case .other = $0 { return true } else { return false } }
                        || header.congestionControl.count > 16, "an encoded header parses again")
        }
        if let fti = header.fti {
            for id in [FECObjectInfo.compactNoCode, FECObjectInfo.reedSolomonGF256] {
                if let info = FECObjectInfo.parse(fti: fti, encodingID: id), info.isValid, info.transferLength < 1 << 24 {
                    _ = info.blocks
                }
            }
        }
    }
    _ = ALCPacket.parse(packet, encodingID: 0)
    _ = ALCPacket.parse(packet, encodingID: 5)
    if case .success(let fdt) = FDTInstance.parse(bytes) {
        require(FDTInstance.parse(fdt.xml()) == .success(fdt), "FDT instance round trip")
    }
    for encoding in ["gzip", "deflate"] {
        if case .success(let content) = ContentCoding.decode(bytes, encoding: encoding, limit: 1 << 16) {
            require(content.count <= 1 << 16, "decoded content within the limit")
            require(ContentCoding.decode(ContentCoding.gzip(content), encoding: "gzip", limit: 1 << 16) == .success(content), "gzip round trip")
        }
    }
    if let tsi = FluteTSIAttribute.parse(String(decoding: bytes.prefix(32), as: UTF8.self)) {
        require(tsi < 1 << 48 && FluteTSIAttribute.parse(String(tsi)) == tsi, "a=flute-tsi round trip")
    }
    var receiver = FluteReceiver(configuration: FluteReceiverConfiguration(maxObjectBytes: 1 << 20, maxBufferedBytes: 4 << 20))
    // The input as a few packets: split at 0xFF bytes.
    for piece in bytes.split(separator: 0xFF, maxSplits: 16) { _ = receiver.receive(piece, nowNanoseconds: 1_767_225_600_000_000_000) }
    require(receiver.stats.packets == min(17, bytes.split(separator: 0xFF, maxSplits: 16).count), "every packet counted")
}
