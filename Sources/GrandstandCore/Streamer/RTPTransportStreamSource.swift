/// Sends a transport stream as RTP/AVP payload type 33 (RFC 2250 §2): up to 7 TS packets per
/// datagram, each datagram due at the PCR-derived time of its first TS packet, with the RTP
/// timestamp (90 kHz) of that same instant.
///
/// Looping (docs/streamer.md): pass k starts at `start + k × duration`. The RTP sequence
/// number and timestamp keep counting (no marker, no jump), continuity counters are rewritten
/// per PID so they continue across the seam, and the first PCR packet of every pass after the
/// first gets the adaptation field's discontinuity_indicator (§2.4.3.5), which marks the PCR/PTS
/// time-base restart for receivers and segmenters.
public struct RTPTransportStreamSource: StreamerSource {
    public let flow: String
    public let destination: Endpoint
    public let stream: PacedTransportStream
    public let identity: RTPIdentity
    public let startNanoseconds: Int64
    /// Number of passes over the file; nil loops forever.
    public let passes: Int?
    public let packetsPerDatagram: Int

    /// Passes completed so far and datagrams emitted in all.
    public private(set) var pass = 0
    public private(set) var datagramsEmitted = 0
    private var packetIndex = 0
    /// Per-PID continuity-counter offset applied in the current pass.
    private var ccOffset: [UInt16: UInt8] = [:]

    public init(flow: String, destination: Endpoint, stream: PacedTransportStream, identity: RTPIdentity,
                startNanoseconds: Int64, passes: Int? = 1, packetsPerDatagram: Int = 7) {
        self.flow = flow
        self.destination = destination
        self.stream = stream
        self.identity = identity
        self.startNanoseconds = startNanoseconds
        self.passes = passes
        self.packetsPerDatagram = max(1, packetsPerDatagram)
    }

    /// Datagrams per pass: ceil(TS packets / packetsPerDatagram), each pass packetised alone.
    public var datagramsPerPass: Int { (stream.packetCount + packetsPerDatagram - 1) / packetsPerDatagram }

    private var isExhausted: Bool { stream.packetCount == 0 || (passes.map { pass >= $0 } ?? false) }

    /// Time of the current datagram's first packet on the sender's (looped) timeline.
    private var elapsed: Int64 { Int64(pass) * stream.durationNanoseconds + stream.packetOffsets[packetIndex] }

    public var nextDueNanoseconds: Int64? { isExhausted ? nil : startNanoseconds + elapsed }

    public mutating func pop() -> [ScheduledDatagram] {
        guard !isExhausted else { return [] }
        let due = startNanoseconds + elapsed
        let end = min(packetIndex + packetsPerDatagram, stream.packetCount)
        var payload: [UInt8] = []
        payload.reserveCapacity(RTPHeader.size + (end - packetIndex) * TSPacket.size)
        RTPHeader.append(to: &payload, payloadType: RTPHeader.mpegTransportStreamPayloadType,
                         sequenceNumber: identity.initialSequence &+ UInt16(truncatingIfNeeded: datagramsEmitted),
                         timestamp: identity.initialTimestamp &+ RTPHeader.ticks(elapsed),
                         ssrc: identity.ssrc)
        for index in packetIndex..<end {
            appendPacket(index, to: &payload)
        }
        datagramsEmitted += 1
        packetIndex = end
        if packetIndex == stream.packetCount {
            packetIndex = 0
            pass += 1
            advanceContinuity()
        }
        return [ScheduledDatagram(flow: flow, destination: destination, payload: payload, dueNanoseconds: due)]
    }

    private func appendPacket(_ index: Int, to payload: inout [UInt8]) {
        let base = index * TSPacket.size
        let start = payload.count
        payload.append(contentsOf: stream.bytes[base..<(base + TSPacket.size)])
        guard pass > 0, payload[start] == TSPacket.syncByte else { return }
        let pid = UInt16(payload[start + 1] & 0x1F) << 8 | UInt16(payload[start + 2])
        if let offset = ccOffset[pid], offset != 0 {
            let header = payload[start + 3]
            payload[start + 3] = header & 0xF0 | (header &+ offset) & 0x0F
        }
        if index == stream.pcrPacketIndices.first {
            payload[start + 5] |= 0x80   // discontinuity_indicator: the PCR time base restarts here
        }
    }

    /// After a pass: each PID's counter continues from the last one sent (+1 on its first payload packet).
    private mutating func advanceContinuity() {
        for (pid, range) in stream.continuity {
            let offset = ccOffset[pid] ?? 0
            let lastSent = (range.last &+ offset) & 0x0F
            ccOffset[pid] = (lastSent &+ 1 &- range.first) & 0x0F
        }
    }
}
