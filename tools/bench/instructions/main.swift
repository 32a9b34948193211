// perf-guard: the hot paths as fixed, deterministic in-memory workloads, for instruction counts
// under callgrind (tools/bench/instructions/check.sh; docs/performance.md, "Instruction-count
// guard"). Inputs are built in memory from a seeded generator (the segmenter case reads
// tools/samples/clean.ts once, before anything is measured); no sockets, clocks or randomness.
// Each case warms up on the same kind of input first, then runs its measured part inside
// `callgrindMeasuredSection`, the only function callgrind collects in (`--collect-atstart=no
// --toggle-collect='*callgrindMeasuredSection*'`).
//
// Usage: perf-guard list                     cases: name, unit, units measured
//        perf-guard run CASE [--sample FILE]  one case (what check.sh runs under callgrind)
//        perf-guard [--sample FILE]           every case once, natively (a smoke test)
import ErasureCoding
import GrandstandCore
#if canImport(Glibc)
import Glibc
#endif

/// The measured part of a case. Not inlined, so callgrind's `--toggle-collect` sees one call of it
/// (specialized clones keep the name in their symbol, which the wildcard matches).
@inline(never)
func callgrindMeasuredSection(_ body: () -> Int) -> Int {
    let start = monotonicNanoseconds()
    defer { measuredNanoseconds = monotonicNanoseconds() - start }
    return body()
}

/// Wall time of the last measured section (native runs print it per unit; under callgrind it
/// means nothing, and the two clock reads add a constant few hundred instructions).
nonisolated(unsafe) var measuredNanoseconds: Int64 = 0

func monotonicNanoseconds() -> Int64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec)
}

/// What a case reports: how many units the measured section handled and a checksum of what came
/// out (printed, so the work cannot be optimized away; it also shows the output did not change).
struct Outcome {
    var units: Int
    var checksum: Int
}

struct Case {
    let name: String
    let unit: String
    let run: () -> Outcome
}

// MARK: - Inputs

/// A seeded linear congruential generator (Knuth's MMIX constants): the same bytes every run.
struct SeededGenerator {
    var state: UInt64
    mutating func next() -> UInt8 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return UInt8(truncatingIfNeeded: state >> 33)
    }
}

/// 64 KiB of seeded bytes; payloads are windows into it (cheap to build under callgrind).
let pool: [UInt8] = {
    var generator = SeededGenerator(state: 0x6772_616E_6473_7464)
    return (0..<65_536).map { _ in generator.next() }
}()

/// 184 payload bytes of TS packet number `n` (a window of the pool).
func fill(_ n: Int, into bytes: inout [UInt8]) {
    let start = (n &* 4_099) & 0x7FFF
    bytes.append(contentsOf: pool[start..<(start + 184)])
}

/// One TS packet: sync byte, PID, payload only, continuity counter `counter`.
func tsPacket(pid: UInt16, counter: Int, n: Int, into bytes: inout [UInt8]) {
    bytes += [0x47, UInt8(pid >> 8 & 0x1F), UInt8(pid & 0xFF), 0x10 | UInt8(counter & 0x0F)]
    fill(n, into: &bytes)
}

/// An RTP header (RFC 3550, version 2, no CSRC), payload type 33 (MP2T) by default.
func rtpHeader(sequence: Int, timestamp: UInt32, ssrc: UInt32, payloadType: UInt8 = 33) -> [UInt8] {
    [0x80, payloadType, UInt8(sequence >> 8 & 0xFF), UInt8(sequence & 0xFF),
     UInt8(timestamp >> 24), UInt8(timestamp >> 16 & 0xFF), UInt8(timestamp >> 8 & 0xFF), UInt8(timestamp & 0xFF),
     UInt8(ssrc >> 24), UInt8(ssrc >> 16 & 0xFF), UInt8(ssrc >> 8 & 0xFF), UInt8(ssrc & 0xFF)]
}

/// RTP packet `sequence` of 7 TS packets (sync bytes intact, so rebuilt packets validate).
func rtpTS(sequence: Int, counter: inout Int) -> [UInt8] {
    var bytes = rtpHeader(sequence: sequence & 0xFFFF, timestamp: UInt32(truncatingIfNeeded: sequence &* 14), ssrc: 0x0B0B_0001)
    bytes.reserveCapacity(12 + 7 * 188)
    for _ in 0..<7 {
        tsPacket(pid: 0x100, counter: counter, n: counter, into: &bytes)
        counter += 1
    }
    return bytes
}

/// An Ethernet II + IPv4 (valid header checksum) + UDP (checksum 0) frame around `payload`.
func udpFrame(source: [UInt8], group: [UInt8], sourcePort: Int, port: Int, payload: [UInt8]) -> [UInt8] {
    // Ethernet: the group's multicast MAC (01:00:5e + low 23 bits), a made-up source, IPv4.
    var frame: [UInt8] = [0x01, 0x00, 0x5E, group[1] & 0x7F, group[2], group[3], 0x02, 0, 0, 0, 0, 1, 0x08, 0x00]
    let total = 20 + 8 + payload.count
    var ip: [UInt8] = [0x45, 0, UInt8(total >> 8), UInt8(total & 0xFF), 0, 0, 0x40, 0, 16, 17, 0, 0]
    ip += source
    ip += group
    var sum = 0
    for i in stride(from: 0, to: 20, by: 2) { sum += Int(ip[i]) << 8 | Int(ip[i + 1]) }
    while sum > 0xFFFF { sum = (sum & 0xFFFF) + (sum >> 16) }
    ip[10] = UInt8(~sum >> 8 & 0xFF)
    ip[11] = UInt8(~sum & 0xFF)
    let length = 8 + payload.count
    frame += ip
    frame += [UInt8(sourcePort >> 8), UInt8(sourcePort & 0xFF), UInt8(port >> 8), UInt8(port & 0xFF),
              UInt8(length >> 8), UInt8(length & 0xFF), 0, 0]
    frame += payload
    return frame
}

// MARK: - (a) Ingest per packet: IngestPipeline, RTP/MPEG-TS as Ethernet frames

/// Three static video channels (pass-through recovery, as configured channels without FEC get in
/// the product), 7 × 188-byte TS per RTP packet, round-robin, 50 µs apart; ticks every 50 ms of
/// frame time as replay and live ingest do. `dualPath`: each channel also has an SMPTE ST 2022-7
/// second path that carries every packet again 10 µs later (so per packet: the merge, the
/// duplicate's frame decoding and drop, and the reordering stage instead of pass-through).
func ingestRTP(dualPath: Bool = false) -> Outcome {
    let warmUp = 3_000, measured = 15_000
    let channels = 3
    func second(_ n: Int) -> String { dualPath ? #","secondary":{"group":"239.255.41.\#(n)","port":5000}"# : "" }
    let json = """
        {"license":{"venueName":"Bench Arena","contentOwner":"Grandstand","appDeveloper":"Grandstand"},
         "management":{"token":"perf-guard-bench"},
         "channels":[
          {"name":"Bench Cam 1","kind":"video","group":"239.255.40.1","port":5000\(second(1))},
          {"name":"Bench Cam 2","kind":"video","group":"239.255.40.2","port":5000\(second(2))},
          {"name":"Bench Cam 3","kind":"video","group":"239.255.40.3","port":5000\(second(3))}]}
        """
    let config: GatewayConfig
    do { config = try GatewayConfig.decode(Array(json.utf8)) } catch { fatalError("perf-guard: bench config: \(error)") }
    var pipeline = IngestPipeline(configuration: IngestConfiguration(
        config: config, recovery: FECRecovery.factory(configuration: config.fec, math: { ISALReedSolomonMath() })))
    // Every frame made up front: per channel its own sequence numbers, RTP timestamps and
    // continuity counters (video PID 0x100 in six TS packets, audio 0x101 in the seventh).
    var frames: [[UInt8]] = []
    frames.reserveCapacity(warmUp + measured)
    var counters = [[Int]](repeating: [0, 0], count: channels)
    for i in 0..<(warmUp + measured) {
        let channel = i % channels, n = i / channels
        var payload = rtpHeader(sequence: n & 0xFFFF, timestamp: UInt32(truncatingIfNeeded: n &* 14), ssrc: UInt32(0x0B0B_0000 + channel))
        payload.reserveCapacity(12 + 7 * 188)
        for j in 0..<7 {
            let audio = j == 6 ? 1 : 0
            tsPacket(pid: audio == 1 ? 0x101 : 0x100, counter: counters[channel][audio], n: i * 7 + j, into: &payload)
            counters[channel][audio] += 1
        }
        frames.append(udpFrame(source: [10, 1, 2, 3], group: [239, 255, 40, UInt8(channel + 1)], sourcePort: 40_000, port: 5000,
                               payload: payload))
        if dualPath {
            frames.append(udpFrame(source: [10, 1, 2, 4], group: [239, 255, 41, UInt8(channel + 1)], sourcePort: 40_000, port: 5000,
                                   payload: payload))
        }
    }
    let perPacket = dualPath ? 2 : 1
    var actions: [IngestAction] = []
    var nextTick: Int64 = 0
    let base: Int64 = 1_750_000_000 * 1_000_000_000
    var checksum = ingest(&pipeline, frames, 0..<(warmUp * perPacket), base: base, nextTick: &nextTick, actions: &actions, perPacket: perPacket)
    checksum &+= callgrindMeasuredSection {
        ingest(&pipeline, frames, (warmUp * perPacket)..<((warmUp + measured) * perPacket), base: base, nextTick: &nextTick,
               actions: &actions, perPacket: perPacket)
    }
    checksum &+= consume(pipeline.tick(nowNanoseconds: base + Int64(warmUp + measured + 2_000) * 50_000))
    let tsPackets = pipeline.stats.total("ts_packets") ?? -1
    precondition(tsPackets == 7 * (warmUp + measured), "ingest-rtp: \(tsPackets) TS packets out of \(7 * (warmUp + measured))")
    if dualPath {
        let duplicates = pipeline.stats.total("path_secondary_duplicates") ?? -1
        precondition(duplicates == warmUp + measured, "ingest-rtp-2022-7: \(duplicates) duplicates")
    }
    return Outcome(units: measured, checksum: checksum)
}

/// Feeds `frames[range]` as replay does (tick first whenever frame time crosses a 50 ms
/// boundary), looking at every action: TS bytes are summed, as a consumer would touch them.
func ingest(_ pipeline: inout IngestPipeline, _ frames: [[UInt8]], _ range: Range<Int>, base: Int64, nextTick: inout Int64,
            actions: inout [IngestAction], perPacket: Int = 1) -> Int {
    var checksum = 0
    for i in range {
        // A second path's copy follows its packet 10 µs later (no division on the one-path case).
        let time = perPacket == 1 ? base + Int64(i) * 50_000 : base + Int64(i / perPacket) * 50_000 + Int64(i % perPacket) * 10_000
        if time >= nextTick {
            checksum &+= consume(pipeline.tick(nowNanoseconds: time))
            nextTick = (time / 50_000_000 + 1) * 50_000_000
        }
        pipeline.ingest(frame: frames[i][...], link: .ethernet, timestampNanoseconds: time, into: &actions)
        checksum &+= consume(actions)
        actions.removeAll(keepingCapacity: true)
    }
    return checksum
}

func consume(_ actions: [IngestAction]) -> Int {
    var checksum = 0
    for action in actions {
        switch action {
        case .transportStream(_, let packets, _): checksum &+= packets.count &+ Int(packets[packets.startIndex + 187])
        case .gap(_, let lost, _): checksum &+= lost
        case .dataMessage(_, let payload, _), .fileDatagram(_, let payload, _): checksum &+= payload.count
        case .channelsChanged(let changes): checksum &+= changes.count
        case .path: checksum &+= 1
        }
    }
    return checksum
}

// MARK: - (b) FEC per window

/// Reed-Solomon protection windows, k = 20, m = 5 (ISA-L math, as in the product): every window
/// loses sources 3 and 14 and all five repairs arrive after its sources; the decoder rebuilds at
/// the second repair and counts the other three against the closed window.
func fecReedSolomon() -> Outcome {
    let k = 20, m = 5, warmUp = 20, measured = 200
    let lost: Set<Int> = [3, 14]
    var encoder = ReedSolomonWindowEncoder(configuration: .init(sourceCount: k, repairCount: m), math: ISALReedSolomonMath())
    var sources: [[UInt8]] = [], repairs: [[[UInt8]]] = []
    var counter = 0
    for w in 0..<(warmUp + measured) {
        var windowRepairs: [[UInt8]] = []
        for i in 0..<k {
            let packet = rtpTS(sequence: w * k + i, counter: &counter)
            windowRepairs += encoder.add(packet)
            sources.append(packet)
        }
        precondition(windowRepairs.count == m, "fec-rs: \(windowRepairs.count) repairs for window \(w)")
        repairs.append(windowRepairs)
    }
    let isLost = (0..<k).map { lost.contains($0) }
    var decoder = ReedSolomonWindowDecoder(math: ISALReedSolomonMath())
    var actions: [FECAction] = []
    actions.reserveCapacity(2 * k)
    var time: Int64 = 0
    var checksum = decode(&decoder, sources, repairs, 0..<warmUp, k: k, isLost: isLost, time: &time, actions: &actions)
    checksum &+= callgrindMeasuredSection {
        decode(&decoder, sources, repairs, warmUp..<(warmUp + measured), k: k, isLost: isLost, time: &time, actions: &actions)
    }
    precondition(decoder.stats.windowRecoverySuccesses == warmUp + measured,
                 "fec-rs: \(decoder.stats.windowRecoverySuccesses) windows recovered")
    return Outcome(units: measured, checksum: checksum)
}

func decode(_ decoder: inout ReedSolomonWindowDecoder, _ sources: [[UInt8]], _ repairs: [[[UInt8]]], _ windows: Range<Int>, k: Int,
            isLost: [Bool], time: inout Int64, actions: inout [FECAction]) -> Int {
    var checksum = 0
    for w in windows {
        for i in 0..<k where !isLost[i] {
            time += 1_000
            decoder.receiveSource(sources[w * k + i], nowNanoseconds: time, into: &actions)
            checksum &+= consume(actions)
            actions.removeAll(keepingCapacity: true)
        }
        for repair in repairs[w] {
            time += 1_000
            decoder.receiveRepair(repair[...], nowNanoseconds: time, into: &actions)
            checksum &+= consume(actions)
            actions.removeAll(keepingCapacity: true)
        }
    }
    return checksum
}

func consume(_ actions: [FECAction]) -> Int {
    var checksum = 0
    for action in actions {
        switch action {
        case .deliver(let packet): checksum &+= Int(packet.sequenceNumber) &+ (packet.recovered ? 1 << 20 : 0) &+ packet.bytes.count
        case .lost(_, let count, _): checksum &+= count << 24
        case .windowClosed: checksum &+= 1 << 32
        }
    }
    return checksum
}

/// SMPTE 2022-1, L = 10 columns, D = 10 rows, row and column FEC: every matrix after the first
/// loses its diagonal (one packet per row and per column, 10 of 100); FEC packets arrive right after the
/// media packet that completes their group, as a sender emits them.
func fecSMPTE2022() -> Outcome {
    let l = 10, d = 10, warmUp = 3, measured = 30
    let span = l * d
    var encoder = SMPTE2022Encoder(configuration: .init(columns: l, rows: d))
    var events: [(isFEC: Bool, bytes: [UInt8])] = []
    var counter = 0
    // Where the measured matrices start: after the FEC packets the warm-up's last media packet completed.
    // A lossless matrix follows the measured ones (fed unmeasured), so the last of those completes.
    var split = 0, end = 0
    for i in 0..<((warmUp + measured + 1) * span) {
        if i == warmUp * span { split = events.count }
        if i == (warmUp + measured) * span { end = events.count }
        let packet = rtpTS(sequence: i, counter: &counter)
        let out = encoder.add(packet)
        let position = i % span
        // The first matrix loses nothing: the decoder places its first packets by the FEC that follows.
        let lossless = i < span || i >= (warmUp + measured) * span
        if lossless || position % l != position / l { events.append((false, packet)) }
        for f in out.row + out.column { events.append((true, f)) }
    }
    var decoder = SMPTE2022Decoder(configuration: .init(columns: l, rows: d))
    var time: Int64 = 0
    var checksum = decode(&decoder, events, 0..<split, time: &time)
    checksum &+= callgrindMeasuredSection { decode(&decoder, events, split..<end, time: &time) }
    checksum &+= decode(&decoder, events, end..<events.count, time: &time)
    checksum &+= consume(decoder.finish(nowNanoseconds: time + 1))
    let recovered = decoder.stats.recoveredPackets
    precondition(recovered == (warmUp + measured - 1) * d && decoder.stats.windowRecoveryFailures == 0,
                 "fec-2022: \(recovered) packets recovered")
    return Outcome(units: measured, checksum: checksum)
}

func decode(_ decoder: inout SMPTE2022Decoder, _ events: [(isFEC: Bool, bytes: [UInt8])], _ range: Range<Int>, time: inout Int64) -> Int {
    var checksum = 0
    for index in range {
        time += 1_000
        let event = events[index]
        let actions = event.isFEC ? decoder.receiveFEC(event.bytes[...], nowNanoseconds: time)
            : decoder.receiveMedia(event.bytes[...], nowNanoseconds: time)
        checksum &+= consume(actions)
    }
    return checksum
}

// MARK: - (c) Segmenter per packet: TS demux + segmenter + HLS window (HLSPackager)

/// tools/samples/clean.ts (H.264 + AAC, 0.9 Mbit/s) three times back to back, each copy's clocks
/// shifted so time runs on and continuity counters continued (as tools/bench/hls does), fed to
/// `HLSPackager` in 7 × 188-byte datagrams with arrival times spread evenly over the media time.
/// The unit is one datagram (one RTP packet's worth: 7 TS packets). `cmaf`: the packager also
/// writes CMAF (samples collected, chunks and the second window): case `cmaf-writer`, whose
/// difference to `segmenter` is what CMAF costs.
func segmenter(samplePath: String, cmaf: Bool = false) -> Outcome {
    let source = readFile(samplePath)
    precondition(source.count >= 188 * 1_000 && source.count % 188 == 0, "segmenter: \(samplePath) is not a TS sample")
    let copies = 3
    let (stream, copyTicks) = Sample.repeated(source, copies: copies)
    let datagram = 7 * 188
    let chunks = (stream.count + datagram - 1) / datagram
    let nanosecondsPerChunk = MediaClock.nanoseconds(ticks: copyTicks) * Int64(copies) / Int64(chunks)
    let base: Int64 = 1_750_000_000 * 1_000_000_000
    // Warm-up: a packager of its own over the first 2 000 datagrams (code paths, metadata).
    var warm = HLSPackager(cmaf: cmaf)
    var checksum = package(&warm, stream, 0..<min(chunks, 2_000), base: base, step: nanosecondsPerChunk)
    var packager = HLSPackager(cmaf: cmaf)
    checksum &+= callgrindMeasuredSection { package(&packager, stream, 0..<chunks, base: base, step: nanosecondsPerChunk) }
    let statistics = packager.statistics
    let value = { (name: String) in statistics.first { $0.0 == name }?.1 ?? -1 }
    precondition(value("hls_segments") >= 20 && value("num_ts_discontinuities") == 0 && value("hls_discontinuities") == 0,
                 "segmenter: unexpected statistics \(statistics)")
    precondition(!cmaf || value("cmaf_chunks") >= 100 && value("cmaf_segments_unpackaged") == 0, "cmaf-writer: \(statistics)")
    return Outcome(units: chunks, checksum: checksum)
}

/// A live break's chunks on CMAF (docs/inserts.md): the sample transmuxed once (not measured),
/// then cut into 0.2 s chunks re-timed onto a live timeline, three times over: what answering one
/// break part costs, next to `cmaf-writer` (what packaging the live part cost).
func breakChunks(samplePath: String) -> Outcome {
    guard let media = try? BreakMedia.transmux([readFile(samplePath)]) else { fatalError("cmaf-break-chunk: the sample does not transmux") }
    let step: Int64 = 18_000
    func cut(_ rounds: Int) -> (Int, Int) {
        var checksum = 0, chunks = 0
        for round in 0..<rounds {
            var start: Int64 = 0
            while start < media.durationTicks {
                let bytes = media.chunk(sequence: UInt32(chunks + 1), span: start..<(start + step), anchorTicks: 8_100_000_000 + Int64(round) * media.durationTicks)
                checksum &+= bytes?.count ?? 0
                chunks += 1
                start += step
            }
        }
        return (chunks, checksum)
    }
    var checksum = cut(1).1
    var chunks = 0
    checksum &+= callgrindMeasuredSection { let (n, sum) = cut(3); chunks = n; return sum }
    precondition(chunks >= 250, "cmaf-break-chunk: \(chunks) chunks")
    return Outcome(units: chunks, checksum: checksum)
}

func package(_ packager: inout HLSPackager, _ stream: [UInt8], _ chunks: Range<Int>, base: Int64, step: Int64) -> Int {
    var checksum = 0
    for chunk in chunks {
        let start = chunk * 7 * 188
        let update = packager.ingest(stream[start..<min(stream.count, start + 7 * 188)], timestampNanoseconds: base + Int64(chunk) * step)
        checksum &+= update.partsPublished.count &+ update.segmentsCompleted.count << 16
    }
    return checksum
}

func readFile(_ path: String) -> [UInt8] {
    guard let file = fopen(path, "rb") else { fatalError("perf-guard: cannot open \(path)") }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = fread(&buffer, 1, buffer.count, file)
        if n <= 0 { break }
        bytes += buffer[0..<n]
    }
    return bytes
}

/// A TS file repeated with its PTS/DTS/PCR shifted by whole copies and continuity counters run on.
enum Sample {
    static func repeated(_ source: [UInt8], copies: Int) -> (stream: [UInt8], copyTicks: Int64) {
        let packets = stride(from: 0, to: source.count, by: 188).map { Array(source[$0..<($0 + 188)]) }
        var dts: [Int64] = []
        for p in packets where pid(p) == 0x100 && p[1] & 0x40 != 0 {
            let offset = p[3] & 0x20 != 0 ? 5 + Int(p[4]) : 4
            guard offset + 19 <= 188, p[offset + 2] == 1 else { continue }
            let at = p[offset + 7] >> 6 == 3 ? offset + 14 : offset + 9
            dts.append(timestamp(p, at))
        }
        let frame = dts.count > 1 ? dts[1] - dts[0] : 3_600
        var pcrs: [Int64] = []
        for p in packets where p[3] & 0x20 != 0 && p[4] >= 7 && p[5] & 0x10 != 0 {
            pcrs.append(Int64(p[6]) << 25 | Int64(p[7]) << 17 | Int64(p[8]) << 9 | Int64(p[9]) << 1 | Int64(p[10] >> 7))
        }
        let pcrSpan = pcrs.count > 1 ? pcrs[pcrs.count - 1] - pcrs[0] + (pcrs[1] - pcrs[0]) : 0
        let videoSpan = (dts.max() ?? 0) - (dts.min() ?? 0) + frame
        let copyTicks = (max(videoSpan, pcrSpan) + frame - 1) / frame * frame
        var stream: [UInt8] = []
        stream.reserveCapacity(source.count * copies)
        var counters = [Int16](repeating: -1, count: 8_192)
        for copy in 0..<copies {
            for p in packets {
                var q = shifted(p, by: Int64(copy) * copyTicks)
                let id = Int(pid(q))
                if q[3] & 0x10 != 0 {
                    let next = counters[id] >= 0 ? UInt8((counters[id] + 1) & 0x0F) : q[3] & 0x0F
                    q[3] = (q[3] & 0xF0) | next
                    counters[id] = Int16(next)
                } else if counters[id] >= 0 {
                    q[3] = (q[3] & 0xF0) | UInt8(counters[id])
                }
                stream += q
            }
        }
        return (stream, copyTicks)
    }

    static func pid(_ p: [UInt8]) -> UInt16 { UInt16(p[1] & 0x1F) << 8 | UInt16(p[2]) }

    static func timestamp(_ b: [UInt8], _ at: Int) -> Int64 {
        Int64(b[at] >> 1 & 0x07) << 30 | Int64(b[at + 1]) << 22 | Int64(b[at + 2] >> 1) << 15 | Int64(b[at + 3]) << 7 | Int64(b[at + 4] >> 1)
    }

    /// `p` with its PCR and PES PTS/DTS moved by `ticks` (90 kHz, modulo 2^33).
    static func shifted(_ p: [UInt8], by ticks: Int64) -> [UInt8] {
        guard ticks != 0 else { return p }
        var b = p
        var offset = 4
        if b[3] & 0x20 != 0 {
            let length = Int(b[4])
            if length >= 7, b[5] & 0x10 != 0 {
                let value = Int64(b[6]) << 25 | Int64(b[7]) << 17 | Int64(b[8]) << 9 | Int64(b[9]) << 1 | Int64(b[10] >> 7)
                let moved = (value + ticks) & 0x1_FFFF_FFFF
                b[6] = UInt8(truncatingIfNeeded: moved >> 25); b[7] = UInt8(truncatingIfNeeded: moved >> 17)
                b[8] = UInt8(truncatingIfNeeded: moved >> 9); b[9] = UInt8(truncatingIfNeeded: moved >> 1)
                b[10] = (b[10] & 0x7F) | UInt8(truncatingIfNeeded: (moved & 1) << 7)
            }
            offset = 5 + length
        }
        guard b[1] & 0x40 != 0, offset + 19 <= 188, b[offset] == 0, b[offset + 1] == 0, b[offset + 2] == 1,
              b[offset + 3] >= 0xC0 else { return b }
        func move(_ at: Int) {
            let moved = (timestamp(b, at) + ticks) & 0x1_FFFF_FFFF
            b[at] = (b[at] & 0xF1) | UInt8(truncatingIfNeeded: (moved >> 29) & 0x0E)
            b[at + 1] = UInt8(truncatingIfNeeded: moved >> 22)
            b[at + 2] = UInt8(truncatingIfNeeded: (moved >> 14) & 0xFE) | 1
            b[at + 3] = UInt8(truncatingIfNeeded: moved >> 7)
            b[at + 4] = UInt8(truncatingIfNeeded: (moved << 1) & 0xFE) | 1
        }
        let flags = b[offset + 7] >> 6
        if flags & 0x2 != 0 { move(offset + 9) }
        if flags == 3 { move(offset + 14) }
        return b
    }
}

// MARK: - (d) HTTP per request: the request-head parser on a playlist GET

/// A browser's blocking playlist reload (the fan app's MSE player, Chromium headers), a fresh
/// `_HLS_msn`/`_HLS_part` per request, each parsed from its own buffer as the engine does.
func httpPlaylistGet() -> Outcome {
    let warmUp = 200, measured = 2_000
    let requests: [[UInt8]] = (0..<(warmUp + measured)).map { n in
        Array(("GET /channels/bench-cam-1/live.m3u8?_HLS_msn=\(1_000 + n / 5)&_HLS_part=\(n % 5) HTTP/1.1\r\n"
            + "Host: 10.20.0.1:8080\r\n"
            + "Connection: keep-alive\r\n"
            + "User-Agent: Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36\r\n"
            + "Accept: */*\r\n"
            + "Origin: http://10.20.0.1:8080\r\n"
            + "Referer: http://10.20.0.1:8080/\r\n"
            + "Accept-Encoding: gzip, deflate\r\n"
            + "Accept-Language: en-US,en;q=0.9\r\n"
            + "If-None-Match: \"w\(n)\"\r\n"
            + "\r\n").utf8)
    }
    var parser = HTTP1RequestParser()
    var checksum = parse(&parser, requests, 0..<warmUp)
    checksum &+= callgrindMeasuredSection { parse(&parser, requests, warmUp..<(warmUp + measured)) }
    return Outcome(units: measured, checksum: checksum)
}

func parse(_ parser: inout HTTP1RequestParser, _ requests: [[UInt8]], _ range: Range<Int>) -> Int {
    var checksum = 0
    for index in range {
        switch parser.parse(requests[index]) {
        case .head(let head, let consumed):
            checksum &+= consumed &+ head.path.utf8.count &+ head.query.count &+ head.headers.count &+ (head.keepAlive ? 1 : 0)
        case .incomplete, .failure:
            fatalError("http-playlist-get: request \(index) did not parse")
        }
    }
    return checksum
}

// MARK: - Main

var samplePath = "tools/samples/clean.ts"
var arguments = Array(CommandLine.arguments.dropFirst())
if let flag = arguments.firstIndex(of: "--sample"), flag + 1 < arguments.count {
    samplePath = arguments[flag + 1]
    arguments.removeSubrange(flag...(flag + 1))
}

let cases = [
    Case(name: "ingest-rtp", unit: "packet", run: { ingestRTP() }),
    Case(name: "ingest-rtp-2022-7", unit: "packet", run: { ingestRTP(dualPath: true) }),
    Case(name: "fec-rs-k20-m5", unit: "window", run: fecReedSolomon),
    Case(name: "fec-2022-l10-d10", unit: "window", run: fecSMPTE2022),
    Case(name: "segmenter", unit: "packet", run: { segmenter(samplePath: samplePath) }),
    Case(name: "cmaf-writer", unit: "packet", run: { segmenter(samplePath: samplePath, cmaf: true) }),
    Case(name: "http-playlist-get", unit: "request", run: httpPlaylistGet),
    Case(name: "cmaf-break-chunk", unit: "chunk", run: { breakChunks(samplePath: samplePath) }),
]

func report(_ c: Case, _ outcome: Outcome) {
    let perUnit = outcome.units > 0 ? Double(measuredNanoseconds) / Double(outcome.units) : 0
    print("\(c.name) unit=\(c.unit) units=\(outcome.units) checksum=\(outcome.checksum) ns_per_unit=\(Int(perUnit.rounded()))")
}

func usage(_ text: String) -> Never {
    let line = Array("usage: \(text)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(2)
}

switch arguments.first {
case "list":
    for c in cases { print(c.name, c.unit) }
case "run":
    guard arguments.count == 2, let c = cases.first(where: { $0.name == arguments[1] }) else {
        usage("perf-guard run CASE (\(cases.map(\.name).joined(separator: ", ")))")
    }
    report(c, c.run())
case nil:
    for c in cases { report(c, c.run()) }
default:
    usage("perf-guard [list | run CASE] [--sample FILE]")
}
