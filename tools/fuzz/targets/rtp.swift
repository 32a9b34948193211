// RTPPacket.parse on any bytes; accepted packets re-serialize (FECRecovery.bytes) and parse
// back to the same packet.
@testable import GrandstandCore

func fuzzOne(_ bytes: [UInt8]) {
    guard case .success(let packet) = RTPPacket.parse(bytes) else { return }
    require(packet.payload.count + packet.paddingLength <= bytes.count - 12, "payload and padding inside the packet")
    let again = FECRecovery.bytes(of: packet)
    guard case .success(let reparsed) = RTPPacket.parse(again) else {
        require(false, "re-serialized packet does not parse")
        return
    }
    require(Array(reparsed.payload) == Array(packet.payload) && reparsed.csrcs == packet.csrcs
            && reparsed.sequenceNumber == packet.sequenceNumber && reparsed.paddingLength == packet.paddingLength,
            "round trip changed the packet")
}
