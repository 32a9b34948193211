/// Cuts bytes fed in pieces of any size into whole 188-byte packets, carrying a partial packet
/// over to the next piece. Input is assumed to start aligned (datagrams do); when a packet does
/// not start with 0x47, sync is lost and found again where 0x47 repeats 188 bytes on.
public struct TSPacketAligner: Sendable {
    private var carry: [UInt8] = []
    private var locked = true
    /// Bytes skipped while looking for sync.
    public private(set) var droppedBytes = 0

    public init() {}

    /// Bytes held back waiting for the rest of their packet.
    public var pendingBytes: Int { carry.count }

    /// Drops a partial packet (e.g. at a gap in the input): it can never be completed. The next
    /// input is assumed to start aligned again.
    public mutating func reset() {
        droppedBytes += carry.count
        carry.removeAll(keepingCapacity: true)
        locked = true
    }

    /// The whole packets `bytes` completes, in order.
    public mutating func packets(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var out: [ArraySlice<UInt8>] = []
        out.reserveCapacity(bytes.count / TSPacket.size + 1)
        let buffer: ArraySlice<UInt8>
        if carry.isEmpty {
            buffer = bytes
        } else {
            carry.append(contentsOf: bytes)
            buffer = carry[...]
            carry = []
        }
        var i = buffer.startIndex
        let end = buffer.endIndex
        while i < end {
            if buffer[i] != TSPacket.syncByte {
                locked = false
                droppedBytes += 1
                i += 1
                continue
            }
            if !locked {
                // Confirm with the next packet's sync byte; wait for more input if it is not here.
                guard i + TSPacket.size < end else { break }
                guard buffer[i + TSPacket.size] == TSPacket.syncByte else {
                    droppedBytes += 1
                    i += 1
                    continue
                }
                locked = true
            }
            guard end - i >= TSPacket.size else { break }
            out.append(buffer[i..<(i + TSPacket.size)])
            i += TSPacket.size
        }
        if i < end { carry = Array(buffer[i..<end]) }
        return out
    }
}
