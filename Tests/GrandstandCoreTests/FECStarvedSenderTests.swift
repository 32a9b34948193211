import Testing
import TestSupport
@testable import GrandstandCore

/// A starved sender through the Reed-Solomon window decoder (k = 20, m = 4), as in
/// FaultNetworkTests' `repairableLossWithDuplicatesReorderingAndJitterIsExactOrCounted`: every
/// 30th media packet dropped, `grandstand send --impair duplicate=0.02,reorder=0.02,jitter=2`
/// (SendImpairment's model), and stalls of 300–600 ms in which nothing is sent, then everything
/// due goes out at once (a burst the jitter shuffles). The decoder ticks every 100 ms (LiveIngest).
/// The product's promise: every source packet is delivered exactly once or counted lost exactly
/// once, and the counters say the same.
@Suite struct FECStarvedSenderTests {
    struct Arrival {
        var repair: Bool
        var bytes: [UInt8]
        var time: Int64
    }

    /// One seed's stream: the sources in order and what the receiver gets, in arrival order.
    struct Plan {
        var sources: [[UInt8]] = []
        var arrivals: [Arrival] = []
        var stalls: [(start: Int64, length: Int64)] = []
    }

    static let k = 20, m = 4

    static func plan(seed: Int, count: Int = 300) -> Plan {
        var random = SplitMix(seed: UInt64(seed) &* 0x5851_F42D_4C95_7F2D &+ 1)
        var plan = Plan()
        // Short TS payloads keep the pure-Swift Reed-Solomon quick; the last packet is shorter.
        plan.sources = FECPackets.stream(count: count, firstSequence: UInt16(truncatingIfNeeded: random.next()),
                                         tsPackets: { $0 == count - 1 ? 1 : 2 })
        var encoder = ReedSolomonWindowEncoder(configuration: .init(sourceCount: k, repairCount: m, firstWindowID: UInt32(seed)),
                                               math: ReferenceReedSolomon())
        // Paced 2–12 ms apart; a window's repairs go out with its last source (FECStreamerSource).
        let interval = Int64(2 + random.below(11)) * 1_000_000
        let start: Int64 = 1_000_000_000
        var sent: [(repair: Bool, bytes: [UInt8], due: Int64)] = []
        for (i, source) in plan.sources.enumerated() {
            let due = start + Int64(i) * interval
            sent.append((false, source, due))
            for repair in encoder.add(source) { sent.append((true, repair, due)) }
        }
        for repair in encoder.flush() { sent.append((true, repair, sent.last!.due)) }
        // One or two stalls anywhere in the stream, about a quarter of them at its start (a process
        // starved as it starts sends its first packets late, all at once).
        let span = Int64(count) * interval
        for _ in 0..<(1 + random.below(2)) {
            let at = start + Int64(random.below(Int(span / 1_000_000))) * 1_000_000 - (random.below(4) == 0 ? span : 0)
            plan.stalls.append((max(start, at), Int64(300 + random.below(301)) * 1_000_000))
        }
        for i in sent.indices {
            for stall in plan.stalls where sent[i].due >= stall.start && sent[i].due < stall.start + stall.length {
                sent[i].due = stall.start + stall.length
            }
        }
        // SendImpairment, flow by flow: drop, duplicate, hold one back behind the next (50 ms at
        // most), then a delay of 0…2 ms each.
        var held: [Bool: (bytes: [UInt8], since: Int64)] = [:]
        var media = 0
        var arrivals: [(Arrival, Int)] = []
        func schedule(_ repair: Bool, _ bytes: [UInt8], now: Int64) {
            arrivals.append((Arrival(repair: repair, bytes: bytes, time: now + Int64(random.below(2_000_001))), arrivals.count))
        }
        for (repair, bytes, now) in sent {
            for flow in [false, true] {
                if let earlier = held[flow], now - earlier.since > 50_000_000 {
                    held[flow] = nil
                    schedule(flow, earlier.bytes, now: now)
                }
            }
            if !repair {
                media += 1
                if media % 30 == 0 { continue }
            }
            let copies = random.below(50) == 0 ? 2 : 1
            for _ in 0..<copies {
                if let earlier = held.removeValue(forKey: repair) {
                    schedule(repair, bytes, now: now)
                    schedule(repair, earlier.bytes, now: now)
                } else if random.below(50) == 0 {
                    held[repair] = (bytes, now)
                } else {
                    schedule(repair, bytes, now: now)
                }
            }
        }
        for flow in [false, true] {
            if let earlier = held[flow] { schedule(flow, earlier.bytes, now: earlier.since + 50_000_000) }
        }
        plan.arrivals = arrivals.sorted { ($0.0.time, $0.1) < ($1.0.time, $1.1) }.map(\.0)
        return plan
    }

    /// 200 seeds, 12 under qemu-user (emulated: 1.7 s of CPU a seed; 2 and 6 among them); before the fix
    /// seed 6 (one 396 ms stall at the start) left 17 packets unaccounted, and every seed stalled at the start failed.
    @Test(arguments: TestEnvironment.isQEMUUser ? Array(0..<12) : Array(0..<200))
    func everySourceIsDeliveredOrCountedLostExactlyOnce(seed: Int) throws {
        let plan = Self.plan(seed: seed)
        var decoder = ReedSolomonWindowDecoder(math: ReferenceReedSolomon())
        var output = FECOutput()
        let tick: Int64 = 100_000_000
        var nextTick = plan.arrivals[0].time - plan.arrivals[0].time % tick + tick
        for arrival in plan.arrivals {
            while nextTick <= arrival.time {
                output.add(decoder.tick(nowNanoseconds: nextTick))
                nextTick += tick
            }
            output.add(arrival.repair ? decoder.receiveRepair(arrival.bytes[...], nowNanoseconds: arrival.time)
                : decoder.receiveSource(arrival.bytes[...], nowNanoseconds: arrival.time))
        }
        for _ in 0..<20 {
            output.add(decoder.tick(nowNanoseconds: nextTick))
            nextTick += tick
        }
        output.add(decoder.finish(nowNanoseconds: nextTick))

        let stalls = plan.stalls.map { "\(($0.start - 1_000_000_000) / 1_000_000) ms +\($0.length / 1_000_000)" }
        let context = "seed \(seed), first \(RTPFields(plan.sources[0][...])!.sequence), stalls \(stalls)"
        let bySequence = Dictionary(uniqueKeysWithValues: plan.sources.map { (RTPFields($0[...])!.sequence, $0) })
        var delivered: [UInt16: Int] = [:], lost: [UInt16: Int] = [:]
        for packet in output.delivered { delivered[packet.sequenceNumber, default: 0] += 1 }
        for sequence in output.lost { lost[sequence, default: 0] += 1 }
        let unaccounted = bySequence.keys.filter { delivered[$0, default: 0] + lost[$0, default: 0] != 1 }.sorted()
        #expect(unaccounted.isEmpty, "\(context): \(unaccounted.count) unaccounted, first \(unaccounted.prefix(3).map { "\($0): delivered \(delivered[$0] ?? 0), lost \(lost[$0] ?? 0)" })")
        let strangers = Set(delivered.keys).union(lost.keys).subtracting(bySequence.keys)
        #expect(strangers.isEmpty, "\(context): not in the stream \(strangers.sorted())")
        #expect(output.delivered.allSatisfy { bySequence[$0.sequenceNumber] == $0.bytes }, "\(context)")
        let stats = decoder.stats
        #expect(stats.sourcePackets + stats.recoveredPackets == output.delivered.count, "\(context)")
        #expect(stats.recoveredPackets == output.delivered.filter(\.recovered).count, "\(context)")
        #expect(stats.unrecoveredPackets == output.lost.count, "\(context)")
        // Every source datagram that arrived is delivered as it came or counted late (or twice).
        let received = plan.arrivals.filter { !$0.repair }.count
        #expect(stats.sourcePackets + stats.sourcePacketsLate == received, "\(context)")
    }

    /// The live test's hole at the pipeline (RS k = 4, m = 2): the stream's first packets arrive
    /// behind a later one (a reorder, or the shuffled burst of a sender starved as it started).
    /// They were counted `fec_source_packets_late`, neither delivered nor a gap, so
    /// `ts_packets + 7 × gap_packets` came out short; now every number from the lowest received
    /// on is delivered or lost.
    @Test(arguments: [[1, 0], [3, 1, 0, 2], [5, 2, 4, 0, 1, 3]])
    func packetsReorderedBehindTheStreamsFirstAreCountedLost(order: [Int]) throws {
        var pipeline = try IngestPipelineFECRemovalTests.pipeline()
        let (sources, repairs) = IngestPipelineFECRemovalTests.stream(windows: 3)
        var actions: [IngestAction] = []
        var time: Int64 = 0
        var arrived = Set<Int>()
        for index in order + Array(order.count..<sources.count) {
            time += 1_000_000
            actions += pipeline.ingest(Traffic.datagram(sources[index], at: time))
            arrived.insert(index)
            // Each window's repairs follow the last of its sources to arrive.
            let window = index / 4
            guard (4 * window..<4 * window + 4).allSatisfy(arrived.contains) else { continue }
            for repair in repairs[window] { actions += pipeline.ingest(Traffic.datagram(repair, port: 5002, at: time)) }
        }
        actions += pipeline.tick(nowNanoseconds: time + 10_000_000_000)
        let output = Traffic.output(actions, channel: "bowl")
        let stats = pipeline.stats
        func value(_ key: String) -> Int { stats.channel("bowl", key) ?? -1 }
        #expect(value("ts_packets") + 7 * value("gap_packets") == 7 * sources.count)
        #expect(value("gap_packets") == order[0] && output.gaps.reduce(0, +) == order[0])
        #expect(output.ts == IngestPipelineFECRemovalTests.tsBlocks(Array(order[0]..<sources.count)))
        #expect(value("fec_unrecovered_packets") == order[0])
        #expect(value("fec_source_packets_late") == order[0])
        #expect(value("window_recovery_failures") == 0)
    }

    /// The other users of the source buffer: an SMPTE 2022-1 stream and an ST 2022-7 reordering
    /// stage whose first packet arrives second count it lost too.
    @Test func theOtherDecodersCountAPacketBehindTheFirstLost() throws {
        let packets = FECPackets.stream(count: 4)
        var smpte = SMPTE2022Decoder(configuration: .init(columns: 2, rows: 2))
        var output = FECOutput()
        for (i, index) in [1, 0, 2, 3].enumerated() {
            output.add(smpte.receiveMedia(packets[index][...], nowNanoseconds: Int64(i) * 1_000_000))
        }
        output.add(smpte.finish(nowNanoseconds: 10_000_000_000))
        #expect(output.sequences == [101, 102, 103] && output.lost == [100])
        #expect(smpte.stats.unrecoveredPackets == 1 && smpte.stats.sourcePacketsLate == 1)

        var reordering = ReorderingRecovery(holdNanoseconds: 50_000_000)
        var outputs: [RecoveryOutput] = []
        for (i, index) in [1, 0, 2, 3].enumerated() {
            let packet = try RTPPacket.parse(packets[index][...]).get()
            outputs += reordering.media(packet, outcome: .first, arrivalNanoseconds: Int64(i) * 1_000_000)
        }
        outputs += reordering.finish(nowNanoseconds: 10_000_000_000)
        var delivered = 0
        for case .packet in outputs { delivered += 1 }
        #expect(delivered == 3)
        #expect(outputs.contains(.lost(count: 1, timestampNanoseconds: 1_000_000)))
        #expect(reordering.lateDiscarded == 1)
    }
}
