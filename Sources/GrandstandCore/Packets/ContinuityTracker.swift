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

    /// Per-PID state in one byte, indexed by PID (13 bits): bit 7 seen, bit 6 duplicate seen,
    /// bits 0–3 the last counter. A flat table rather than a dictionary: this runs for every TS
    /// packet received (docs/performance.md).
    private var states: [UInt8] = []
    public private(set) var pidCount = 0
    public private(set) var discontinuities = 0
    public private(set) var duplicates = 0

    private static let seen: UInt8 = 0x80
    private static let duplicateSeen: UInt8 = 0x40

    public init() {}

    public mutating func record(_ packet: TSPacket) -> Outcome {
        record(pid: packet.pid, counter: packet.continuityCounter, hasPayload: packet.hasPayload,
               discontinuityIndicator: packet.discontinuityIndicator)
    }

    /// The same as `record(_:)` from the header fields alone.
    @inline(__always)
    mutating func record(pid: UInt16, counter cc: UInt8, hasPayload: Bool, discontinuityIndicator: Bool) -> Outcome {
        guard pid != TSPacket.nullPID else { return .ignored }
        if states.isEmpty { states = [UInt8](repeating: 0, count: Int(TSPacket.nullPID) + 1) }
        let index = Int(pid & 0x1FFF)
        let state = states[index]
        guard state & Self.seen != 0, !discontinuityIndicator else {
            if state & Self.seen == 0 { pidCount += 1 }
            states[index] = Self.seen | cc
            return .ok
        }
        let counter = state & 0x0F
        if !hasPayload {
            // Adaptation field only: the counter stays where it was.
            guard cc == counter else { return discontinuity(index, expected: counter, received: cc) }
            return .ok
        }
        let expected = (counter + 1) & 0x0F
        if cc == expected {
            states[index] = Self.seen | cc
            return .ok
        }
        if cc == counter && state & Self.duplicateSeen == 0 {
            states[index] = state | Self.duplicateSeen
            duplicates += 1
            return .duplicate
        }
        return discontinuity(index, expected: expected, received: cc)
    }

    private mutating func discontinuity(_ index: Int, expected: UInt8, received: UInt8) -> Outcome {
        discontinuities += 1
        states[index] = Self.seen | received
        return .discontinuity(expected: expected, received: received)
    }
}
