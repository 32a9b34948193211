/// Per-stream RTP sequence accounting after RFC 3550 Appendix A.1: 16-bit sequence numbers are
/// extended with a cycle count across wrap; large jumps resynchronise after two consecutive
/// packets; a short history tells late (reordered) packets from duplicates, so `lost` is the
/// number of sequence numbers skipped and not (yet) filled in by a late arrival.
public struct SequenceTracker: Sendable, Equatable {
    /// A.1's MAX_DROPOUT: a forward jump up to this is a gap, beyond it a possible restart.
    public static let maxDropout: UInt16 = 3000
    /// A.1's MAX_MISORDER: packets up to this far behind the highest are late, not a restart.
    public static let maxMisorder: UInt16 = 100
    static let historySize = 128

    /// What one packet was.
    public enum Outcome: Sendable, Equatable {
        /// The first packet of the stream.
        case first
        /// Next in order, possibly after `skipped` missing packets.
        case inOrder(skipped: Int)
        /// Behind the highest seen, filling a gap (the packet was reordered).
        case late
        /// Already seen: the caller should drop it.
        case duplicate
        /// A jump beyond MAX_DROPOUT, held until the next packet confirms it; dropped.
        case jump
        /// The jump was confirmed: the stream restarted (sender restart, RFC 3550 A.1).
        case restart
    }

    public private(set) var received = 0
    public private(set) var lost = 0
    public private(set) var reordered = 0
    public private(set) var duplicates = 0
    public private(set) var restarts = 0
    /// Highest extended sequence number (cycles × 65536 + seq), A.1's `cycles + max_seq`.
    public private(set) var highestExtended: Int64 = -1
    /// The extended number the stream (re)started at (A.1's `base_seq`).
    public private(set) var baseExtended: Int64 = -1
    private var badSequence: UInt32 = 0x10000   // A.1 RTP_SEQ_MOD + 1: "no pending jump"
    private var seen = [Bool](repeating: false, count: SequenceTracker.historySize)

    public init() {}

    public var highestSequence: UInt16 { UInt16(truncatingIfNeeded: highestExtended) }

    /// Accounts for one packet and returns what it was, and its extended sequence number when
    /// it is accepted (nil for duplicates and unconfirmed jumps).
    public mutating func record(_ sequence: UInt16) -> (outcome: Outcome, extended: Int64?) {
        guard highestExtended >= 0 else {
            restart(at: sequence, cycles: 0)
            return (.first, highestExtended)
        }
        let delta = sequence &- highestSequence
        if delta == 0 {
            duplicates += 1
            return (.duplicate, nil)
        }
        if delta < Self.maxDropout {
            let extended = highestExtended + Int64(delta)
            for missing in max(highestExtended + 1, extended - Int64(Self.historySize) + 1)..<extended {
                seen[slot(missing)] = false
            }
            let skipped = Int(delta) - 1
            lost += skipped
            highestExtended = extended
            mark(extended)
            badSequence = 0x10000
            return (.inOrder(skipped: skipped), extended)
        }
        if delta <= UInt16.max - Self.maxMisorder {
            // A.1: a very large jump. Accept it only if the next packet follows it.
            if UInt32(sequence) == badSequence {
                restarts += 1
                restart(at: sequence, cycles: highestExtended >> 16)
                return (.restart, highestExtended)
            }
            badSequence = (UInt32(sequence) + 1) & 0xFFFF
            return (.jump, nil)
        }
        // Behind the highest by less than MAX_MISORDER: late or a duplicate.
        let extended = highestExtended - Int64(UInt16.max - delta) - 1
        guard extended >= 0, !seen[slot(extended)] else {
            duplicates += 1
            return (.duplicate, nil)
        }
        mark(extended)
        reordered += 1
        // Before the stream's first packet it was never counted missing.
        if extended > baseExtended { lost -= 1 }
        return (.late, extended)
    }

    private mutating func restart(at sequence: UInt16, cycles: Int64) {
        seen = [Bool](repeating: false, count: Self.historySize)
        highestExtended = (cycles << 16) + Int64(sequence)
        baseExtended = highestExtended
        badSequence = 0x10000
        mark(highestExtended)
    }

    private mutating func mark(_ extended: Int64) {
        seen[slot(extended)] = true
        received += 1
    }

    private func slot(_ extended: Int64) -> Int { Int(extended & Int64(Self.historySize - 1)) }
}
