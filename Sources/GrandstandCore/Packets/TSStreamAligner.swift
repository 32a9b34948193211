/// Whole 188-byte TS packets from plain-UDP datagrams that need not hold whole packets: FFmpeg's
/// `udp://` output at its defaults sends 1,472-byte datagrams (7.8 packets, a packet split
/// across two), encoders send 7 × 188. The bytes are one stream: a packet cut at a datagram's
/// end is finished by the next one, if that one starts where the packet's tail should be
/// (the byte after the tail is a sync byte, ISO/IEC 13818-1 §2.4.3.2); otherwise (a datagram was
/// lost in between) the cut head is dropped, and stray bytes are skipped up to the next sync.
public struct TSStreamAligner: Sendable {
    /// The head of a packet cut at the end of the last datagram (fewer than 188 bytes).
    private var held: [UInt8] = []
    /// Bytes dropped to regain sync or because a cut packet could not be finished.
    public private(set) var skippedBytes = 0

    public init() {}

    /// The whole packets `datagram` completes or carries, in order; nothing is copied when the
    /// datagram is whole, aligned packets and nothing is held (the common 7 × 188 case).
    public mutating func packets(_ datagram: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let size = TSPacket.size, sync = TSPacket.syncByte
        if held.isEmpty, datagram.count % size == 0, datagram.first == sync { return datagram }
        var out: [UInt8] = []
        var index = datagram.startIndex
        if !held.isEmpty {
            let tail = size - held.count
            if datagram.count < tail {
                // Still short of a whole packet: keep it and look again with the next datagram.
                held += datagram
                return []
            }
            if datagram.count == tail || datagram[datagram.startIndex + tail] == sync {
                out = held
                out += datagram[index..<(index + tail)]
                index += tail
            } else {
                skippedBytes += held.count
            }
            held.removeAll(keepingCapacity: true)
        }
        while index < datagram.endIndex {
            guard datagram[index] == sync else {
                // Lost sync: skip to the next sync byte that a packet later confirms (or that
                // starts the datagram's last, possibly cut, packet).
                var next = index + 1
                while next < datagram.endIndex,
                      !(datagram[next] == sync && (next + size >= datagram.endIndex || datagram[next + size] == sync)) {
                    next += 1
                }
                skippedBytes += next - index
                index = next
                continue
            }
            if datagram.endIndex - index < size {
                held = Array(datagram[index...])
                break
            }
            out += datagram[index..<(index + size)]
            index += size
        }
        return out[...]
    }

    /// Drops a held partial packet (the channel's stream ended or restarted).
    public mutating func reset() { held.removeAll() }
}
