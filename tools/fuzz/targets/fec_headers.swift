// The two FEC headers: the Reed-Solomon repair header (ours, docs/protocol.md) and the SMPTE
// 2022-1 FEC packet; accepted headers serialize back to the bytes they came from.
@testable import GrandstandCore

func fuzzOne(_ bytes: [UInt8]) {
    let packet = bytes[...]
    if case .success(let (header, symbol)) = ReedSolomonRepairHeader.parse(packet: packet) {
        require(symbol.count == header.symbolLength, "symbol length as declared")
        require(header.bytes == Array(bytes[12..<(12 + ReedSolomonRepairHeader.size)]), "repair header round trip")
    }
    _ = ReedSolomonRepairHeader.parse(body: packet)
    if case .success(let fec) = SMPTE2022FECPacket.parse(packet) {
        require(!fec.payload.isEmpty && fec.columns >= 1, "accepted FEC packet has payload and geometry")
        let again = fec.serialized(timestamp: 0)
        guard case .success(let reparsed) = SMPTE2022FECPacket.parse(again[...]) else {
            require(false, "serialized SMPTE 2022-1 packet does not parse")
            return
        }
        require(reparsed == fec || Array(reparsed.payload) == Array(fec.payload), "SMPTE 2022-1 round trip")
    }
}
