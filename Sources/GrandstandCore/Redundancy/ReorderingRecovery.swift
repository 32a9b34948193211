/// A recovery stage without FEC that waits up to `hold` for a missing packet before declaring it
/// lost, and releases packets in sequence order: what an ST 2022-7 merge needs when one path lags
/// the other (a packet the faster path lost comes late from the slower one). Pass-through would
/// declare the gap at once and discard the late copy.
public struct ReorderingRecovery: RecoveryStage {
    private var buffer: FECSourceBuffer
    private var stats = FECStats()
    public private(set) var lateDiscarded = 0
    public private(set) var repairPackets = 0
    /// The buffer's actions for one packet, reused.
    private var actions: [FECAction] = []

    public init(holdNanoseconds: Int64) {
        buffer = FECSourceBuffer(history: 1, hold: holdNanoseconds)
    }

    public mutating func media(_ packet: RTPPacket, outcome: SequenceTracker.Outcome, arrivalNanoseconds: Int64) -> [RecoveryOutput] {
        var outputs: [RecoveryOutput] = []
        media(packet, outcome: outcome, arrivalNanoseconds: arrivalNanoseconds, into: &outputs)
        return outputs
    }

    public mutating func media(_ packet: RTPPacket, outcome: SequenceTracker.Outcome, arrivalNanoseconds: Int64,
                               into outputs: inout [RecoveryOutput]) {
        if case .restart = outcome { buffer.flush(now: arrivalNanoseconds, stats: &stats, into: &actions) }
        let bytes = FECRecovery.bytes(of: packet)
        var ext = buffer.extend(packet.sequenceNumber)
        var stored = buffer.insert(ext: ext, bytes: bytes, arrival: arrivalNanoseconds, recovered: false)
        if stored == .restart {
            buffer.flush(now: arrivalNanoseconds, stats: &stats, into: &actions)
            ext = buffer.extend(packet.sequenceNumber)
            stored = buffer.insert(ext: ext, bytes: bytes, arrival: arrivalNanoseconds, recovered: false)
        }
        if stored == .late { lateDiscarded += 1 }
        buffer.release(now: arrivalNanoseconds, stats: &stats, into: &actions) { _ in false }
        FECRecovery.append(actions, to: &outputs)
        actions.removeAll(keepingCapacity: true)
    }

    public mutating func repair(port: UInt16, payload: ArraySlice<UInt8>, arrivalNanoseconds: Int64) -> [RecoveryOutput] {
        repairPackets += 1
        return []
    }

    public mutating func tick(nowNanoseconds: Int64) -> [RecoveryOutput] {
        defer { actions.removeAll(keepingCapacity: true) }
        buffer.release(now: nowNanoseconds, stats: &stats, into: &actions) { _ in false }
        return FECRecovery.outputs(actions)
    }

    public mutating func finish(nowNanoseconds: Int64) -> [RecoveryOutput] {
        defer { actions.removeAll(keepingCapacity: true) }
        buffer.flush(now: nowNanoseconds, stats: &stats, into: &actions)
        return FECRecovery.outputs(actions)
    }

    public var counters: [(name: String, value: Int)] {
        [("late_packets_discarded", lateDiscarded), ("fec_packets_received", repairPackets)]
    }
}
