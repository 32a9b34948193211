/// The FEC decoders as the ingest pipeline's per-channel `RecoveryStage` (Ingest/RecoveryStage):
/// media packets (after sequence accounting) and repair-port datagrams in, media payloads in
/// order (received or rebuilt) and losses out. `FECRecovery.factory` picks the stage from the
/// channel's announced `FECParameters`.
public enum FECRecovery {
    /// Pass-through for `.none`, `SMPTE2022Recovery` for SMPTE 2022-1, `ReedSolomonRecovery` for
    /// Reed-Solomon windows; `math` makes the GF(2^8) code for each RS channel (ISA-L in the
    /// product: `{ ISALReedSolomonMath() }`).
    public static func factory(configuration: FECDecoderConfiguration = FECDecoderConfiguration(),
                               math: @escaping @Sendable () -> any ReedSolomonMath) -> RecoveryFactory {
        { channel in
            switch channel.fec {
            case .none:
                return PassThroughRecovery.factory(channel)
            case let .smpte2022_1(columns, rows):
                return SMPTE2022Recovery(configuration: .init(limits: configuration, columns: columns, rows: rows))
            case .reedSolomon:
                return ReedSolomonRecovery(configuration: configuration, math: math())
            }
        }
    }

    /// The whole RTP packet again from its parsed form (the pipeline parses before recovery; FEC
    /// works on packet bytes). Padding comes back as zeros and the count byte.
    static func bytes(of packet: RTPPacket) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(12 + 4 * packet.csrcs.count + packet.extensionData.count + 4 + packet.payload.count + packet.paddingLength)
        let csrcCount = UInt8(truncatingIfNeeded: min(packet.csrcs.count, 15))
        out.append(0x80 | (packet.paddingLength > 0 ? 0x20 : 0) | (packet.extensionProfile != nil ? 0x10 : 0) | csrcCount)
        out.append((packet.marker ? 0x80 : 0) | (packet.payloadType & 0x7F))
        out.appendBE16(packet.sequenceNumber)
        out.appendBE32(packet.timestamp)
        out.appendBE32(packet.ssrc)
        for csrc in packet.csrcs.prefix(15) { out.appendBE32(csrc) }
        if let profile = packet.extensionProfile {
            out.appendBE16(profile)
            out.appendBE16(UInt16(truncatingIfNeeded: packet.extensionData.count / 4))
            out += packet.extensionData
        }
        out += packet.payload
        if packet.paddingLength > 0 {
            out += repeatElement(0, count: packet.paddingLength - 1)
            out.append(UInt8(truncatingIfNeeded: packet.paddingLength))
        }
        return out
    }

    /// FEC actions as recovery outputs: delivered packets' RTP payloads, losses; windows are counted.
    static func outputs(_ actions: [FECAction]) -> [RecoveryOutput] {
        var out: [RecoveryOutput] = []
        out.reserveCapacity(actions.count)
        append(actions, to: &out)
        return out
    }

    /// `outputs(_:)` appending to `out`.
    static func append(_ actions: [FECAction], to out: inout [RecoveryOutput]) {
        for action in actions {
            switch action {
            case let .deliver(packet):
                // Every delivered packet parsed as RTP on the way in (or was validated as rebuilt).
                if case let .success(rtp) = RTPPacket.parse(packet.bytes) {
                    out.append(.packet(payload: rtp.payload, timestampNanoseconds: packet.timestampNanoseconds, recovered: packet.recovered))
                } else {
                    out.append(.lost(count: 1, timestampNanoseconds: packet.timestampNanoseconds))
                }
            case let .lost(_, count, time):
                out.append(.lost(count: count, timestampNanoseconds: time))
            case .windowClosed:
                break
            }
        }
    }
}

/// Reed-Solomon protection windows as a channel's recovery stage: every repair-port datagram
/// is a repair packet (the channel has one repair port).
public struct ReedSolomonRecovery: RecoveryStage {
    public private(set) var decoder: ReedSolomonWindowDecoder
    /// The decoder's actions for one media packet, reused (the receive path's `into:` form).
    private var actions: [FECAction] = []

    public init(configuration: FECDecoderConfiguration = FECDecoderConfiguration(), math: any ReedSolomonMath) {
        decoder = ReedSolomonWindowDecoder(configuration: configuration, math: math)
    }

    public mutating func media(_ packet: RTPPacket, outcome: SequenceTracker.Outcome, arrivalNanoseconds: Int64) -> [RecoveryOutput] {
        FECRecovery.outputs(decoder.receiveSource(FECRecovery.bytes(of: packet)[...], nowNanoseconds: arrivalNanoseconds))
    }

    public mutating func media(_ packet: RTPPacket, outcome: SequenceTracker.Outcome, arrivalNanoseconds: Int64,
                               into outputs: inout [RecoveryOutput]) {
        decoder.receiveSource(FECRecovery.bytes(of: packet), nowNanoseconds: arrivalNanoseconds, into: &actions)
        FECRecovery.append(actions, to: &outputs)
        actions.removeAll(keepingCapacity: true)
    }

    public mutating func repair(port: UInt16, payload: ArraySlice<UInt8>, arrivalNanoseconds: Int64) -> [RecoveryOutput] {
        FECRecovery.outputs(decoder.receiveRepair(payload, nowNanoseconds: arrivalNanoseconds))
    }

    public mutating func tick(nowNanoseconds: Int64) -> [RecoveryOutput] {
        FECRecovery.outputs(decoder.tick(nowNanoseconds: nowNanoseconds))
    }

    /// Channel removed: open windows close as at the end of input, held packets come out.
    public mutating func finish(nowNanoseconds: Int64) -> [RecoveryOutput] {
        FECRecovery.outputs(decoder.finish(nowNanoseconds: nowNanoseconds))
    }

    public var counters: [(name: String, value: Int)] { decoder.stats.keyValues.map { ($0.key, $0.value) } }
}

/// SMPTE 2022-1 as a channel's recovery stage: both repair ports (column on port + 2, row on
/// port + 4) go to the decoder, which tells them apart by the FEC header's D bit.
public struct SMPTE2022Recovery: RecoveryStage {
    public private(set) var decoder: SMPTE2022Decoder

    public init(configuration: SMPTE2022Decoder.Configuration = SMPTE2022Decoder.Configuration()) {
        decoder = SMPTE2022Decoder(configuration: configuration)
    }

    public mutating func media(_ packet: RTPPacket, outcome: SequenceTracker.Outcome, arrivalNanoseconds: Int64) -> [RecoveryOutput] {
        FECRecovery.outputs(decoder.receiveMedia(FECRecovery.bytes(of: packet)[...], nowNanoseconds: arrivalNanoseconds))
    }

    public mutating func repair(port: UInt16, payload: ArraySlice<UInt8>, arrivalNanoseconds: Int64) -> [RecoveryOutput] {
        FECRecovery.outputs(decoder.receiveFEC(payload, nowNanoseconds: arrivalNanoseconds))
    }

    public mutating func tick(nowNanoseconds: Int64) -> [RecoveryOutput] {
        FECRecovery.outputs(decoder.tick(nowNanoseconds: nowNanoseconds))
    }

    /// Channel removed: open windows close as at the end of input, held packets come out.
    public mutating func finish(nowNanoseconds: Int64) -> [RecoveryOutput] {
        FECRecovery.outputs(decoder.finish(nowNanoseconds: nowNanoseconds))
    }

    public var counters: [(name: String, value: Int)] { decoder.stats.keyValues.map { ($0.key, $0.value) } }
}
