/// The receiver side of Reed-Solomon protection windows, one per channel: a sans-I/O state
/// machine fed the source RTP packets and the repair packets (`ReedSolomonRepairHeader`) with
/// their arrival times; it returns the source packets in order (received or rebuilt), the lost
/// ones, and each closed window. Recovery happens the moment a window holds k of its k + m
/// symbols; a window that cannot recover fails when all m repairs are in and a later packet
/// arrived, when a repair of a newer window arrives, or `timeoutNanoseconds` after its first
/// repair — and its missing packets are released as lost at once, so delivery never stalls.
/// A packet after a gap that no open window awaits yet (the gap's window has not sent its
/// repairs) is held for the rest of a window at the measured rate plus a margin (`RepairWait`,
/// capped by `matrixWaitBoundNanoseconds`): at 1 Mbit/s a 20-packet window takes ~200 ms, so a
/// fixed 200 ms hold gave up on gaps early in a window before their repairs were sent.
///
/// Every call exists in two forms: returning `[FECAction]`, and appending to a caller-owned
/// array (`into:`) that a hot loop reuses (no allocation per packet; docs/performance.md).
public struct ReedSolomonWindowDecoder: Sendable {
    /// One repair symbol as received: a slice of the repair packet (kept, not copied).
    struct Repair: Sendable {
        var index: Int
        var checksum: UInt32
        var symbol: ArraySlice<UInt8>
        /// The CRC-32C was checked (once, when the symbol is first needed).
        var verified = false
    }

    struct Window: Sendable {
        var id: UInt32
        var k: Int
        var m: Int
        var base: Int64
        var symbolLength: Int
        var ssrc: UInt32
        /// Usable repairs, ascending by index (a corrupted one is removed when found).
        var repairs: [Repair]
        /// Every repair index received, corrupted ones included (256 bits: m ≤ 254).
        var seen: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        var deadline: Int64
        var warning: Bool
        var end: Int64 { base + Int64(k) }

        var seenCount: Int { seen.0.nonzeroBitCount + seen.1.nonzeroBitCount + seen.2.nonzeroBitCount + seen.3.nonzeroBitCount }

        mutating func markSeen(_ index: Int) {
            let bit = UInt64(1) << UInt64(index & 63)
            switch index >> 6 {
            case 0: seen.0 |= bit
            case 1: seen.1 |= bit
            case 2: seen.2 |= bit
            default: seen.3 |= bit
            }
        }

        func hasRepair(_ index: Int) -> Bool { repairs.contains { $0.index == index } }

        /// Keeps `repairs` ascending by index (usually an append).
        mutating func add(_ repair: Repair) {
            var at = repairs.count
            while at > 0, repairs[at - 1].index > repair.index { at -= 1 }
            repairs.insert(repair, at: at)
        }
    }

    public let configuration: FECDecoderConfiguration
    let math: any ReedSolomonMath
    var buffer: FECSourceBuffer
    /// Open windows, ascending by id (a handful at most: a small array, no dictionary or sort).
    private var windows: [Window] = []
    /// Closed window ids, one per residue modulo `closedMemory` (valid flag in bit 32): with
    /// consecutive ids, the last `closedMemory` windows. An array lookup, no hashing per repair.
    private var closedTable = [UInt64](repeating: 0, count: ReedSolomonWindowDecoder.closedMemory)
    private var newest: (id: UInt32, end: Int64)? = nil
    /// The media rate, measured over blocks of the newest window's k packets.
    private var waits: RepairWait
    /// k of the newest window seen (the block the rate is measured over), nil before any repair.
    private var sourceCount: Int? = nil
    private var ssrc: UInt32? = nil
    /// Emptied `repairs` arrays of closed windows, reused by new windows.
    private var spareRepairs: [[Repair]] = []
    /// Buffers of the rebuild, reused from window to window (ReedSolomonWindowRebuild.swift).
    var scratch = RebuildScratch()
    public internal(set) var stats = FECStats()

    static let closedMemory = 1024   // a power of two
    /// The block the rate is measured over before a repair told k (the streamer's default k).
    static let defaultSourceCount = 20
    static let maxGhostWindows = 16
    static let maxOpenWindows = 64

    public init(configuration: FECDecoderConfiguration = FECDecoderConfiguration(), math: any ReedSolomonMath) {
        self.configuration = configuration
        self.math = math
        buffer = FECSourceBuffer(history: configuration.historyPackets, hold: configuration.matrixWaitBoundNanoseconds)
        waits = RepairWait(bound: configuration.matrixWaitBoundNanoseconds)
        stats.waitMilliseconds = Int(configuration.matrixWaitBoundNanoseconds / 1_000_000)
    }

    /// Windows still open (waiting for symbols).
    public var openWindowCount: Int { windows.count }

    /// One source RTP packet (the whole datagram payload) as it arrived.
    public mutating func receiveSource(_ packet: ArraySlice<UInt8>, nowNanoseconds now: Int64) -> [FECAction] {
        var actions: [FECAction] = []
        receiveSource(packet, nowNanoseconds: now, into: &actions)
        return actions
    }

    /// One packet of the repair flow as it arrived.
    public mutating func receiveRepair(_ packet: ArraySlice<UInt8>, nowNanoseconds now: Int64) -> [FECAction] {
        var actions: [FECAction] = []
        receiveRepair(packet, nowNanoseconds: now, into: &actions)
        return actions
    }

    /// Closes windows whose time is up and releases packets that waited long enough. Call it
    /// periodically (e.g. every 10–50 ms) so failures are reported even when nothing arrives.
    public mutating func tick(nowNanoseconds now: Int64) -> [FECAction] {
        var actions: [FECAction] = []
        tick(nowNanoseconds: now, into: &actions)
        return actions
    }

    /// End of input: closes every open window and releases everything held.
    public mutating func finish(nowNanoseconds now: Int64) -> [FECAction] {
        var actions: [FECAction] = []
        finish(nowNanoseconds: now, into: &actions)
        return actions
    }

    /// `receiveSource(_:nowNanoseconds:)` appending to `actions`.
    public mutating func receiveSource(_ packet: ArraySlice<UInt8>, nowNanoseconds now: Int64, into actions: inout [FECAction]) {
        receiveSource(Array(packet), nowNanoseconds: now, into: &actions)
    }

    /// The same for a packet in an array of its own (e.g. just read from a socket): the ring keeps
    /// that array as it is (no slice-to-array conversion, whose type check costs per packet).
    public mutating func receiveSource(_ packet: [UInt8], nowNanoseconds now: Int64, into actions: inout [FECAction]) {
        guard let fields = packet.withUnsafeBufferPointer({ RTPFields($0) }) else {
            stats.sourcePacketsMalformed += 1
            return
        }
        if let known = ssrc, known != fields.ssrc { restart(now: now, into: &actions) }
        ssrc = fields.ssrc
        var ext = buffer.extend(fields.sequence)
        if buffer.isJump(ext) {
            restart(now: now, into: &actions)
            ext = buffer.extend(fields.sequence)
        }
        prefetchEviction(ext)
        // The ring keeps the packet's array (one retain per packet from here to delivery).
        let outcome = buffer.insert(ext: ext, bytes: packet, arrival: now, recovered: false)
        if outcome == .stored { prefetchStored(ext) }
        switch outcome {
        case .duplicate, .late: stats.sourcePacketsLate += 1
        case .stored, .restart: waits.observe(sequence: ext, arrival: now, blockPackets: sourceCount ?? Self.defaultSourceCount)
        }
        if outcome != .duplicate {
            // The packet may complete its window, or show that an earlier window's sources are over.
            forEachWindow(where: { $0.base <= ext }) { decoder, id in decoder.attempt(id, now: now, into: &actions) }
        }
        release(now: now, into: &actions)
    }

    /// `receiveRepair(_:nowNanoseconds:)` appending to `actions`.
    public mutating func receiveRepair(_ packet: ArraySlice<UInt8>, nowNanoseconds now: Int64, into actions: inout [FECAction]) {
        // Every line of the repair at once (the CRC check and the rebuild read it right after).
        packet.withUnsafeBufferPointer { bytes in
            if let base = bytes.baseAddress { math.prefetch(UInt(bitPattern: base), count: bytes.count, forWriting: false) }
        }
        guard case let .success((header, symbol)) = ReedSolomonRepairHeader.parse(packet: packet) else {
            stats.repairPacketsMalformed += 1
            return
        }
        if let known = ssrc, known != header.ssrc {
            stats.repairPacketsMalformed += 1
            return
        }
        let id = header.windowID
        stats.repairPackets += 1
        if isClosed(id) || isStale(id) {
            stats.repairPacketsLate += 1
            return
        }
        let repair = Repair(index: header.repairIndex, checksum: header.symbolChecksum, symbol: symbol)
        if let slot = slot(of: id) {
            let window = windows[slot]
            guard window.k == header.sourceCount, window.m == header.repairCount, window.symbolLength == header.symbolLength,
                  UInt16(truncatingIfNeeded: window.base) == header.sequenceBase, window.ssrc == header.ssrc else {
                stats.repairPacketsMalformed += 1
                return
            }
            guard !window.hasRepair(header.repairIndex) else {
                stats.repairPacketsLate += 1
                return
            }
            windows[slot].add(repair)
            windows[slot].markSeen(header.repairIndex)
        } else {
            // A base far from the stream's position is garbage or a stale sender: not a window.
            let base = buffer.extend(header.sequenceBase)
            if buffer.started, abs(base - buffer.highest) > FECSourceBuffer.maxJump {
                stats.repairPacketsMalformed += 1
                return
            }
            // Bounded state: at most `maxOpenWindows` windows wait at once; the oldest fails first.
            if windows.count >= Self.maxOpenWindows,
               let oldest = windows.min(by: { Int32(bitPattern: $0.id &- $1.id) < 0 })?.id {
                close(oldest, failed: true, now: now, into: &actions)
            }
            let k = header.sourceCount, m = header.repairCount
            sourceCount = k
            // A closed window's array (capacity kept): no allocation per window, none to grow.
            var repairs = spareRepairs.popLast() ?? []
            repairs.reserveCapacity(m)
            repairs.append(repair)
            var window = Window(id: id, k: k, m: m, base: base, symbolLength: header.symbolLength, ssrc: header.ssrc,
                                repairs: repairs, deadline: now + configuration.timeoutNanoseconds,
                                warning: k + m > configuration.recommendedMaxSymbols)
            window.markSeen(header.repairIndex)
            openWindow(window, now: now, into: &actions)
            guard slot(of: id) != nil else {
                release(now: now, into: &actions)
                return
            }
        }
        attempt(id, now: now, into: &actions)
        release(now: now, into: &actions)
    }

    /// `tick(nowNanoseconds:)` appending to `actions`.
    public mutating func tick(nowNanoseconds now: Int64, into actions: inout [FECAction]) {
        forEachWindow(where: { $0.deadline <= now }) { decoder, id in
            // At the deadline a missing source is lost, not late (e.g. the stream's last packet):
            // rebuild it if the window holds k symbols, else fail.
            decoder.attempt(id, now: now, final: true, into: &actions)
            if decoder.slot(of: id) != nil { decoder.close(id, failed: true, now: now, into: &actions) }
        }
        release(now: now, into: &actions)
    }

    /// `finish(nowNanoseconds:)` appending to `actions`.
    public mutating func finish(nowNanoseconds now: Int64, into actions: inout [FECAction]) {
        restart(now: now, into: &actions)
    }

    /// Packets ahead of the ring slot whose old packet is prefetched before its release.
    static let evictionLookahead: Int64 = 8

    /// Software prefetch (a hint through `math`; docs/performance.md, "FEC"): the header of the
    /// packet the ring releases a few arrivals from now (4096 packets old, cold) ...
    private func prefetchEviction(_ ext: Int64) {
        let old = buffer.address(ext + Self.evictionLookahead)
        if old > 64 { math.prefetch(old - 32, count: 1, forWriting: true) }
    }

    /// ... and a stored packet's bytes towards L2, for the rebuild that may gather it k packets later.
    private func prefetchStored(_ ext: Int64) {
        let at = buffer.address(ext)
        if at != 0 { math.prefetch(at, count: buffer.length(ext), forWriting: false) }
    }

    // MARK: Windows

    func slot(of id: UInt32) -> Int? { windows.firstIndex { $0.id == id } }

    /// Runs `body` for each open window matching `condition` (checked when its turn comes), in
    /// id order; `body` may close that window.
    private mutating func forEachWindow(where condition: (Window) -> Bool, _ body: (inout ReedSolomonWindowDecoder, UInt32) -> Void) {
        var i = 0
        while i < windows.count {
            let id = windows[i].id
            if condition(windows[i]) { body(&self, id) }
            if i < windows.count, windows[i].id == id { i += 1 }
        }
    }

    private func isStale(_ id: UInt32) -> Bool {
        guard let newest else { return false }
        return Int32(bitPattern: id &- newest.id) < -Int32(Self.closedMemory / 2)
    }

    private mutating func openWindow(_ window: Window, now: Int64, into actions: inout [FECAction]) {
        // Windows whose every repair was lost sit between the newest known window and this one.
        if let newest {
            let step = Int32(bitPattern: window.id &- newest.id)
            if step > 1, step - 1 <= Self.maxGhostWindows {
                let gap = Int64(step - 1), span = window.base - newest.end
                if span > 0, span % gap == 0, span / gap <= 255 {
                    for i in 0..<gap {
                        let base = newest.end + i * (span / gap)
                        closeGhost(id: newest.id &+ UInt32(i + 1), base: base, k: Int(span / gap), now: now, into: &actions)
                    }
                }
            }
        }
        if newest == nil || Int32(bitPattern: window.id &- newest!.id) > 0 { newest = (window.id, window.end) }
        // The sender sends a window's repairs before the next window's: older windows get no more.
        forEachWindow(where: { Int32(bitPattern: window.id &- $0.id) >= 1 }) { decoder, id in
            decoder.attempt(id, now: now, final: true, into: &actions)
        }
        if window.k + window.m > 255 || window.k + window.m > configuration.maxSymbols {
            let report = FECWindowReport(windowID: Int64(window.id), sourceCount: window.k, repairCount: window.m,
                                         firstSequence: UInt16(truncatingIfNeeded: window.base), lostSources: 0,
                                         recoveredSources: 0, result: .unsupported, warning: window.warning,
                                         timestampNanoseconds: now)
            remember(window.id)
            stats.count(report)
            actions.append(.windowClosed(report))
            return
        }
        var at = windows.count
        while at > 0, windows[at - 1].id > window.id { at -= 1 }
        windows.insert(window, at: at)
    }

    private mutating func closeGhost(id: UInt32, base: Int64, k: Int, now: Int64, into actions: inout [FECAction]) {
        guard !isClosed(id), slot(of: id) == nil else { return }
        let missing = (0..<Int64(k)).filter { !buffer.contains(base + $0) }
        for offset in missing where base + offset >= buffer.next { buffer.abandoned.insert(base + offset) }
        let report = FECWindowReport(windowID: Int64(id), sourceCount: k, repairCount: 0, firstSequence: UInt16(truncatingIfNeeded: base),
                                     lostSources: missing.count, recoveredSources: 0, result: missing.isEmpty ? .noLoss : .failed,
                                     warning: false, timestampNanoseconds: now)
        remember(id)
        stats.count(report)
        actions.append(.windowClosed(report))
    }

    /// Recovers window `id` if it holds k symbols; with `final`, fails it if it cannot.
    mutating func attempt(_ id: UInt32, now: Int64, final: Bool = false, into actions: inout [FECAction]) {
        guard let slot = slot(of: id) else { return }
        // Fields read in place: a copy of the window would share its `repairs` and make the
        // CRC bookkeeping below copy that array on write.
        let k = windows[slot].k, base = windows[slot].base
        var missing: [Int] = []
        swap(&missing, &scratch.missing)
        defer { swap(&missing, &scratch.missing) }
        missing.removeAll(keepingCapacity: true)
        for index in 0..<k where !buffer.contains(base + Int64(index)) { missing.append(index) }
        if missing.isEmpty { return close(id, failed: false, now: now, into: &actions) }
        // A source not yet passed by the stream may just be late (reordered across flows): it
        // counts as lost once a later source arrived, or when the window must close.
        if !final, let last = missing.last, base + Int64(last) > buffer.highest { return }
        guard windows[slot].repairs.count >= missing.count else {
            if final || isExhausted(slot) { close(id, failed: true, now: now, into: &actions) }
            return
        }
        // Any k symbols do: every source that arrived, then repairs in index order. Repairs are
        // checked (CRC-32C) only when needed; a corrupted one is dropped and counted.
        var usable = 0, r = 0
        while usable < missing.count, r < windows[slot].repairs.count {
            if !windows[slot].repairs[r].verified {
                let crc = windows[slot].repairs[r].symbol.withUnsafeBufferPointer { math.crc32c($0) }
                guard crc == windows[slot].repairs[r].checksum else {
                    windows[slot].repairs.remove(at: r)
                    stats.repairPacketsMalformed += 1
                    continue
                }
                windows[slot].repairs[r].verified = true
            }
            usable += 1
            r += 1
        }
        guard usable == missing.count else {
            if final || isExhausted(slot) { close(id, failed: true, now: now, into: &actions) }
            return
        }
        switch rebuild(windows[slot], missing: missing, now: now) {
        case .rejected:
            stats.recoveriesRejected += missing.count
            close(id, failed: true, now: now, into: &actions)
        case .failed:
            close(id, failed: true, now: now, into: &actions)
        case .rebuilt(let count, let tooLate):
            close(id, failed: tooLate, now: now, recovered: tooLate ? 0 : count, lost: missing.count, into: &actions)
        }
    }

    /// Every repair of the window in `slot` is in and the stream has moved past its last source:
    /// nothing more can come (short of reordering beyond a window, which the timeout covers).
    /// Read in place: passing `windows[slot]` to a method of `self` from a mutating one made the
    /// compiler copy the whole decoder (every field retained) on each repair short of recovery.
    private mutating func isExhausted(_ slot: Int) -> Bool {
        windows[slot].seenCount == windows[slot].m && buffer.started && buffer.highest >= windows[slot].end - 1
    }

    private mutating func close(_ id: UInt32, failed: Bool, now: Int64, recovered: Int = 0, lost: Int? = nil,
                                into actions: inout [FECAction]) {
        guard let slot = slot(of: id) else { return }
        var window = windows.remove(at: slot)
        defer {
            // The repair packets go now; the array's capacity stays for the next window.
            window.repairs.removeAll(keepingCapacity: true)
            if spareRepairs.count < 4 { spareRepairs.append(window.repairs) }
        }
        var missing = 0
        for offset in 0..<Int64(window.k) where !buffer.contains(window.base + offset) {
            missing += 1
            if failed, window.base + offset >= buffer.next { buffer.abandoned.insert(window.base + offset) }
        }
        let lostCount = lost ?? missing
        let result: FECWindowResult = failed ? .failed : (lostCount == 0 ? .noLoss : .recovered)
        let report = FECWindowReport(windowID: Int64(window.id), sourceCount: window.k, repairCount: window.m,
                                     firstSequence: UInt16(truncatingIfNeeded: window.base), lostSources: lostCount,
                                     recoveredSources: failed ? 0 : recovered, result: result, warning: window.warning,
                                     timestampNanoseconds: now)
        remember(id)
        stats.count(report)
        actions.append(.windowClosed(report))
    }

    private mutating func remember(_ id: UInt32) {
        closedTable[Int(id) & (Self.closedMemory - 1)] = 1 << 32 | UInt64(id)
    }

    private func isClosed(_ id: UInt32) -> Bool {
        closedTable[Int(id) & (Self.closedMemory - 1)] == 1 << 32 | UInt64(id)
    }

    // MARK: Delivery

    private mutating func release(now: Int64, into actions: inout [FECAction]) {
        // A gap no open window awaits may start a window: the rest of that window at the
        // measured rate, then its repairs (sent at once after it: one interval and the margin).
        // Until a repair told k, the bound.
        let hold = sourceCount.map { waits.hold(span: $0, after: waits.wait(repairSpan: 1)) } ?? waits.bound
        if hold != buffer.hold {
            buffer.hold = hold
            stats.waitMilliseconds = Int(hold / 1_000_000)
        }
        guard !windows.isEmpty else { return buffer.release(now: now, stats: &stats, into: &actions) { _ in false } }
        let open = windows
        buffer.release(now: now, stats: &stats, into: &actions) { ext in open.contains { $0.base <= ext && ext < $0.end } }
    }

    /// Closes every open window (failed if it misses sources) and flushes the stream.
    private mutating func restart(now: Int64, into actions: inout [FECAction]) {
        forEachWindow(where: { _ in true }) { decoder, id in decoder.attempt(id, now: now, final: true, into: &actions) }
        buffer.flush(now: now, stats: &stats, into: &actions)
        newest = nil
        waits.reset()
    }
}
