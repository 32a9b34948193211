/// Wraps a channel's media source and adds its FEC (docs/streamer.md, "The source protocol"):
/// every media datagram goes out unchanged, followed (same due time) by the repair datagrams it
/// completes — SMPTE 2022-1 column FEC to port+2 (flow `NAME.fec-col`) and row FEC to port+4
/// (`NAME.fec-row`), or Reed-Solomon repairs to the repair port (`NAME.rs`). When the inner
/// source is exhausted the encoders are flushed (a short last window, queued column FEC). The
/// scheduler applies loss after this, so dropped media really is repaired by the receiver.
public struct FECStreamerSource: StreamerSource {
    enum Encoder: Sendable {
        case smpte(SMPTE2022Encoder)
        case reedSolomon(ReedSolomonWindowEncoder)
    }

    public private(set) var inner: any StreamerSource
    public let fec: StreamerFEC
    public let mediaFlow: String
    private var encoder: Encoder
    private var flushed = false

    /// `math` does the Reed-Solomon encoding (ISA-L in the product); unused for 2022-1.
    /// `seed` derives the repair flows' first sequence numbers (deterministic like the media).
    public init(wrapping inner: any StreamerSource, flow: String, fec: StreamerFEC, math: any ReedSolomonMath, seed: UInt64 = 0) {
        self.inner = inner
        self.fec = fec
        mediaFlow = flow
        let identity = RTPIdentity(name: flow + ".fec", seed: seed)
        switch fec {
        case .smpte2022_1(let columns, let rows, let rowFEC):
            encoder = .smpte(SMPTE2022Encoder(configuration: .init(
                columns: columns, rows: rows, rowFEC: rowFEC, firstColumnSequence: identity.initialSequence,
                firstRowSequence: identity.initialSequence &+ 0x8000)))
        case .reedSolomon(let k, let m, _):
            encoder = .reedSolomon(ReedSolomonWindowEncoder(
                configuration: .init(sourceCount: k, repairCount: m, firstRepairSequence: identity.initialSequence,
                                     firstWindowID: UInt32(truncatingIfNeeded: identity.initialTimestamp),
                                     markUnsupportedWindows: true),
                math: math))
        }
    }

    /// The encoder's counters: windows/matrices protected, `window_warning`/`window_error` as the
    /// sender sees them, repair packets made.
    public var stats: FECStats {
        switch encoder {
        case .smpte(let encoder): return encoder.stats
        case .reedSolomon(let encoder): return encoder.stats
        }
    }

    public var nextDueNanoseconds: Int64? { inner.nextDueNanoseconds }

    public mutating func pop() -> [ScheduledDatagram] {
        let media = inner.pop()
        var out: [ScheduledDatagram] = []
        out.reserveCapacity(media.count + 2)
        for datagram in media {
            out.append(datagram)
            guard datagram.flow == mediaFlow else { continue }
            out += repairs(after: datagram)
        }
        if inner.nextDueNanoseconds == nil, !flushed, let last = media.last(where: { $0.flow == mediaFlow }) {
            flushed = true
            out += flush(after: last)
        }
        return out
    }

    private mutating func repairs(after datagram: ScheduledDatagram) -> [ScheduledDatagram] {
        switch encoder {
        case .smpte(var smpte):
            let output = smpte.add(datagram.payload)
            encoder = .smpte(smpte)
            return wrap(output, after: datagram)
        case .reedSolomon(var rs):
            let packets = rs.add(datagram.payload)
            encoder = .reedSolomon(rs)
            return wrap(packets, flow: mediaFlow + ".rs", after: datagram)
        }
    }

    private mutating func flush(after datagram: ScheduledDatagram) -> [ScheduledDatagram] {
        switch encoder {
        case .smpte(var smpte):
            let output = smpte.flush()
            encoder = .smpte(smpte)
            return wrap(output, after: datagram)
        case .reedSolomon(var rs):
            let packets = rs.flush()
            encoder = .reedSolomon(rs)
            return wrap(packets, flow: mediaFlow + ".rs", after: datagram)
        }
    }

    private func wrap(_ output: SMPTE2022Encoder.Output, after datagram: ScheduledDatagram) -> [ScheduledDatagram] {
        wrap(output.column, flow: mediaFlow + ".fec-col", after: datagram)
            + wrap(output.row, flow: mediaFlow + ".fec-row", after: datagram)
    }

    private func wrap(_ packets: [[UInt8]], flow: String, after datagram: ScheduledDatagram) -> [ScheduledDatagram] {
        guard !packets.isEmpty else { return [] }
        var destination = datagram.destination
        switch fec {
        case .smpte2022_1: destination.port = datagram.destination.port &+ (flow.hasSuffix(".fec-col") ? 2 : 4)
        case .reedSolomon(_, _, let port): destination.port = port
        }
        return packets.map { ScheduledDatagram(flow: flow, destination: destination, payload: $0, dueNanoseconds: datagram.dueNanoseconds) }
    }
}
