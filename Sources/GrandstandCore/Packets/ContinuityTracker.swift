/// Per-PID continuity_counter checking (ISO/IEC 13818-1 §2.4.3.3): the counter increments by 1
/// (mod 16) with each packet carrying a payload; it does not increment on adaptation-only
/// packets; one duplicate of a packet (same counter) may follow it; a set
/// discontinuity_indicator allows any value. Anything else counts a discontinuity
/// (`num_ts_discontinuities`). Null packets (PID 0x1FFF) are not checked.
public struct ContinuityTracker: Sendable, Equatable {
    public enum Outcome: Sendable, Equatable {
        /// First packet of the PID, or the counter as expected, or an announced discontinuity.
        case ok
        /// A repeat of the previous packet's counter: the caller should drop this copy.
        case duplicate
        /// Packets were lost or misordered: `expected` was due, `received` came.
        case discontinuity(expected: UInt8, received: UInt8)
        /// Null packet, not tracked.
        case ignored
    }

    private struct State: Sendable, Equatable {
        var counter: UInt8
        var duplicateSeen: Bool
    }

    private var states: [UInt16: State] = [:]
    public private(set) var discontinuities = 0
    public private(set) var duplicates = 0

    public init() {}

    /// The number of PIDs seen.
    public var pidCount: Int { states.count }

    public mutating func record(_ packet: TSPacket) -> Outcome {
        guard packet.pid != TSPacket.nullPID else { return .ignored }
        let cc = packet.continuityCounter
        guard let state = states[packet.pid], !packet.discontinuityIndicator else {
            states[packet.pid] = State(counter: cc, duplicateSeen: false)
            return .ok
        }
        if !packet.hasPayload {
            // Adaptation field only: the counter stays where it was.
            guard cc == state.counter else { return discontinuity(packet.pid, expected: state.counter, received: cc) }
            return .ok
        }
        let expected = (state.counter + 1) & 0x0F
        if cc == expected {
            states[packet.pid] = State(counter: cc, duplicateSeen: false)
            return .ok
        }
        if cc == state.counter && !state.duplicateSeen {
            states[packet.pid]?.duplicateSeen = true
            duplicates += 1
            return .duplicate
        }
        return discontinuity(packet.pid, expected: expected, received: cc)
    }

    private mutating func discontinuity(_ pid: UInt16, expected: UInt8, received: UInt8) -> Outcome {
        discontinuities += 1
        states[pid] = State(counter: received, duplicateSeen: false)
        return .discontinuity(expected: expected, received: received)
    }
}
