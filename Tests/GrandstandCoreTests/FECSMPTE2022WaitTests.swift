import Testing
@testable import GrandstandCore

/// A paced 2022-1 sender (our encoder, which sends column c of a matrix with packet c·D of the
/// next one, as GStreamer and FFmpeg do) into the decoder on a manual clock ticked every 10 ms.
struct PacedMatrixStream {
    var columns: Int
    var rows: Int
    /// Time between media packets (ns): 1316-byte TS payloads at `Self.interval(megabits:)`.
    var interval: (Int) -> Int64
    var matrices = 7
    var rowFEC = true

    /// ns per 7 × 188-byte payload at `megabits` Mbit/s of TS.
    static func interval(megabits: Double) -> Int64 { Int64((1316.0 * 8 / (megabits * 1e6) * 1e9).rounded()) }

    struct Run {
        var output = FECOutput()
        var decoder: SMPTE2022Decoder
        /// Longest time a packet waited in the decoder (release time − arrival time).
        var maxHold: Int64 = 0
        /// `decoder.matrixWait` sampled after each media packet.
        var waits: [Int64] = []
    }

    func run(drop: Set<Int> = [], bound: Int64 = FECDecoderConfiguration().matrixWaitBoundNanoseconds) -> Run {
        let count = columns * rows * matrices
        let media = FECPackets.stream(count: count, firstSequence: 1000)
        var encoder = SMPTE2022Encoder(configuration: .init(columns: columns, rows: rows, rowFEC: rowFEC))
        let limits = FECDecoderConfiguration(matrixWaitBoundNanoseconds: bound)
        var run = Run(decoder: SMPTE2022Decoder(configuration: .init(limits: limits, columns: columns, rows: rows)))
        var now: Int64 = 0
        var nextTick: Int64 = 10_000_000
        func take(_ actions: [FECAction], at time: Int64) {
            for case let .deliver(packet) in actions { run.maxHold = max(run.maxHold, time - packet.timestampNanoseconds) }
            run.output.add(actions)
        }
        for (i, packet) in media.enumerated() {
            while nextTick <= now {
                take(run.decoder.tick(nowNanoseconds: nextTick), at: nextTick)
                nextTick += 10_000_000
            }
            let fec = encoder.add(packet)
            for bytes in fec.column + fec.row { take(run.decoder.receiveFEC(bytes[...], nowNanoseconds: now), at: now) }
            if !drop.contains(i) { take(run.decoder.receiveMedia(packet[...], nowNanoseconds: now), at: now) }
            run.waits.append(run.decoder.matrixWait.nanoseconds)
            now += interval(i)
        }
        // The last matrix's column FEC (the encoder's flush), then time runs out.
        for bytes in encoder.flush().column { take(run.decoder.receiveFEC(bytes[...], nowNanoseconds: now), at: now) }
        take(run.decoder.tick(nowNanoseconds: now + 10 * bound), at: now + 10 * bound)
        take(run.decoder.finish(nowNanoseconds: now + 10 * bound), at: now + 10 * bound)
        return run
    }

    /// The derived wait at a constant interval: one matrix time (L·D intervals), an eighth more
    /// and 50 ms (RepairWait).
    func expectedWait(interval: Int64) -> Int64 {
        let time = interval * Int64(columns * rows)
        return time + time / 8 + 50_000_000
    }
}

/// The 2022-1 matrix wait follows L×D and the measured packet rate, capped by the bound.
@Suite struct FECSMPTE2022WaitTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var columns: Int, rows: Int, megabits: Double, rowFEC = true
        var testDescription: String { "\(columns)×\(rows)\(rowFEC ? "" : " 1D") at \(megabits) Mbit/s" }
    }

    static let cases = [Case(columns: 4, rows: 4, megabits: 20), Case(columns: 10, rows: 5, megabits: 1.5),
                        Case(columns: 10, rows: 10, megabits: 5), Case(columns: 20, rows: 5, megabits: 1),
                        Case(columns: 5, rows: 20, megabits: 2), Case(columns: 20, rows: 4, megabits: 8),
                        Case(columns: 8, rows: 8, megabits: 3, rowFEC: false)]

    /// A burst over the last columns of a matrix's first row: only column FEC repairs it, and
    /// the last of those comes (L − 1)·D packets into the next matrix, later than the old fixed
    /// 200 ms at the low rates. Every case recovers, the wait is the derived one, none capped.
    /// (Matrix 5: the rate is known after four blocks, one matrix each; before, the wait is the bound.)
    @Test(arguments: cases)
    func derivedWaitRecoversLateColumnFEC(c: Case) throws {
        let interval = PacedMatrixStream.interval(megabits: c.megabits)
        let stream = PacedMatrixStream(columns: c.columns, rows: c.rows, interval: { _ in interval }, rowFEC: c.rowFEC)
        let span = c.columns * c.rows
        // Matrix 5, row 0, the last three columns.
        let drop = Set((c.columns - 3)..<c.columns).map { 5 * span + $0 }
        let run = stream.run(drop: Set(drop))
        #expect(run.waits.last == stream.expectedWait(interval: interval))
        #expect(run.decoder.stats.waitMilliseconds == Int(stream.expectedWait(interval: interval) / 1_000_000))
        #expect(run.output.lost.isEmpty && run.output.delivered.count == span * stream.matrices)
        #expect(run.decoder.stats.recoveredPackets == 3 && run.decoder.stats.windowRecoveryFailures == 0)
        #expect(run.decoder.stats.windowWaitCapped == 0)
        // The packets after the burst waited for the last column FEC, (L − 1)·D packets into the
        // next matrix: from the burst's row on, less than two matrix times.
        #expect(run.maxHold >= interval * Int64((c.columns - 1) * c.rows))
        #expect(run.maxHold < interval * Int64(2 * span))
    }

    /// The issue's case (10×5 at 1.5 Mbit/s, the last column FEC ≈ 330 ms after the matrix):
    /// with the old 200 ms as the bound the derived 445 ms is capped, the burst is lost, and the
    /// matrix counts `window_wait_capped`; with the default bound it is repaired.
    @Test func theBoundCapsTheDerivedWait() {
        let interval = PacedMatrixStream.interval(megabits: 1.5)
        let stream = PacedMatrixStream(columns: 10, rows: 5, interval: { _ in interval })
        let drop: Set<Int> = [257, 258, 259]
        let capped = stream.run(drop: drop, bound: 200_000_000)
        #expect(stream.expectedWait(interval: interval) > 200_000_000)
        #expect(capped.waits.last == 200_000_000 && capped.decoder.stats.waitMilliseconds == 200)
        #expect(capped.output.lost.count == 3 && capped.decoder.stats.windowRecoveryFailures == 1)
        // Only the matrix that had to wait (the others closed complete at their last packet).
        #expect(capped.decoder.stats.windowWaitCapped == 1)
        // Held from arrival (packet 260) to the matrix's end (packet 300) plus the bound and a tick.
        #expect(capped.maxHold <= 40 * interval + 200_000_000 + 10_000_000)
        let derived = stream.run(drop: drop)
        #expect(derived.output.lost.isEmpty && derived.decoder.stats.windowRecoverySuccesses == 1)
        #expect(derived.decoder.stats.windowWaitCapped == 0)
    }

    /// The rate is measured over blocks of L·D packets, the slowest of the last four and the one
    /// under way: after a fourfold speed-up the wait shortens once the slow blocks are four
    /// blocks old (a wait too long only delays giving up); after a slow-down it lengthens with
    /// the first slow packet.
    @Test func waitFollowsARateChange() {
        let slow = PacedMatrixStream.interval(megabits: 2), fast = PacedMatrixStream.interval(megabits: 8)
        let faster = PacedMatrixStream(columns: 10, rows: 10, interval: { $0 < 600 ? slow : fast }, matrices: 12)
        let run = faster.run(drop: [707, 708, 709])
        #expect(run.waits[398] == FECDecoderConfiguration().matrixWaitBoundNanoseconds)   // three blocks
        #expect(run.waits[599] == faster.expectedWait(interval: slow))
        #expect(run.waits[999] == faster.expectedWait(interval: slow))     // blocks 500–600 … 800–900
        #expect(run.waits[1000] == faster.expectedWait(interval: fast))
        #expect(run.output.lost.isEmpty && run.decoder.stats.recoveredPackets == 3)
        let slower = PacedMatrixStream(columns: 10, rows: 10, interval: { $0 < 600 ? fast : slow }, matrices: 7)
        let waits = slower.run().waits
        #expect(waits[599] == slower.expectedWait(interval: fast))
        #expect(waits[601] == slower.expectedWait(interval: slow))      // the first slow interval
    }

    /// A real-time sender sends each video frame's packets back to back (FFmpeg `-re`: here 13
    /// packets 50 µs apart, then the rest of 40 ms): a per-packet average taken just after a
    /// frame says a third of the real time. With blocks the worst-place burst of every matrix is
    /// still repaired (its last column FEC comes 45 packets ≈ 140 ms after the matrix).
    @Test func frameBurstsDoNotShortenTheWait() {
        let gap: Int64 = 40_000_000 - 12 * 50_000
        let stream = PacedMatrixStream(columns: 10, rows: 5, interval: { $0 % 13 == 12 ? gap : 50_000 }, matrices: 10)
        let drop = (4...8).flatMap { m in (m * 50 + 6..<m * 50 + 10) }
        let run = stream.run(drop: Set(drop))
        #expect(run.output.lost.isEmpty && run.decoder.stats.recoveredPackets == drop.count)
        #expect(run.decoder.stats.windowRecoverySuccesses == 5 && run.decoder.stats.windowWaitCapped == 0)
        // 13 packets per 40 ms: a matrix of 50 takes ≈ 154 ms; the wait never drops below it.
        #expect(run.waits[100...].allSatisfy { $0 >= 154_000_000 + 50_000_000 })
    }

    /// Without a rate (or L and D) the wait is the bound; a stall is not a rate sample; frame
    /// bursts average out over a block.
    @Test func estimatorEdges() {
        var wait = RepairWait(bound: 1_000_000_000)
        #expect(wait.wait(repairSpan: 100) == .init(nanoseconds: 1_000_000_000, capped: false))
        wait.observe(sequence: 10, arrival: 0, blockPackets: 2)
        wait.observe(sequence: 12, arrival: 4_000_000, blockPackets: 2)          // one lost: 2 ms each
        wait.observe(sequence: 14, arrival: 8_000_000, blockPackets: 2)
        #expect(wait.interval == nil)                                            // two blocks: not yet
        wait.observe(sequence: 16, arrival: 12_000_000, blockPackets: 2)
        wait.observe(sequence: 17, arrival: 13_000_000, blockPackets: 2)
        wait.observe(sequence: 15, arrival: 14_000_000, blockPackets: 2)         // reordered: not a sample
        wait.observe(sequence: 18, arrival: 16_000_000, blockPackets: 2)         // the fourth block
        #expect(wait.interval == 2_000_000)
        wait.observe(sequence: 19, arrival: 3_016_000_000, blockPackets: 2)      // a 3 s stall: not a rate
        #expect(wait.interval == 2_000_000)
        wait.observe(sequence: 20, arrival: 3_017_000_000, blockPackets: 2)      // 1 ms now: the slower wins
        #expect(wait.interval == 2_000_000)
        #expect(wait.wait(repairSpan: 100) == .init(nanoseconds: 275_000_000, capped: false))
        #expect(wait.wait(repairSpan: 1000) == .init(nanoseconds: 1_000_000_000, capped: true))
        wait.reset()
        #expect(wait.interval == nil)
        // Frames of 10 packets 10 µs apart every 40 ms: 4 ms per packet, even right after a frame.
        var bursty = RepairWait(bound: 1_000_000_000)
        for frame in 0..<12 {
            for k in 0..<10 { bursty.observe(sequence: Int64(frame * 10 + k), arrival: Int64(frame) * 40_000_000 + Int64(k) * 10_000, blockPackets: 20) }
        }
        #expect(bursty.interval == 4_000_000)
        let decoder = SMPTE2022Decoder(configuration: .init(limits: FECDecoderConfiguration(matrixWaitBoundNanoseconds: 700_000_000)))
        #expect(decoder.matrixWait.nanoseconds == 700_000_000 && !decoder.matrixWait.capped)
        #expect(decoder.stats.waitMilliseconds == 700)
    }

    /// A row-only stream's FEC follows each row: its wait is one row time, not a matrix.
    @Test func rowOnlyWaitsARow() {
        let interval = PacedMatrixStream.interval(megabits: 4)
        var encoder = SMPTE2022Encoder(configuration: .init(columns: 10, rows: 5))
        var decoder = SMPTE2022Decoder(configuration: .init(columns: 10, rows: 5))
        for (i, packet) in FECPackets.stream(count: 200).enumerated() {
            let now = Int64(i) * interval
            for bytes in encoder.add(packet).row { _ = decoder.receiveFEC(bytes[...], nowNanoseconds: now) }
            _ = decoder.receiveMedia(packet[...], nowNanoseconds: now)
        }
        let row = interval * 10
        #expect(decoder.matrixWait.nanoseconds == row + row / 8 + 50_000_000 && !decoder.matrixWait.capped)
    }

    /// The gauge is a level: the pipeline neither sums it into totals nor carries it over.
    @Test func waitGaugeIsALevel() {
        #expect(ChannelStats.isLevel("fec_wait_ms_current") && ChannelStats.isLevel("rtp_jitter"))
        #expect(!ChannelStats.isLevel("window_wait_capped"))
        var a = FECStats(), b = FECStats()
        (a.waitMilliseconds, b.waitMilliseconds, a.windowWaitCapped, b.windowWaitCapped) = (300, 500, 1, 2)
        #expect((a + b).waitMilliseconds == 500 && (a + b).windowWaitCapped == 3)
        #expect(a.keyValues.contains { $0.key == "fec_wait_ms_current" && $0.value == 300 })
    }
}
