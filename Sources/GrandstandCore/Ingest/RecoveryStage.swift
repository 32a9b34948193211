/// The recovery stage of a video channel's receive path, between RTP and the TS demux: it sees
/// every accepted media packet and every packet on the channel's FEC repair ports, and hands
/// on media packets (original or recovered) in order plus the losses it could not repair.
/// Today's implementation is `PassThroughRecovery`; FEC decoders (SMPTE 2022-1, Reed-Solomon
/// windows) conform to this protocol and are chosen per channel by a `RecoveryFactory`.
public protocol RecoveryStage: Sendable {
    /// One media packet after sequence accounting (`outcome` says where it fell: in order after
    /// a gap, late, a restart…). Duplicates and unconfirmed jumps never reach the stage.
    mutating func media(_ packet: RTPPacket, outcome: SequenceTracker.Outcome, arrivalNanoseconds: Int64) -> [RecoveryOutput]
    /// The same, appending to `outputs`: what the receive path calls, with one reused array
    /// (docs/performance.md). The default forwards to the array-returning method.
    mutating func media(_ packet: RTPPacket, outcome: SequenceTracker.Outcome, arrivalNanoseconds: Int64,
                        into outputs: inout [RecoveryOutput])
    /// One UDP payload received on a repair port of the channel (`port` tells which).
    mutating func repair(port: UInt16, payload: ArraySlice<UInt8>, arrivalNanoseconds: Int64) -> [RecoveryOutput]
    /// Time passes: windows may close (and their losses be declared) without new packets.
    mutating func tick(nowNanoseconds: Int64) -> [RecoveryOutput]
    /// The channel is removed (or its receiver replaced): hand on every packet still held and
    /// declare the rest lost, closing open FEC windows as at the end of input (a window that
    /// can still be rebuilt is; one that cannot counts as a failure). Default: nothing is held.
    mutating func finish(nowNanoseconds: Int64) -> [RecoveryOutput]
    /// The stage's own counters for stats.json (e.g. `window_recovery_successes`), snake_case.
    var counters: [(name: String, value: Int)] { get }
}

extension RecoveryStage {
    public mutating func finish(nowNanoseconds: Int64) -> [RecoveryOutput] { [] }

    public mutating func media(_ packet: RTPPacket, outcome: SequenceTracker.Outcome, arrivalNanoseconds: Int64,
                               into outputs: inout [RecoveryOutput]) {
        outputs.append(contentsOf: media(packet, outcome: outcome, arrivalNanoseconds: arrivalNanoseconds))
    }
}

/// What the recovery stage hands on.
public enum RecoveryOutput: Sendable, Equatable {
    /// A media payload to demux, in sequence order; `recovered` when FEC rebuilt it.
    case packet(payload: ArraySlice<UInt8>, timestampNanoseconds: Int64, recovered: Bool)
    /// `count` media packets are gone for good (becomes `IngestAction.gap`).
    case lost(count: Int, timestampNanoseconds: Int64)
}

/// Chooses a channel's recovery stage from its announced FEC parameters.
public typealias RecoveryFactory = @Sendable (Channel) -> any RecoveryStage

/// No FEC decoding: packets go on as they arrive; a forward gap is declared lost at once, so a
/// packet that turns up late (after its gap was declared) is discarded to keep the stream in
/// order, and counted. Repair packets are only counted.
public struct PassThroughRecovery: RecoveryStage {
    public private(set) var lateDiscarded = 0
    public private(set) var repairPackets = 0

    public init() {}

    public mutating func media(_ packet: RTPPacket, outcome: SequenceTracker.Outcome, arrivalNanoseconds: Int64) -> [RecoveryOutput] {
        var outputs: [RecoveryOutput] = []
        media(packet, outcome: outcome, arrivalNanoseconds: arrivalNanoseconds, into: &outputs)
        return outputs
    }

    public mutating func media(_ packet: RTPPacket, outcome: SequenceTracker.Outcome, arrivalNanoseconds: Int64,
                               into outputs: inout [RecoveryOutput]) {
        let delivered = RecoveryOutput.packet(payload: packet.payload, timestampNanoseconds: arrivalNanoseconds, recovered: false)
        switch outcome {
        case .inOrder(let skipped) where skipped > 0:
            outputs.append(.lost(count: skipped, timestampNanoseconds: arrivalNanoseconds))
            outputs.append(delivered)
        case .first, .inOrder, .restart:
            outputs.append(delivered)
        case .late:
            lateDiscarded += 1
        case .duplicate, .jump:
            break
        }
    }

    public mutating func repair(port: UInt16, payload: ArraySlice<UInt8>, arrivalNanoseconds: Int64) -> [RecoveryOutput] {
        repairPackets += 1
        return []
    }

    public mutating func tick(nowNanoseconds: Int64) -> [RecoveryOutput] { [] }

    public var counters: [(name: String, value: Int)] {
        [("late_packets_discarded", lateDiscarded), ("fec_packets_received", repairPackets)]
    }

    /// No FEC: pass-through, or for a channel with an ST 2022-7 second path a stage that waits
    /// the path differential for packets the faster path lost.
    public static let factory: RecoveryFactory = { channel in
        guard let second = channel.secondPath else { return PassThroughRecovery() }
        return ReorderingRecovery(holdNanoseconds: second.maxSkewNanoseconds)
    }
}
