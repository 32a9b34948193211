/// The receiver side of Reed-Solomon protection windows, one per channel: a sans-I/O state
/// machine fed the source RTP packets and the repair packets (`ReedSolomonRepairHeader`) with
/// their arrival times; it returns the source packets in order (received or rebuilt), the lost
/// ones, and each closed window. Recovery happens the moment a window holds k of its k + m
/// symbols; a window that cannot recover fails when all m repairs are in and a later packet
/// arrived, when a repair of a newer window arrives, or `timeoutNanoseconds` after its first
/// repair — and its missing packets are released as lost at once, so delivery never stalls.
public struct ReedSolomonWindowDecoder: Sendable {
    struct Window: Sendable {
        var id: UInt32
        var k: Int
        var m: Int
        var base: Int64
        var symbolLength: Int
        var ssrc: UInt32
        var repairs: [Int: [UInt8]] = [:]
        var checksums: [Int: UInt32] = [:]
        var deadline: Int64
        var warning: Bool
        var end: Int64 { base + Int64(k) }
    }

    public let configuration: FECDecoderConfiguration
    private let math: any ReedSolomonMath
    private var buffer: FECSourceBuffer
    /// The k symbols of the window being rebuilt, reused from window to window.
    private var scratch: [UInt8] = []
    private var windows: [UInt32: Window] = [:]
    private var closedIDs: Set<UInt32> = []
    private var closedOrder: [UInt32] = []
    private var closedCursor = 0
    private var newest: (id: UInt32, end: Int64)? = nil
    private var ssrc: UInt32? = nil
    public private(set) var stats = FECStats()

    static let closedMemory = 1024
    static let maxGhostWindows = 16
    static let maxOpenWindows = 64

    public init(configuration: FECDecoderConfiguration = FECDecoderConfiguration(), math: any ReedSolomonMath) {
        self.configuration = configuration
        self.math = math
        buffer = FECSourceBuffer(history: configuration.historyPackets, hold: configuration.timeoutNanoseconds)
    }

    /// Windows still open (waiting for symbols).
    public var openWindowCount: Int { windows.count }

    /// One source RTP packet (the whole datagram payload) as it arrived.
    public mutating func receiveSource(_ packet: ArraySlice<UInt8>, nowNanoseconds now: Int64) -> [FECAction] {
        guard let fields = RTPFields(packet) else {
            stats.sourcePacketsMalformed += 1
            return []
        }
        var actions: [FECAction] = []
        if let known = ssrc, known != fields.ssrc { actions += restart(now: now) }
        ssrc = fields.ssrc
        var ext = buffer.extend(fields.sequence)
        var outcome = buffer.insert(ext: ext, bytes: Array(packet), arrival: now, recovered: false)
        if outcome == .restart {
            actions += restart(now: now)
            ext = buffer.extend(fields.sequence)
            outcome = buffer.insert(ext: ext, bytes: Array(packet), arrival: now, recovered: false)
        }
        switch outcome {
        case .duplicate, .late: stats.sourcePacketsLate += 1
        case .stored, .restart: break
        }
        if outcome != .duplicate {
            // The packet may complete its window, or show that an earlier window's sources are over.
            for id in windows.keys.sorted() where windows[id].map({ $0.base <= ext }) == true {
                actions += attempt(id, now: now)
            }
        }
        return actions + release(now: now)
    }

    /// One packet of the repair flow as it arrived.
    public mutating func receiveRepair(_ packet: ArraySlice<UInt8>, nowNanoseconds now: Int64) -> [FECAction] {
        guard case let .success((header, symbol)) = ReedSolomonRepairHeader.parse(packet: packet) else {
            stats.repairPacketsMalformed += 1
            return []
        }
        if let known = ssrc, known != header.ssrc {
            stats.repairPacketsMalformed += 1
            return []
        }
        let id = header.windowID
        stats.repairPackets += 1
        if closedIDs.contains(id) || isStale(id) {
            stats.repairPacketsLate += 1
            return []
        }
        var actions: [FECAction] = []
        if var window = windows[id] {
            guard window.k == header.sourceCount, window.m == header.repairCount, window.symbolLength == header.symbolLength,
                  UInt16(truncatingIfNeeded: window.base) == header.sequenceBase, window.ssrc == header.ssrc else {
                stats.repairPacketsMalformed += 1
                return []
            }
            guard window.repairs[header.repairIndex] == nil else {
                stats.repairPacketsLate += 1
                return []
            }
            window.repairs[header.repairIndex] = Array(symbol)
            window.checksums[header.repairIndex] = header.symbolChecksum
            windows[id] = window
        } else {
            // A base far from the stream's position is garbage or a stale sender: not a window.
            let base = buffer.extend(header.sequenceBase)
            if buffer.started, abs(base - buffer.highest) > FECSourceBuffer.maxJump {
                stats.repairPacketsMalformed += 1
                return []
            }
            // Bounded state: at most `maxOpenWindows` windows wait at once; the oldest fails first.
            if windows.count >= Self.maxOpenWindows, let oldest = windows.keys.min(by: { Int32(bitPattern: $0 &- $1) < 0 }) {
                actions += close(oldest, failed: true, now: now)
            }
            let k = header.sourceCount, m = header.repairCount
            let window = Window(id: id, k: k, m: m, base: base, symbolLength: header.symbolLength,
                                ssrc: header.ssrc, repairs: [header.repairIndex: Array(symbol)],
                                checksums: [header.repairIndex: header.symbolChecksum],
                                deadline: now + configuration.timeoutNanoseconds,
                                warning: k + m > configuration.recommendedMaxSymbols)
            actions += openWindow(window, now: now)
            guard windows[id] != nil else { return actions + release(now: now) }
        }
        actions += attempt(id, now: now)
        return actions + release(now: now)
    }

    /// Closes windows whose time is up and releases packets that waited long enough. Call it
    /// periodically (e.g. every 10–50 ms) so failures are reported even when nothing arrives.
    public mutating func tick(nowNanoseconds now: Int64) -> [FECAction] {
        var actions: [FECAction] = []
        for id in windows.keys.sorted() where windows[id].map({ $0.deadline <= now }) == true {
            // At the deadline a missing source is lost, not late (e.g. the stream's last packet):
            // rebuild it if the window holds k symbols, else fail.
            actions += attempt(id, now: now, final: true)
            if windows[id] != nil { actions += close(id, failed: true, now: now) }
        }
        return actions + release(now: now)
    }

    /// End of input: closes every open window and releases everything held.
    public mutating func finish(nowNanoseconds now: Int64) -> [FECAction] {
        restart(now: now)
    }

    // MARK: Windows

    private func isStale(_ id: UInt32) -> Bool {
        guard let newest else { return false }
        return Int32(bitPattern: id &- newest.id) < -Int32(Self.closedMemory / 2)
    }

    private mutating func openWindow(_ window: Window, now: Int64) -> [FECAction] {
        var actions: [FECAction] = []
        // Windows whose every repair was lost sit between the newest known window and this one.
        if let newest {
            let step = Int32(bitPattern: window.id &- newest.id)
            if step > 1, step - 1 <= Self.maxGhostWindows {
                let gap = Int64(step - 1), span = window.base - newest.end
                if span > 0, span % gap == 0, span / gap <= 255 {
                    for i in 0..<gap {
                        let base = newest.end + i * (span / gap)
                        actions += closeGhost(id: newest.id &+ UInt32(i + 1), base: base, k: Int(span / gap), now: now)
                    }
                }
            }
        }
        if newest == nil || Int32(bitPattern: window.id &- newest!.id) > 0 { newest = (window.id, window.end) }
        // The sender sends a window's repairs before the next window's: older windows get no more.
        for id in windows.keys.sorted() where Int32(bitPattern: window.id &- id) >= 1 {
            actions += attempt(id, now: now, final: true)
        }
        if window.k + window.m > 255 || window.k + window.m > configuration.maxSymbols {
            let report = FECWindowReport(windowID: Int64(window.id), sourceCount: window.k, repairCount: window.m,
                                         firstSequence: UInt16(truncatingIfNeeded: window.base), lostSources: 0,
                                         recoveredSources: 0, result: .unsupported, warning: window.warning,
                                         timestampNanoseconds: now)
            remember(window.id)
            stats.count(report)
            return actions + [.windowClosed(report)]
        }
        windows[window.id] = window
        return actions
    }

    private mutating func closeGhost(id: UInt32, base: Int64, k: Int, now: Int64) -> [FECAction] {
        guard !closedIDs.contains(id), windows[id] == nil else { return [] }
        let missing = (0..<Int64(k)).filter { !buffer.contains(base + $0) }
        for offset in missing where base + offset >= buffer.next { buffer.abandoned.insert(base + offset) }
        let report = FECWindowReport(windowID: Int64(id), sourceCount: k, repairCount: 0, firstSequence: UInt16(truncatingIfNeeded: base),
                                     lostSources: missing.count, recoveredSources: 0, result: missing.isEmpty ? .noLoss : .failed,
                                     warning: false, timestampNanoseconds: now)
        remember(id)
        stats.count(report)
        return [.windowClosed(report)]
    }

    /// Recovers window `id` if it holds k symbols; with `final`, fails it if it cannot.
    private mutating func attempt(_ id: UInt32, now: Int64, final: Bool = false) -> [FECAction] {
        guard var window = windows[id] else { return [] }
        let missing = (0..<window.k).filter { !buffer.contains(window.base + Int64($0)) }
        if missing.isEmpty { return close(id, failed: false, now: now) }
        // A source not yet passed by the stream may just be late (reordered across flows): it
        // counts as lost once a later source arrived, or when the window must close.
        if !final, let last = missing.last, window.base + Int64(last) > buffer.highest { return [] }
        guard window.k - missing.count + window.repairs.count >= window.k else {
            return final || exhausted(window) ? close(id, failed: true, now: now) : []
        }
        // Any k symbols do: every source that arrived, then repairs in index order. Repairs are
        // checked (CRC-32C) only when used; a corrupted one is dropped and counted.
        let k = window.k, size = window.symbolLength
        var usable: [(Int, [UInt8])] = []
        for (index, symbol) in window.repairs.sorted(by: { $0.key < $1.key }) where usable.count < missing.count {
            let crc = symbol.withUnsafeBufferPointer { math.crc32c($0) }
            guard crc == window.checksums[index] else {
                window.repairs[index] = nil
                stats.repairPacketsMalformed += 1
                continue
            }
            usable.append((index, symbol))
        }
        windows[id] = window
        guard usable.count == missing.count else {
            return final || exhausted(window) ? close(id, failed: true, now: now) : []
        }
        var indices: [Int] = []
        indices.reserveCapacity(k)
        // The flat buffer is kept between windows (no allocation or memset per window): each
        // slot's zero padding is written as the slot is filled.
        var symbols = scratch
        scratch = []
        defer { scratch = symbols }
        if symbols.count < k * size { symbols = [UInt8](repeating: 0, count: k * size) }
        var oversized = false
        symbols.withUnsafeMutableBufferPointer { flat in
            var slot = 0
            for index in 0..<k {
                guard let entry = buffer.entry(window.base + Int64(index)) else { continue }
                let bytes = entry.bytes
                guard bytes.count + ReedSolomonRepairHeader.symbolOverhead <= size else {
                    oversized = true
                    return
                }
                flat[slot * size] = UInt8(truncatingIfNeeded: bytes.count >> 8)
                flat[slot * size + 1] = UInt8(truncatingIfNeeded: bytes.count)
                bytes.withUnsafeBufferPointer { source in
                    UnsafeMutableBufferPointer(rebasing: flat[(slot * size + 2)..<(slot * size + 2 + bytes.count)])
                        .update(fromContentsOf: source)
                }
                UnsafeMutableBufferPointer(rebasing: flat[(slot * size + 2 + bytes.count)..<((slot + 1) * size)]).update(repeating: 0)
                indices.append(index)
                slot += 1
            }
            for (index, symbol) in usable {
                symbol.withUnsafeBufferPointer { source in
                    UnsafeMutableBufferPointer(rebasing: flat[(slot * size)..<((slot + 1) * size)]).update(fromContentsOf: source)
                }
                indices.append(k + index)
                slot += 1
            }
        }
        guard !oversized else {
            stats.recoveriesRejected += missing.count
            return close(id, failed: true, now: now)
        }
        var rebuilt = [UInt8](repeating: 0, count: missing.count * size)
        do {
            try symbols.withUnsafeBufferPointer { all in
                try rebuilt.withUnsafeMutableBufferPointer { output in
                    try math.reconstruct(sourceCount: k, repairCount: window.m, symbolLength: size, indices: indices,
                                         symbols: UnsafeBufferPointer(rebasing: all[0..<(k * size)]), output: output)
                }
            }
        } catch {
            return close(id, failed: true, now: now)
        }
        var packets: [(Int64, [UInt8])] = []
        for (slot, index) in missing.enumerated() {
            let ext = window.base + Int64(index)
            guard let packet = ReedSolomonRepairHeader.packet(inSymbol: rebuilt[(slot * size)..<((slot + 1) * size)]),
                  let fields = RTPFields(packet[...]), fields.sequence == UInt16(truncatingIfNeeded: ext),
                  fields.ssrc == window.ssrc else {
                // A wrong survivor would corrupt every rebuilt packet: deliver none of them.
                stats.recoveriesRejected += missing.count
                return close(id, failed: true, now: now)
            }
            packets.append((ext, packet))
        }
        var tooLate = false
        for (ext, packet) in packets where buffer.insert(ext: ext, bytes: packet, arrival: now, recovered: true) != .stored {
            tooLate = true
        }
        return close(id, failed: tooLate, now: now, recovered: tooLate ? 0 : packets.count, lost: missing.count)
    }

    /// Every repair is in and the stream has moved past the window's last source: nothing more
    /// can come (short of reordering beyond a window, which the timeout covers).
    private func exhausted(_ window: Window) -> Bool {
        window.checksums.count == window.m && buffer.started && buffer.highest >= window.end - 1
    }

    private mutating func close(_ id: UInt32, failed: Bool, now: Int64, recovered: Int = 0, lost: Int? = nil) -> [FECAction] {
        guard let window = windows.removeValue(forKey: id) else { return [] }
        let missing = (0..<Int64(window.k)).filter { !buffer.contains(window.base + $0) }
        if failed {
            for offset in missing where window.base + offset >= buffer.next { buffer.abandoned.insert(window.base + offset) }
        }
        let lostCount = lost ?? missing.count
        let result: FECWindowResult = failed ? .failed : (lostCount == 0 ? .noLoss : .recovered)
        let report = FECWindowReport(windowID: Int64(window.id), sourceCount: window.k, repairCount: window.m,
                                     firstSequence: UInt16(truncatingIfNeeded: window.base), lostSources: lostCount,
                                     recoveredSources: failed ? 0 : recovered, result: result, warning: window.warning,
                                     timestampNanoseconds: now)
        remember(id)
        stats.count(report)
        return [.windowClosed(report)]
    }

    private mutating func remember(_ id: UInt32) {
        if closedOrder.count < Self.closedMemory {
            closedOrder.append(id)
        } else {
            closedIDs.remove(closedOrder[closedCursor])
            closedOrder[closedCursor] = id
            closedCursor = (closedCursor + 1) % Self.closedMemory
        }
        closedIDs.insert(id)
    }

    // MARK: Delivery

    private mutating func release(now: Int64) -> [FECAction] {
        let open = windows
        return buffer.release(now: now, stats: &stats) { ext in open.values.contains { $0.base <= ext && ext < $0.end } }
    }

    /// Closes every open window (failed if it misses sources) and flushes the stream.
    private mutating func restart(now: Int64) -> [FECAction] {
        var actions: [FECAction] = []
        for id in windows.keys.sorted() {
            actions += attempt(id, now: now, final: true)
        }
        actions += buffer.flush(now: now, stats: &stats)
        newest = nil
        return actions
    }
}
