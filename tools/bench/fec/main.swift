// FEC benchmarks (docs/performance.md, "FEC"): Reed-Solomon window decode and encode throughput
// against ISA-L's raw kernels and memcpy of the same bytes, measured in the same run; per-window
// solve time against a full k×k inversion; added latency of recovery; SMPTE 2022-1 decode.
// SMPTE 2022-1 added latency (Latency2022.swift).
// Usage: swift run -c release fec-bench [--quick] [--latency-2022] [--decode-only] [--hot-arrival] [--k N] [--lost N]
import CGSISAL
import ErasureCoding
import GrandstandCore
#if canImport(Glibc)
import Glibc
#endif

if let flag = CommandLine.arguments.firstIndex(of: "--emit-2022"), flag + 1 < CommandLine.arguments.count {
    emitSMPTE2022Interop(directory: CommandLine.arguments[flag + 1])
    exit(0)
}
let quick = CommandLine.arguments.contains("--quick")
/// `--latency-2022`: only the SMPTE 2022-1 added-latency table (Latency2022.swift).
if CommandLine.arguments.contains("--latency-2022") {
    printSMPTE2022Latency(matrices: quick ? 60 : 300)
    exit(0)
}
/// `--decode-only`: just the RS decode table (for profiling).
let decodeOnly = CommandLine.arguments.contains("--decode-only")
/// `--hot-arrival`: each source packet is copied into a fresh array just before the decoder gets
/// it (timed with the decoder), like a socket read: the packet is hot when it arrives, as in
/// production; by default the pre-made packets are cache-cold when they arrive.
let hotArrival = CommandLine.arguments.contains("--hot-arrival")
/// `--k N`: only the decode rows with k = N (for profiling one shape).
let onlyK: Int? = CommandLine.arguments.firstIndex(of: "--k").flatMap { $0 + 1 < CommandLine.arguments.count ? Int(CommandLine.arguments[$0 + 1]) : nil }
/// `--lost N`: only the decode rows with N losses per window.
let onlyLost: Int? = CommandLine.arguments.firstIndex(of: "--lost").flatMap { $0 + 1 < CommandLine.arguments.count ? Int(CommandLine.arguments[$0 + 1]) : nil }
let payload = 1316
let targetBytes = quick ? 8_000_000 : 64_000_000

func now() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

/// CPU time of this thread: on a machine shared with other work, time spent descheduled is
/// not the code's (cache pollution by the other work still is).
func cpuNow() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

/// Best of `runs` timings of `body` in nanoseconds of thread CPU time.
func best(_ runs: Int = 3, _ body: () -> Void) -> Int64 {
    var result = Int64.max
    for _ in 0..<runs {
        let start = cpuNow()
        body()
        result = min(result, cpuNow() - start)
    }
    return result
}

/// The memcpy reference: the same source bytes copied window by window (best of `best`).
func memcpyTime(windows: Int, bytesPerWindow: Int) -> Int64 {
    let total = windows * bytesPerWindow
    let copyFrom = UnsafeMutablePointer<UInt8>.allocate(capacity: total)
    let copyTo = UnsafeMutablePointer<UInt8>.allocate(capacity: total)
    defer { copyFrom.deallocate(); copyTo.deallocate() }
    copyFrom.initialize(repeating: 1, count: total)
    copyTo.initialize(repeating: 0, count: total)
    return best { for w in 0..<windows { memcpy(copyTo + w * bytesPerWindow, copyFrom + w * bytesPerWindow, bytesPerWindow) } }
}

/// ISA-L alone over `windows` distinct blocks of `rows` symbols (not one cache-resident buffer):
/// `body` gets the first `inputs` rows and the next `outputs` rows of each window.
func isalTime(windows: Int, inputs: Int, outputs: Int, symbol: Int,
              _ body: (_ inputs: [UnsafeMutablePointer<UInt8>?], _ outputs: [UnsafeMutablePointer<UInt8>?]) -> Void) -> Int64 {
    let stride = (inputs + outputs) * symbol
    let block = UnsafeMutablePointer<UInt8>.allocate(capacity: windows * stride)
    defer { block.deallocate() }
    block.initialize(repeating: 7, count: windows * stride)
    return best {
        for w in 0..<windows {
            let base = block + w * stride
            body((0..<inputs).map { Optional(base + $0 * symbol) }, (0..<outputs).map { Optional(base + (inputs + $0) * symbol) })
        }
    }
}

func mbps(_ bytes: Int, _ ns: Int64) -> Double { Double(bytes) / (Double(ns) / 1e9) / 1e6 }
func fmt(_ x: Double, _ digits: Int = 0) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let v = Int((x * scale).rounded())
    guard digits > 0 else { return "\(v)" }
    let whole = v / Int(scale), fraction = String(v % Int(scale))
    return "\(whole)." + String(repeating: "0", count: digits - fraction.count) + fraction
}

nonisolated(unsafe) var rng: UInt64 = 0x1234_5678
func randomBytes(_ n: Int) -> [UInt8] {
    (0..<n).map { _ in
        rng = rng &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return UInt8(truncatingIfNeeded: rng >> 33)
    }
}

func rtp(_ seq: Int) -> [UInt8] {
    var p: [UInt8] = [0x80, 33, UInt8((seq >> 8) & 0xFF), UInt8(seq & 0xFF), 0, 0, 0, 0, 1, 2, 3, 4]
    p += randomBytes(payload)
    return p
}

print("# FEC benchmark (\(quick ? "quick" : "full")\(hotArrival ? ", hot arrival" : "")), ISA-L \(ErasureCodingLibrary.isalVersion), \(payload)-byte payloads")
print("")
print("## Reed-Solomon window decode (MB/s of source data)")
print("")
print("| k | m | lost | decoder | ISA-L ec_encode_data (precomputed) | memcpy | decoder / ISA-L | p50 latency µs | p99 latency µs |")
print("|---|---|---|---|---|---|---|---|---|")
var solveRows: [String] = []
for (k, m) in [(20, 5), (50, 10), (100, 20)] where onlyK == nil || onlyK == k {
    let windows = max(8, targetBytes / (k * payload))
    // Every window's packets (sequence numbers from 0, wrapping) and their repairs, made once.
    var packets: [[UInt8]] = []
    var repairPackets: [[[UInt8]]] = []
    var encoder = ReedSolomonWindowEncoder(configuration: .init(sourceCount: k, repairCount: m), math: ISALReedSolomonMath())
    for w in 0..<windows {
        var repairs: [[UInt8]] = []
        for i in 0..<k {
            let packet = rtp(w * k + i)
            packets.append(packet)
            repairs += encoder.add(packet)
        }
        repairPackets.append(repairs)
    }
    for e in Array(Set([1, m / 2, m])).sorted() where onlyLost == nil || onlyLost == e {
        let lost = Set((0..<e).map { 1 + $0 * (k / e) })
        let isLost = (0..<k).map { lost.contains($0) }   // a mask: no hashing inside the timed loop
        // Our decoder, fed every surviving source and the first e repairs of each window; the
        // latency is the time spent in the call that completes the window (k-th symbol in,
        // rebuilt packets out).
        var latencies: [Int64] = []
        var recovered = 0
        let decoderTime = best {
            var decoder = ReedSolomonWindowDecoder(math: ISALReedSolomonMath())
            latencies.removeAll(keepingCapacity: true)
            recovered = 0
            var t: Int64 = 0
            // One action array reused for every call (the decoder's `into:` form).
            var actions: [FECAction] = []
            actions.reserveCapacity(2 * k)
            for w in 0..<windows {
                for i in 0..<k where !isLost[i] {
                    t += 1000
                    if hotArrival {
                        let arriving = packets[w * k + i].withUnsafeBufferPointer { [UInt8]($0) }
                        decoder.receiveSource(arriving, nowNanoseconds: t, into: &actions)
                    } else {
                        decoder.receiveSource(packets[w * k + i], nowNanoseconds: t, into: &actions)
                    }
                    for case .deliver(let p) in actions where p.recovered { recovered += 1 }
                    actions.removeAll(keepingCapacity: true)
                }
                for r in 0..<e {
                    t += 1000
                    let start = now()
                    decoder.receiveRepair(repairPackets[w][r][...], nowNanoseconds: t, into: &actions)
                    if r == e - 1 { latencies.append(now() - start) }
                    for case .deliver(let p) in actions where p.recovered { recovered += 1 }
                    actions.removeAll(keepingCapacity: true)
                }
            }
            for case .deliver(let p) in decoder.finish(nowNanoseconds: t + 1) where p.recovered { recovered += 1 }
        }
        precondition(recovered == windows * e, "recovered \(recovered) of \(windows * e)")
        // ISA-L alone: the same rebuild with precomputed tables, streaming through as many
        // distinct windows (not one cache-resident buffer), and memcpy of the same bytes.
        let codec = try! ReedSolomonCodec(sourceCount: k, repairCount: m)
        let survivors = (0..<k).filter { !lost.contains($0) } + (0..<e).map { k + $0 }
        let table = try! codec.decoder(forReceived: survivors)
        let symbol = payload + 14
        let isalTime = isalTime(windows: windows, inputs: k, outputs: e, symbol: symbol) { inputs, outputs in
            try! table.reconstructUnsafe(length: symbol, survivors: inputs, into: outputs)
        }
        let copyTime = memcpyTime(windows: windows, bytesPerWindow: k * payload)
        let bytes = windows * k * payload
        latencies.sort()
        let p50 = latencies[latencies.count / 2], p99 = latencies[min(latencies.count - 1, latencies.count * 99 / 100)]
        print("| \(k) | \(m) | \(e) | \(fmt(mbps(bytes, decoderTime))) | \(fmt(mbps(bytes, isalTime))) | \(fmt(mbps(bytes, copyTime))) | \(fmt(Double(isalTime) / Double(decoderTime), 2)) | \(fmt(Double(p50) / 1000, 1)) | \(fmt(Double(p99) / 1000, 1)) |")

        // Solve time: a full k×k inversion (gf_invert_matrix + tables for all k rows) against
        // ours (inversion + tables for the lost rows only), and ours from the pattern cache.
        if decodeOnly { continue }
        let reps = quick ? 20 : 200
        var rows = [UInt8](repeating: 0, count: k * k)
        for (r, index) in survivors.prefix(k).enumerated() { for c in 0..<k { rows[r * k + c] = codec.coefficient(row: index, source: c) } }
        var inverse = [UInt8](repeating: 0, count: k * k)
        var fullTables = [UInt8](repeating: 0, count: 32 * k * k)
        let full = best {
            for _ in 0..<reps {
                var copy = rows
                _ = gf_invert_matrix(&copy, &inverse, Int32(k))
                ec_init_tables(Int32(k), Int32(k), &inverse, &fullTables)
            }
        } / Int64(reps)
        let first = best { for _ in 0..<reps { _ = try! codec.decoder(forReceived: survivors) } } / Int64(reps)
        let math = ISALReedSolomonMath()
        _ = try! math.decoder(sourceCount: k, repairCount: m, received: survivors)
        let cached = best { for _ in 0..<reps { _ = try! math.decoder(sourceCount: k, repairCount: m, received: survivors) } } / Int64(reps)
        solveRows.append("| \(k) | \(m) | \(e) | \(fmt(Double(full) / 1000, 1)) | \(fmt(Double(first) / 1000, 1)) | \(fmt(Double(cached) / 1000, 2)) | \(fmt(Double(cached) / Double(full), 3)) |")
    }
}
if decodeOnly { exit(0) }
print("")
print("## Per-window solve time (µs)")
print("")
print("| k | m | lost | full k×k inversion + k-row tables | ours, first time (lost rows only) | ours, cached pattern | cached / full |")
print("|---|---|---|---|---|---|---|")
solveRows.forEach { print($0) }

print("")
print("## Reed-Solomon window encode (MB/s of source data)")
print("")
print("| k | m | encoder (RTP in, repair RTP out) | ISA-L ec_encode_data | memcpy | encoder / ISA-L |")
print("|---|---|---|---|---|---|")
for (k, m) in [(20, 5), (50, 10), (100, 20)] {
    let windows = max(8, targetBytes / (k * payload))
    let packets = (0..<k).map { rtp($0) }
    let encodeTime = best {
        var encoder = ReedSolomonWindowEncoder(configuration: .init(sourceCount: k, repairCount: m), math: ISALReedSolomonMath())
        var count = 0
        for _ in 0..<windows { for p in packets { count += encoder.add(p).count } }
        precondition(count == windows * m)
    }
    let codec = try! ReedSolomonCodec(sourceCount: k, repairCount: m)
    let symbol = payload + 14
    let isalTime = isalTime(windows: windows, inputs: k, outputs: m, symbol: symbol) { sources, repairs in
        try! codec.encodeUnsafe(length: symbol, sources: sources, repairs: repairs)
    }
    let copyTime = memcpyTime(windows: windows, bytesPerWindow: k * payload)
    let bytes = windows * k * payload
    print("| \(k) | \(m) | \(fmt(mbps(bytes, encodeTime))) | \(fmt(mbps(bytes, isalTime))) | \(fmt(mbps(bytes, copyTime))) | \(fmt(Double(isalTime) / Double(encodeTime), 2)) |")
}

print("")
print("## SMPTE 2022-1 decode (MB/s of media payload)")
print("")
print("| L×D | lost per matrix | decoder | memcpy |")
print("|---|---|---|---|")
for (l, d) in [(5, 5), (10, 10)] {
    let span = l * d
    let matrices = max(8, targetBytes / (span * payload))
    for lossy in [false, true] {
        var encoder = SMPTE2022Encoder(configuration: .init(columns: l, rows: d))
        var events: [(Bool, [UInt8])] = []
        for i in 0..<(matrices * span) {
            let packet = rtpTS(i)
            let out = encoder.add(packet)
            // Lose one packet per row in a diagonal: every row and column has one loss.
            if !(lossy && i >= span && i < (matrices - 1) * span && (i % span) % l == (i % span) / l) { events.append((false, packet)) }
            for f in out.row + out.column { events.append((true, f)) }
        }
        var delivered = 0
        let time = best {
            var decoder = SMPTE2022Decoder(configuration: .init(columns: l, rows: d))
            delivered = 0
            var t: Int64 = 0
            for (isFEC, bytes) in events {
                t += 1000
                let actions = isFEC ? decoder.receiveFEC(bytes[...], nowNanoseconds: t) : decoder.receiveMedia(bytes[...], nowNanoseconds: t)
                for action in actions { if case .deliver = action { delivered += 1 } }
            }
            for action in decoder.finish(nowNanoseconds: t + 1) { if case .deliver = action { delivered += 1 } }
        }
        if delivered != matrices * span { print("!! 2022-1 bench delivered \(delivered) of \(matrices * span) lossy \(lossy)") }
        let bytes = matrices * span * payload
        let from = [UInt8](repeating: 1, count: bytes), into = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes)
        into.initialize(repeating: 0, count: bytes)
        let copy = best { from.withUnsafeBufferPointer { _ = memcpy(into, $0.baseAddress!, bytes) } }
        into.deallocate()
        print("| \(l)×\(d) | \(lossy ? "\(d) (diagonal)" : "0") | \(fmt(mbps(bytes, time))) | \(fmt(mbps(bytes, copy))) |")
    }
}

print("")
print("## SMPTE 2022-1 encode (MB/s of media payload)")
print("")
print("| L×D | encoder (row + column XOR) | memcpy |")
print("|---|---|---|")
for (l, d) in [(5, 5), (10, 10)] {
    let span = l * d
    let matrices = max(8, targetBytes / (span * payload))
    let packets = (0..<(matrices * span)).map { rtpTS($0) }
    var emitted = 0
    let time = best {
        var encoder = SMPTE2022Encoder(configuration: .init(columns: l, rows: d))
        emitted = 0
        for packet in packets {
            let out = encoder.add(packet)
            emitted += out.row.count + out.column.count
        }
    }
    if emitted < matrices * d { print("!! 2022-1 encode emitted \(emitted)") }
    let bytes = matrices * span * payload
    let from = [UInt8](repeating: 1, count: bytes), into = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes)
    into.initialize(repeating: 0, count: bytes)
    let copy = best { from.withUnsafeBufferPointer { _ = memcpy(into, $0.baseAddress!, bytes) } }
    into.deallocate()
    print("| \(l)×\(d) | \(fmt(mbps(bytes, time))) | \(fmt(mbps(bytes, copy))) |")
}

/// An RTP packet of 7 TS packets (sync bytes intact, so rebuilt packets pass validation).
func rtpTS(_ seq: Int) -> [UInt8] {
    var p: [UInt8] = [0x80, 33, UInt8((seq >> 8) & 0xFF), UInt8(seq & 0xFF), 0, 0, 0, 0, 1, 2, 3, 4]
    for _ in 0..<7 {
        p.append(0x47)
        p += randomBytes(187)
    }
    return p
}

printSMPTE2022Latency(matrices: quick ? 60 : 300)
