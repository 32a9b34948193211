/// Cuts bytes fed in pieces of any size into whole 188-byte packets, carrying a partial packet
/// over to the next piece and re-finding sync (0x47 here and 188 bytes on) when it is lost.
public struct TSPacketAligner: Sendable {
    private var carry: [UInt8] = []
    /// Bytes skipped while looking for sync.
    public private(set) var droppedBytes = 0

    public init() {}

    /// Bytes held back waiting for the rest of their packet.
    public var pendingBytes: Int { carry.count }

    /// Drops a partial packet (e.g. at a gap in the input): it can never be completed.
    public mutating func reset() {
        droppedBytes += carry.count
        carry.removeAll(keepingCapacity: true)
    }

    /// The whole packets `bytes` completes, in order.
    public mutating func packets(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var out: [ArraySlice<UInt8>] = []
        out.reserveCapacity(bytes.count / TSPacket.size + 1)
        var input = bytes
        if !carry.isEmpty {
            let need = TSPacket.size - carry.count
            carry.append(contentsOf: input.prefix(need))
            input = input.dropFirst(need)
            guard carry.count == TSPacket.size else { return out }
            let packet = carry
            carry.removeAll(keepingCapacity: true)
            if packet[0] == TSPacket.syncByte {
                out.append(packet[...])
            } else {
                // Lost sync inside the carried bytes: rescan them together with the new input.
                droppedBytes += 1
                input = (Array(packet.dropFirst()) + input)[...]
            }
        }
        var i = input.startIndex
        let end = input.endIndex
        while i < end {
            if input[i] != TSPacket.syncByte || (i + TSPacket.size < end && input[i + TSPacket.size] != TSPacket.syncByte) {
                droppedBytes += 1
                i += 1
                continue
            }
            if end - i < TSPacket.size {
                carry.append(contentsOf: input[i..<end])
                break
            }
            out.append(input[i..<(i + TSPacket.size)])
            i += TSPacket.size
        }
        return out
    }
}
