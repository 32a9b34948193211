// SMPTE 2022-1 added latency (docs/performance.md, "FEC: 2022-1 added latency"): a constant-bit-
// rate sender protecting L×D matrices with our encoder (row FEC right after its row, column c of
// a matrix with packet c·D of the next one: what GStreamer rtpst2022-1-fecenc and FFmpeg prompeg
// do) into SMPTE2022Decoder on a simulated clock ticked every 10 ms. A packet's added latency is
// its release time minus its arrival time (for a lost packet, when it would have arrived).
import GrandstandCore

struct LatencyScenario {
    var name: String
    /// Media indices (from 0) the network loses.
    var lost: (Int, _ span: Int, _ columns: Int) -> Bool
}

struct LatencyResult {
    var p50: Double, p99: Double, max: Double
    /// p99 of the floor the sender sets: a packet cannot leave before every earlier lost packet's
    /// repair (its row or column FEC, whichever has it as the only loss) has arrived.
    var floorP99: Double
    var recovered: Int, unrecovered: Int, waitMilliseconds: Int, capped: Int
}

/// Per-packet added latency (ms) of `matrices` matrices of `columns`×`rows` at `megabits` Mbit/s
/// of TS; arrivals jittered by up to `jitter` ns (deterministic), FEC with its media packet.
func smpte2022Latency(columns: Int, rows: Int, megabits: Double, matrices: Int, jitter: Int64,
                      scenario: LatencyScenario) -> LatencyResult {
    let span = columns * rows
    let interval = Int64((1316.0 * 8 / (megabits * 1e6) * 1e9).rounded())
    var encoder = SMPTE2022Encoder(configuration: .init(columns: columns, rows: rows))
    var decoder = SMPTE2022Decoder(configuration: .init(columns: columns, rows: rows))
    var rng: UInt64 = 0x2022_0001
    func jitterNow() -> Int64 {
        guard jitter > 0 else { return 0 }
        rng = rng &* 6364136223846793005 &+ 1442695040888963407
        return Int64((rng >> 33) % UInt64(jitter))
    }
    let count = matrices * span
    var arrival = [Int64](repeating: 0, count: count)
    var latencies: [Int64] = []
    latencies.reserveCapacity(count)
    var recovered = 0, unrecovered = 0
    func take(_ actions: [FECAction], at time: Int64) {
        for action in actions {
            switch action {
            case let .deliver(packet):
                let index = Int(packet.sequenceNumber)
                if index < count { latencies.append(time - arrival[index]) }
                if packet.recovered { recovered += 1 }
            case let .lost(_, lost, _): unrecovered += lost
            case .windowClosed: break
            }
        }
    }
    // Arrival of each FEC packet: key SNBase·2 (+1 for a row).
    var fecArrival: [Int: Int64] = [:]
    var nextTick: Int64 = 10_000_000
    for i in 0..<count {
        let now = Int64(i) * interval + jitterNow()
        arrival[i] = now
        while nextTick <= now {
            take(decoder.tick(nowNanoseconds: nextTick), at: nextTick)
            nextTick += 10_000_000
        }
        let packet = latencyPacket(i)
        let fec = encoder.add(packet)
        if !scenario.lost(i, span, columns) { take(decoder.receiveMedia(packet[...], nowNanoseconds: now), at: now) }
        for bytes in fec.row + fec.column {
            if case let .success(header) = SMPTE2022FECPacket.parse(bytes[...]) {
                fecArrival[Int(header.snBase) * 2 + (header.isRow ? 1 : 0)] = now
            }
            take(decoder.receiveFEC(bytes[...], nowNanoseconds: now), at: now)
        }
    }
    let end = Int64(count) * interval
    for bytes in encoder.flush().column {
        if case let .success(header) = SMPTE2022FECPacket.parse(bytes[...]) { fecArrival[Int(header.snBase) * 2] = end }
        take(decoder.receiveFEC(bytes[...], nowNanoseconds: end), at: end)
    }
    // The sender's floor: the earliest each lost packet can be rebuilt, iterating rows and
    // columns as the decoder does (a group repairs its one missing packet once its FEC has
    // arrived and its other lost members are rebuilt), from the FEC packets' arrival times.
    let lost = (0..<count).map { scenario.lost($0, span, columns) }
    let lostIndices = (0..<count).filter { lost[$0] }
    var repair: [Int: Int64] = Dictionary(uniqueKeysWithValues: lostIndices.map { ($0, Int64.max) })
    func groups(_ j: Int) -> [(key: Int, members: [Int])] {
        let base = j - j % span, row = j - j % columns, column = base + (j % span) % columns
        return [(row * 2 + 1, Array(row..<row + columns)), (column * 2, Array(stride(from: column, to: base + span, by: columns)))]
    }
    var changed = true
    while changed {
        changed = false
        for j in lostIndices {
            for group in groups(j) {
                guard let fec = fecArrival[group.key] else { continue }
                let others = group.members.filter { $0 != j && lost[$0] }.map { repair[$0] ?? Int64.max }
                let ready = max(fec, others.max() ?? 0)
                if ready < repair[j]! {
                    repair[j] = ready
                    changed = true
                }
            }
        }
    }
    var floors: [Int64] = []
    var blocked: Int64 = 0
    for i in 0..<count {
        if lost[i] { blocked = max(blocked, repair[i] ?? Int64.max) }
        floors.append(max(0, blocked - arrival[i]))
    }
    floors.sort()
    let waitMilliseconds = decoder.stats.waitMilliseconds
    take(decoder.finish(nowNanoseconds: end), at: end)
    latencies.sort()
    func ms(_ q: Double) -> Double {
        latencies.isEmpty ? 0 : Double(latencies[min(latencies.count - 1, Int(q * Double(latencies.count)))]) / 1e6
    }
    let floorP99 = Double(floors[min(floors.count - 1, Int(0.99 * Double(floors.count)))]) / 1e6
    return LatencyResult(p50: ms(0.5), p99: ms(0.99), max: Double(latencies.last ?? 0) / 1e6, floorP99: floorP99, recovered: recovered,
                         unrecovered: unrecovered, waitMilliseconds: waitMilliseconds, capped: decoder.stats.windowWaitCapped)
}

/// 7 TS packets with intact sync bytes (rebuilt packets pass validation); sequence = index.
func latencyPacket(_ i: Int) -> [UInt8] {
    var p: [UInt8] = [0x80, 33, UInt8((i >> 8) & 0xFF), UInt8(i & 0xFF), 0, 0, 0, 0, 1, 2, 3, 4]
    p.reserveCapacity(12 + 1316)
    for k in 0..<7 {
        p.append(0x47)
        p += repeatElement(UInt8(truncatingIfNeeded: i &* 31 &+ k), count: 187)
    }
    return p
}

/// Deterministic pseudo-random position in matrix `m` (0 ..< range).
func position(_ m: Int, _ range: Int, salt: UInt64) -> Int {
    var x = UInt64(m) &* 0x9E37_79B9_7F4A_7C15 ^ salt
    x ^= x >> 31
    x = x &* 0xBF58_476D_1CE4_E5B9
    x ^= x >> 29
    return Int(x % UInt64(max(1, range)))
}

/// The table of docs/performance.md: 10×10 at 5 Mbit/s, `matrices` matrices per row.
func printSMPTE2022Latency(matrices: Int) {
    let columns = 10, rows = 10, megabits = 5.0
    let spanMs = Double(columns * rows) * 1316 * 8 / (megabits * 1e6) * 1e3
    let scenarios = [
        LatencyScenario(name: "no loss") { _, _, _ in false },
        // One packet in 100, never two in a row or column of a matrix: rows repair them.
        LatencyScenario(name: "1 % isolated (row FEC repairs)") { i, span, l in
            let m = i / span, k = i % span
            return m > 0 && k == position(m, span, salt: 1)
        },
        // A burst of 5 consecutive packets per matrix, at a random place (columns repair it).
        LatencyScenario(name: "burst of 5 per matrix (column FEC repairs)") { i, span, l in
            let m = i / span, k = i % span
            let start = position(m, span / l, salt: 2) * l + position(m, l - 4, salt: 3)
            return m > 0 && k >= start && k < start + 5
        },
        // The worst place: the last 5 columns of a matrix's first row (their column FEC comes
        // last, (L − 1)·D packets into the next matrix), in every matrix.
        LatencyScenario(name: "burst of 5, row 0, last columns, every matrix") { i, span, l in
            let m = i / span, k = i % span
            return m > 0 && k >= l - 5 && k < l
        },
    ]
    print("")
    print("## SMPTE 2022-1 added latency (\(columns)×\(rows) at \(fmt(megabits, 0)) Mbit/s, matrix span \(fmt(spanMs, 1)) ms)")
    print("")
    print("| loss | jitter | p50 ms | p99 ms | max ms | p99 ≤ span + 20 ms | sender floor p99 ms | recovered | unrecovered | wait ms | capped |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for scenario in scenarios {
        for jitter in [Int64(0), 2_000_000] {
            let r = smpte2022Latency(columns: columns, rows: rows, megabits: megabits, matrices: matrices, jitter: jitter,
                                     scenario: scenario)
            print("| \(scenario.name) | \(jitter / 1_000_000) ms | \(fmt(r.p50, 1)) | \(fmt(r.p99, 1)) | \(fmt(r.max, 1)) | "
                  + "\(r.p99 <= spanMs + 20 ? "yes" : "no") | \(fmt(r.floorP99, 1)) | \(r.recovered) | \(r.unrecovered) | \(r.waitMilliseconds) | \(r.capped) |")
        }
    }
}
