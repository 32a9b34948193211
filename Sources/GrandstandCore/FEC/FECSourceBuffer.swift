/// The source side of a FEC decoder: extends 16-bit RTP sequence numbers, holds packets that
/// arrive after a gap (at most `hold` past their arrival unless a still-open window may fill the
/// gap), releases them in order exactly once, and keeps the last `history` released packets so
/// repair data arriving later can still use them. A ring of slots indexed by extended sequence.
struct FECSourceBuffer: Sendable {
    struct Entry: Sendable {
        var ext: Int64
        var bytes: [UInt8]
        var arrival: Int64
        var recovered: Bool
    }

    enum InsertOutcome: Equatable {
        /// Stored, waiting to be released in order.
        case stored
        /// Already held or released: dropped.
        case duplicate
        /// Its place in the output has passed; kept (when recent) only to help decode windows.
        case late
        /// Too far from the stream's position: the caller flushes and restarts the stream.
        case restart
    }

    /// Beyond this many sequence numbers ahead of the highest (or behind the output) a packet
    /// means the sender restarted (RFC 3550 A.1's MAX_DROPOUT).
    static let maxJump: Int64 = 3000

    let history: Int64
    /// How long a packet after a gap may wait (when no open window awaits the gap): fixed for
    /// Reed-Solomon, the current matrix wait for 2022-1 (so the hold covers the wait).
    var hold: Int64
    private let mask: Int
    /// A slot's bookkeeping, all trivial (no reference): reading it never touches (retains) a
    /// packet whose memory may be long cold, and `insert` writes one array (one uniqueness
    /// check) instead of one per field (docs/performance.md, "FEC").
    struct Slot: Sendable {
        /// The extended sequence number held (-1: empty).
        var ext: Int64 = -1
        /// Address and length of the packet's bytes: the ring owns its packets and never
        /// mutates them, so their storage stays where `insert` saw it while the slot holds them;
        /// `withPacket` reads through it (no retain/release of a cold packet) and the decoder
        /// prefetches with it.
        var address: UInt = 0
        var length: Int = 0
        var arrival: Int64 = 0
        var recovered = false
    }

    // The ring: one slot per extended sequence number modulo the capacity, the packets apart
    // (delivery retains a packet once).
    private var slots: [Slot]
    private var packets: [[UInt8]]
    /// Next extended sequence number to release; -1 before the first packet.
    private(set) var next: Int64 = -1
    /// Highest extended sequence number stored.
    private(set) var highest: Int64 = -1
    /// Missing sequence numbers a closed window gave up on: released as lost without waiting.
    var abandoned: Set<Int64> = []
    /// Lowest extended sequence number of the stream received since the start or a flush.
    private var start: Int64 = -1
    /// Numbers below the first released one that a packet reordered behind it showed to be the
    /// stream's (from `start` on): `release` counts them lost, their place in the output has passed.
    private var preceding: Int64 = 0

    init(history: Int, hold: Int64) {
        self.history = Int64(max(1, history))
        self.hold = hold
        var capacity = 1
        while capacity < max(1, history) + Int(Self.maxJump) + 2 { capacity <<= 1 }
        mask = capacity - 1
        slots = Array(repeating: Slot(), count: capacity)
        packets = Array(repeating: [], count: capacity)
    }

    var started: Bool { next >= 0 }

    /// The extended number of `sequence`: the one closest to the highest seen.
    func extend(_ sequence: UInt16) -> Int64 {
        guard started else { return (Int64(1) << 32) + Int64(sequence) }
        let delta = Int16(bitPattern: sequence &- UInt16(truncatingIfNeeded: highest))
        return highest + Int64(delta)
    }

    /// The packet at `ext` if it is still held or in the history.
    func entry(_ ext: Int64) -> Entry? {
        guard contains(ext) else { return nil }
        let i = Int(ext & Int64(mask))
        return Entry(ext: ext, bytes: packets[i], arrival: slots[i].arrival, recovered: slots[i].recovered)
    }

    /// `body` on the bytes of the packet at `ext` (no copy, no retain), nil if it is not here.
    func withPacket<R>(_ ext: Int64, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
        guard contains(ext) else { return nil }
        let i = Int(ext & Int64(mask))
        return try body(UnsafeBufferPointer(start: UnsafePointer(bitPattern: slots[i].address), count: slots[i].length))
    }

    /// Storage address (a prefetch hint, 0 when empty) of the packet in `ext`'s slot: after
    /// storing `ext` that packet; before, the one storing `ext` would release (prefetching it a
    /// few packets ahead hides the cache miss of its release).
    func address(_ ext: Int64) -> UInt { slots[Int(ext & Int64(mask))].address }

    /// Byte count of the packet in `ext`'s slot (with `address`).
    func length(_ ext: Int64) -> Int { slots[Int(ext & Int64(mask))].length }

    func contains(_ ext: Int64) -> Bool {
        started && ext >= next - history && ext <= highest && slots[Int(ext & Int64(mask))].ext == ext
    }

    /// Storing `ext` would mean the sender restarted (`insert` answers `.restart`).
    func isJump(_ ext: Int64) -> Bool {
        started && (ext > highest + Self.maxJump || ext < next - history - Self.maxJump)
    }

    mutating func insert(ext: Int64, bytes: __owned [UInt8], arrival: Int64, recovered: Bool) -> InsertOutcome {
        if !started {
            next = ext
            highest = ext - 1
            start = ext
        }
        if isJump(ext) { return .restart }
        // Release starts at the first arrival: packets reordered behind it (a starved sender's first
        // burst, shuffled) were neither delivered nor counted lost. Not rebuilt ones: sent before a join.
        if !recovered, ext < start {
            preceding += start - ext
            start = ext
        }
        let index = Int(ext & Int64(mask))
        if slots[index].ext == ext, ext >= next - history { return .duplicate }
        guard ext >= next - history else { return .late }
        slots[index] = Slot(ext: ext, address: bytes.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) },
                            length: bytes.count, arrival: arrival, recovered: recovered)
        packets[index] = bytes
        if ext > highest {
            highest = ext
        }
        return ext < next ? .late : .stored
    }

    /// Releases everything releasable at `now`: present packets in order, and missing ones that
    /// were abandoned or whose follower has waited `hold` while no open window awaits them.
    mutating func release(now: Int64, stats: inout FECStats, awaited: (Int64) -> Bool) -> [FECAction] {
        var actions: [FECAction] = []
        release(now: now, stats: &stats, into: &actions, awaited: awaited)
        return actions
    }

    /// `release(now:stats:awaited:)` appending to `actions`.
    mutating func release(now: Int64, stats: inout FECStats, into actions: inout [FECAction], awaited: (Int64) -> Bool) {
        if preceding > 0 { releasePreceding(now: now, stats: &stats, into: &actions) }
        while started, next <= highest {
            let slot = Int(next & Int64(mask))
            let held = slots[slot]
            if held.ext == next {
                let recovered = held.recovered
                actions.append(.deliver(FECDeliveredPacket(sequenceNumber: UInt16(truncatingIfNeeded: next), bytes: packets[slot],
                                                           recovered: recovered, timestampNanoseconds: held.arrival)))
                if recovered { stats.recoveredPackets += 1 } else { stats.sourcePackets += 1 }
                if !abandoned.isEmpty { abandoned.remove(next) }
                next += 1
                continue
            }
            // The head is missing; the first packet after it has been waiting since its arrival.
            var follower = next + 1
            while follower <= highest, !contains(follower) { follower += 1 }
            let waited = follower <= highest ? now - slots[Int(follower & Int64(mask))].arrival : 0
            var run: Int64 = 0
            while next + run < follower {
                let ext = next + run
                guard abandoned.contains(ext) || (waited >= hold && !awaited(ext)) else { break }
                abandoned.remove(ext)
                run += 1
            }
            guard run > 0 else { break }
            actions.append(.lost(firstSequence: UInt16(truncatingIfNeeded: next), count: Int(run), timestampNanoseconds: now))
            stats.unrecoveredPackets += Int(run)
            next += run
        }
    }

    /// Releases everything held (missing packets as lost) and forgets the stream, for a sender
    /// restart or the end of input.
    mutating func flush(now: Int64, stats: inout FECStats) -> [FECAction] {
        var actions: [FECAction] = []
        flush(now: now, stats: &stats, into: &actions)
        return actions
    }

    /// `flush(now:stats:)` appending to `actions`.
    mutating func flush(now: Int64, stats: inout FECStats, into actions: inout [FECAction]) {
        guard started else { return }
        if preceding > 0 { releasePreceding(now: now, stats: &stats, into: &actions) }
        var missingFrom: Int64? = nil
        func endRun(_ ext: Int64) {
            if let first = missingFrom {
                actions.append(.lost(firstSequence: UInt16(truncatingIfNeeded: first), count: Int(ext - first), timestampNanoseconds: now))
                stats.unrecoveredPackets += Int(ext - first)
                missingFrom = nil
            }
        }
        var ext = next
        while ext <= highest {
            if let entry = entry(ext), ext >= next {
                endRun(ext)
                actions.append(.deliver(FECDeliveredPacket(sequenceNumber: UInt16(truncatingIfNeeded: ext), bytes: entry.bytes,
                                                           recovered: entry.recovered, timestampNanoseconds: entry.arrival)))
                if entry.recovered { stats.recoveredPackets += 1 } else { stats.sourcePackets += 1 }
            } else if missingFrom == nil {
                missingFrom = ext
            }
            ext += 1
        }
        endRun(ext)
        slots = Array(repeating: Slot(), count: slots.count)
        packets = Array(repeating: [], count: packets.count)
        next = -1
        highest = -1
        start = -1
        abandoned = []
    }

    /// The numbers a packet from before the stream's first showed (`preceding`), as one loss.
    private mutating func releasePreceding(now: Int64, stats: inout FECStats, into actions: inout [FECAction]) {
        actions.append(.lost(firstSequence: UInt16(truncatingIfNeeded: start), count: Int(preceding), timestampNanoseconds: now))
        stats.unrecoveredPackets += Int(preceding)
        preceding = 0
    }
}
