/// SMPTE 2022-1 (Pro-MPEG COP3) receiver for one channel: media RTP packets plus column FEC
/// (port + 2) and row FEC (port + 4) in, media packets out in order (received or rebuilt), each
/// closed L×D matrix counted as a protection window. XOR recovery iterates between rows and
/// columns until nothing more recovers. Sans-I/O: arrival time is passed in.
///
/// Matrices are aligned on the sender's: row FEC fixes the phase modulo L, and the first column
/// FEC (SNBase = matrix start + column) the rest; with column FEC only, the first column FEC seen
/// is taken as column 0. A stream with row FEC only (1D row, e.g. GStreamer with column FEC off)
/// is recognised when no column FEC came within `rowOnlyHorizon` packets of the first row FEC:
/// its matrices start at that row (L×D when D is announced, else each row is a window).
/// Matrices that began before the first media packet, and the unfinished matrix at the end of
/// input, are not counted. A matrix whose media went by waits for its missing FEC as long as
/// the sender needs to send it at the measured packet rate, capped by the configured bound
/// (`RepairWait`); packets after a gap are held as long (docs/fec.md, "Matrix wait").
public struct SMPTE2022Decoder: Sendable {
    public struct Configuration: Sendable, Equatable {
        public var limits: FECDecoderConfiguration
        /// L and D as announced (SDP); nil to learn them from the FEC headers. FEC packets that
        /// disagree with them are counted malformed and dropped.
        public var columns: Int?
        public var rows: Int?
        /// Accept a rebuilt packet only if its payload is whole MPEG-TS packets (188 bytes, sync
        /// byte 0x47): XOR has no checksum, and this catches a wrong rebuild. Default on.
        public var validateMPEGTS: Bool
        /// Matrices with more media packets than this (L·D) count `window_error` and pass
        /// through unprotected. Default 400 (SMPTE 2022-1 allows L·D ≤ 100).
        public var maxMatrixPackets: Int

        public init(limits: FECDecoderConfiguration = FECDecoderConfiguration(), columns: Int? = nil, rows: Int? = nil,
                    validateMPEGTS: Bool = true, maxMatrixPackets: Int = 400) {
            self.limits = limits
            self.columns = columns
            self.rows = rows
            self.validateMPEGTS = validateMPEGTS
            self.maxMatrixPackets = maxMatrixPackets
        }
    }

    struct GroupKey: Hashable, Comparable, Sendable {
        var isRow: Bool
        var base: Int64
        static func < (a: GroupKey, b: GroupKey) -> Bool { (a.base, a.isRow ? 1 : 0) < (b.base, b.isRow ? 1 : 0) }
    }

    struct Matrix: Sendable {
        var index: Int64
        var base: Int64
        var groups: [GroupKey: SMPTE2022FECPacket] = [:]
        var spent: Set<GroupKey> = []
        var columnFEC = 0
        var rowFEC = 0
        var recovered = 0
        var tooLate = false
        var endSeenAt: Int64? = nil
        /// The wait fixed when the end was seen (the rate then), and whether the bound cut it.
        var wait = RepairWait.Applied(nanoseconds: 0, capped: false)
        var lastActivity: Int64

        /// When the matrix gives up on its missing packets: its wait after its end (or after the
        /// last packet or FEC for it, when the stream stopped inside it).
        func deadline(waitingNow: Int64) -> Int64 {
            if let endSeenAt { return endSeenAt + wait.nanoseconds }
            return lastActivity + waitingNow
        }
    }

    public let configuration: Configuration
    private var buffer: FECSourceBuffer
    private var columns: Int?
    private var rows: Int?
    private var anchor: Int64? = nil
    private var rowPhase: Int64? = nil
    private var rowsSeen = false
    /// No column FEC: only row groups protect the matrices.
    private var rowOnly = false
    private var firstSource: Int64? = nil
    private var firstMatrix: Int64 = 0
    private var matrices: [Int64: Matrix] = [:]
    private var closed: Set<Int64> = []
    private var pending: [(Int64, SMPTE2022FECPacket)] = []
    private var ssrc: UInt32? = nil
    private var payloadType: UInt8? = nil
    private var waits: RepairWait
    public private(set) var stats = FECStats()

    static let maxPending = 256
    static let maxOpenMatrices = 32

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        columns = configuration.columns
        rows = configuration.rows
        let span = (configuration.columns ?? 20) * (configuration.rows ?? 20)
        let bound = configuration.limits.matrixWaitBoundNanoseconds
        buffer = FECSourceBuffer(history: max(configuration.limits.historyPackets, 3 * span), hold: bound)
        waits = RepairWait(bound: bound)
        stats.waitMilliseconds = Int(bound / 1_000_000)
    }

    /// The wait a matrix whose end is seen now gets (the bound until L, D and the rate are known).
    public var matrixWait: (nanoseconds: Int64, capped: Bool) {
        let applied = currentWait
        return (applied.nanoseconds, applied.capped)
    }

    /// The wait a matrix ending now gets.
    private var currentWait: RepairWait.Applied {
        guard columns != nil, rows != nil else { return waits.unknown }
        return waits.wait(repairSpan: repairSpan)
    }

    /// Media packets the sender needs to send a matrix's FEC: the next matrix (column FEC is
    /// spread over it), or one row when there is no column FEC; 100 (L·D's most) until known.
    private var repairSpan: Int {
        guard let columns, let rows else { return 100 }
        return rowOnly ? columns : columns * rows
    }

    /// L and D in use (announced or learned), nil until known.
    public var geometry: (columns: Int, rows: Int)? {
        guard let columns, let rows else { return nil }
        return (columns, rows)
    }

    public var openWindowCount: Int { matrices.count }

    // MARK: Input

    /// One media RTP packet as it arrived (the UDP payload).
    public mutating func receiveMedia(_ packet: ArraySlice<UInt8>, nowNanoseconds now: Int64) -> [FECAction] {
        guard let fields = RTPFields(packet) else {
            stats.sourcePacketsMalformed += 1
            return []
        }
        var actions: [FECAction] = []
        if let known = ssrc, known != fields.ssrc { actions += restart(now: now) }
        ssrc = fields.ssrc
        payloadType = fields.payloadType
        var ext = buffer.extend(fields.sequence)
        var outcome = buffer.insert(ext: ext, bytes: Array(packet), arrival: now, recovered: false)
        if outcome == .restart {
            actions += restart(now: now)
            ext = buffer.extend(fields.sequence)
            outcome = buffer.insert(ext: ext, bytes: Array(packet), arrival: now, recovered: false)
        }
        if firstSource == nil { firstSource = ext }
        switch outcome {
        case .duplicate, .late: stats.sourcePacketsLate += 1
        case .stored, .restart: waits.observe(sequence: ext, arrival: now, blockPackets: repairSpan)
        }
        if outcome != .duplicate, let n = matrixIndex(ext) {
            for key in matrices.keys where key < n && matrices[key]?.endSeenAt == nil { markEnded(key, now: now) }
            actions += ensureMatrix(n, now: now)
            matrices[n]?.lastActivity = now
            actions += evaluate(n, now: now)
        }
        return actions + release(now: now)
    }

    /// One FEC packet from the column (port + 2) or row (port + 4) flow; the D bit tells which.
    public mutating func receiveFEC(_ packet: ArraySlice<UInt8>, nowNanoseconds now: Int64) -> [FECAction] {
        guard case let .success(fec) = SMPTE2022FECPacket.parse(packet), accept(fec) else {
            stats.repairPacketsMalformed += 1
            return []
        }
        let ext = buffer.extend(fec.snBase)
        // SNBase far from the media position: garbage or a stale sender.
        if buffer.started, abs(ext - buffer.highest) > FECSourceBuffer.maxJump {
            stats.repairPacketsMalformed += 1
            return []
        }
        var actions: [FECAction] = []
        if fec.isRow {
            rowsSeen = true
            if rowPhase == nil { rowPhase = ext }
        }
        if anchor == nil {
            guard !fec.isRow, let columns else {
                if pending.count < Self.maxPending { pending.append((ext, fec)) } else { stats.repairPacketsLate += 1 }
                stats.repairPackets += 1
                // Row FEC far past the first one and still no column FEC: a row-only stream.
                guard fec.isRow, let columns, let first = rowPhase, ext - first >= rowOnlyHorizon(columns: columns) else {
                    return release(now: now)
                }
                rowOnly = true
                if rows == nil { rows = 1 }
                anchor = first
                return anchorFound(now: now) + release(now: now)
            }
            let phase = rowPhase.map { floorMod(ext - $0, Int64(columns)) } ?? 0
            anchor = ext - phase
            actions += anchorFound(now: now)
        }
        stats.repairPackets += 1
        actions += place(ext: ext, fec: fec, now: now)
        return actions + release(now: now)
    }

    /// Closes matrices whose time is up and releases packets that waited long enough.
    public mutating func tick(nowNanoseconds now: Int64) -> [FECAction] {
        var actions: [FECAction] = []
        let waiting = currentWait.nanoseconds
        // A matrix whose end went by closes at its wait; one with nothing new for as long (the
        // stream stopped or stalled in it) is decided with what there is, so its tail is not
        // held forever.
        for n in matrices.keys.sorted() where matrices[n].map({ $0.deadline(waitingNow: waiting) <= now }) == true {
            actions += evaluate(n, now: now, final: true)
        }
        return actions + release(now: now)
    }

    /// End of input: closes every matrix whose media all went by and releases everything held.
    public mutating func finish(nowNanoseconds now: Int64) -> [FECAction] { restart(now: now) }

    // MARK: Matrices

    private var span: Int64? {
        guard let columns, let rows else { return nil }
        return Int64(columns * rows)
    }

    private func matrixIndex(_ ext: Int64) -> Int64? {
        guard let anchor, let span else { return nil }
        return floorDiv(ext - anchor, span)
    }

    private mutating func accept(_ fec: SMPTE2022FECPacket) -> Bool {
        if let columns, columns != fec.columns { return false }
        if let rows, let fecRows = fec.rows, rows != fecRows { return false }
        columns = fec.columns
        if let fecRows = fec.rows { rows = fecRows }
        return true
    }

    private mutating func anchorFound(now: Int64) -> [FECAction] {
        guard let anchor, let span else { return [] }
        let first = min(firstSource ?? Int64.max, pending.map(\.0).min() ?? Int64.max)
        firstMatrix = first == Int64.max ? 0 : -floorDiv(anchor - first, span)
        var actions: [FECAction] = []
        let queued = pending
        pending = []
        for (ext, fec) in queued { actions += place(ext: ext, fec: fec, now: now) }
        if buffer.started, let last = matrixIndex(buffer.highest), firstMatrix <= last {
            for n in firstMatrix...last {
                actions += ensureMatrix(n, now: now)
                actions += evaluate(n, now: now)
            }
        }
        return actions
    }

    private mutating func ensureMatrix(_ n: Int64, now: Int64) -> [FECAction] {
        guard let anchor, let span, let columns, let rows, n >= firstMatrix, matrices[n] == nil, !closed.contains(n) else { return [] }
        let base = anchor + n * span
        var actions: [FECAction] = []
        if span > Int64(configuration.maxMatrixPackets) {
            let report = FECWindowReport(windowID: n, sourceCount: Int(span), repairCount: columns + rows,
                                         firstSequence: UInt16(truncatingIfNeeded: base), lostSources: 0, recoveredSources: 0,
                                         result: .unsupported, warning: warns(), timestampNanoseconds: now)
            markClosed(n)
            stats.count(report)
            return [.windowClosed(report)]
        }
        // Bounded state: the oldest open matrix closes first.
        if matrices.count >= Self.maxOpenMatrices, let oldest = matrices.keys.min() {
            actions += evaluate(oldest, now: now, final: true)
        }
        matrices[n] = Matrix(index: n, base: base, lastActivity: now)
        if buffer.started, buffer.highest >= base + span { markEnded(n, now: now) }
        return actions
    }

    /// The media flow passed the matrix's end (a complete matrix has closed already): its wait
    /// starts now, at the rate measured now.
    private mutating func markEnded(_ n: Int64, now: Int64) {
        let wait = currentWait
        matrices[n]?.endSeenAt = now
        matrices[n]?.wait = wait
    }

    private mutating func place(ext: Int64, fec: SMPTE2022FECPacket, now: Int64) -> [FECAction] {
        guard let n = matrixIndex(ext) else { return [] }
        var actions = ensureMatrix(n, now: now)
        guard var matrix = matrices[n] else {
            stats.repairPacketsLate += 1
            return actions
        }
        let key = GroupKey(isRow: fec.isRow, base: ext)
        guard matrix.groups[key] == nil else {
            stats.repairPacketsLate += 1
            return actions
        }
        matrix.groups[key] = fec
        if fec.isRow { matrix.rowFEC += 1 } else { matrix.columnFEC += 1 }
        matrix.lastActivity = now
        matrices[n] = matrix
        actions += evaluate(n, now: now)
        return actions
    }

    private func warns() -> Bool {
        guard let columns, let rows else { return false }
        return columns * rows + repairCount(columns: columns, rows: rows) > configuration.limits.recommendedMaxSymbols
    }

    /// FEC packets per matrix: a column FEC per column (unless row-only), a row FEC per row if sent.
    private func repairCount(columns: Int, rows: Int) -> Int { (rowOnly ? 0 : columns) + (rowsSeen ? rows : 0) }

    /// Media packets after the first row FEC within which a column FEC must show (two of the
    /// largest matrices: a matrix's column FEC follows it) before the stream counts as row-only.
    private func rowOnlyHorizon(columns: Int) -> Int64 {
        2 * Int64(rows.map { columns * $0 } ?? configuration.maxMatrixPackets)
    }

    /// Recovers what the matrix's FEC allows (iterating), then closes it when complete, when
    /// every FEC packet is in and it is stuck, or when `final`.
    private mutating func evaluate(_ n: Int64, now: Int64, final: Bool = false) -> [FECAction] {
        guard var matrix = matrices[n], let span, let columns, let rows else { return [] }
        var progress = true
        while progress {
            progress = false
            for key in matrix.groups.keys.sorted() where !matrix.spent.contains(key) {
                guard let fec = matrix.groups[key] else { continue }
                let members = (0..<Int64(fec.count)).map { key.base + $0 * Int64(fec.offset) }
                let missing = members.filter { !buffer.contains($0) }
                guard missing.count <= 1 else { continue }
                // A packet the media flow has not passed yet may only be late (FEC and media
                // travel separately): it is lost once a later one arrived, or at the deadline.
                if let lost = missing.first, !final, lost > buffer.highest { continue }
                matrix.spent.insert(key)
                guard let lost = missing.first else { continue }
                guard let packet = rebuild(lost, fec: fec, members: members) else {
                    stats.recoveriesRejected += 1
                    continue
                }
                if buffer.insert(ext: lost, bytes: packet, arrival: now, recovered: true) != .stored { matrix.tooLate = true }
                matrix.recovered += 1
                progress = true
            }
        }
        matrices[n] = matrix
        let missing = (0..<span).filter { !buffer.contains(matrix.base + $0) }.count
        let allFEC = (rowOnly || matrix.columnFEC >= columns) && (!rowsSeen || matrix.rowFEC >= rows)
        let ended = matrix.endSeenAt != nil || (buffer.started && buffer.highest >= matrix.base + span - 1)
        if missing == 0 && ended {
            return close(n, failed: matrix.tooLate, now: now)
        }
        if final && missingPackets(matrix, span: span).isEmpty { return close(n, failed: matrix.tooLate, now: now) }
        if final || (allFEC && ended) { return close(n, failed: true, now: now) }
        return []
    }

    private mutating func close(_ n: Int64, failed: Bool, now: Int64) -> [FECAction] {
        guard let matrix = matrices.removeValue(forKey: n), let span, let columns, let rows else { return [] }
        let missing = missingPackets(matrix, span: span)
        let failed = failed || !missing.isEmpty
        if failed { for ext in missing where ext >= buffer.next { buffer.abandoned.insert(ext) } }
        let lost = matrix.recovered + missing.count
        let result: FECWindowResult = failed ? .failed : (lost == 0 ? .noLoss : .recovered)
        let report = FECWindowReport(windowID: n, sourceCount: Int(span), repairCount: repairCount(columns: columns, rows: rows),
                                     firstSequence: UInt16(truncatingIfNeeded: matrix.base), lostSources: lost,
                                     recoveredSources: failed ? 0 : matrix.recovered, result: result, warning: warns(),
                                     timestampNanoseconds: now)
        markClosed(n)
        stats.count(report)
        // Only a window with loss waited (one complete at its end closes at once).
        if matrix.wait.capped && lost > 0 { stats.windowWaitCapped += 1 }
        return [.windowClosed(report)]
    }

    /// The matrix's packets not (yet) here. When the stream stopped inside the matrix, packets
    /// after the last one seen count only if an FEC group received says they were sent (a
    /// trailing partial matrix of a finished stream is not a loss).
    private func missingPackets(_ matrix: Matrix, span: Int64) -> [Int64] {
        let missing = (0..<span).map { matrix.base + $0 }.filter { !buffer.contains($0) }
        guard buffer.highest < matrix.base + span - 1, missing.contains(where: { $0 > buffer.highest }) else { return missing }
        let covered = Set(matrix.groups.flatMap { key, fec in (0..<Int64(fec.count)).map { key.base + $0 * Int64(fec.offset) } })
        return missing.filter { $0 <= buffer.highest || covered.contains($0) }
    }

    private mutating func markClosed(_ n: Int64) {
        closed.insert(n)
        if closed.count > 512 { closed = closed.filter { $0 > n - 256 } }
    }

    /// The packet at `lost` from one FEC packet and the other members of its group, or nil when
    /// the result is not a plausible packet of this stream.
    private func rebuild(_ lost: Int64, fec: SMPTE2022FECPacket, members: [Int64]) -> [UInt8]? {
        guard let ssrc, let payloadType else { return nil }
        var payload = Array(fec.payload)
        var bits = fec.headerBitsRecovery, marker = fec.markerRecovery, pt = fec.payloadTypeRecovery
        var timestamp = fec.timestampRecovery, length = fec.lengthRecovery
        var sameLength = true
        for ext in members where ext != lost {
            guard let entry = buffer.entry(ext), let fields = RTPFields(entry.bytes[...]) else { return nil }
            let size = entry.bytes.count - 12
            guard size <= payload.count else { return nil }
            bits ^= fields.first & 0x3F
            marker = marker != fields.marker
            pt ^= fields.payloadType
            timestamp ^= fields.timestamp
            length ^= UInt16(truncatingIfNeeded: size)
            if size != payload.count { sameLength = false }
            XORBytes.accumulate(into: &payload, from: entry.bytes, offset: 12, count: size)
        }
        var size = Int(length)
        // FFmpeg's prompeg writes the (constant) packet length instead of the XOR of lengths.
        if size == 0 || size > payload.count {
            guard sameLength else { return nil }
            size = payload.count
        }
        guard pt == payloadType, payload[size...].allSatisfy({ $0 == 0 }) else { return nil }
        if configuration.validateMPEGTS {
            guard size > 0, size % 188 == 0, stride(from: 0, to: size, by: 188).allSatisfy({ payload[$0] == 0x47 }) else { return nil }
        }
        var packet: [UInt8] = []
        packet.reserveCapacity(12 + size)
        packet.append(0x80 | bits)
        packet.append((marker ? 0x80 : 0) | pt)
        packet.appendBE16(UInt16(truncatingIfNeeded: lost))
        packet.appendBE32(timestamp)
        packet.appendBE32(ssrc)
        packet += payload[0..<size]
        return packet
    }

    // MARK: Delivery

    private mutating func release(now: Int64) -> [FECAction] {
        // The wait in force now: the gauge, and the hold of a packet after a gap no open matrix
        // awaits (the rest of a matrix and its wait, so the hold covers the wait).
        let wait = currentWait
        let waiting = wait.nanoseconds
        buffer.hold = waits.hold(span: Int(span ?? 0), after: wait)
        stats.waitMilliseconds = Int(waiting / 1_000_000)
        guard let span else { return buffer.release(now: now, stats: &stats) { _ in false } }
        let open = matrices.values.map { ($0.base, $0.base + span, $0.deadline(waitingNow: waiting)) }
        return buffer.release(now: now, stats: &stats) { ext in
            open.contains { $0.0 <= ext && ext < $0.1 && now < $0.2 }
        }
    }

    private mutating func restart(now: Int64) -> [FECAction] {
        var actions: [FECAction] = []
        if let span {
            for n in matrices.keys.sorted() {
                guard let matrix = matrices[n] else { continue }
                if buffer.started, buffer.highest >= matrix.base + span - 1 {
                    actions += evaluate(n, now: now, final: true)
                } else {
                    matrices[n] = nil
                }
            }
        }
        actions += buffer.flush(now: now, stats: &stats)
        matrices = [:]
        closed = []
        pending = []
        anchor = nil
        rowPhase = nil
        if rowOnly {
            rowOnly = false
            rows = configuration.rows
        }
        firstSource = nil
        ssrc = nil
        waits.reset()
        return actions
    }
}

func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
    let q = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
}

func floorMod(_ a: Int64, _ b: Int64) -> Int64 { a - floorDiv(a, b) * b }
