import GrandstandCore
import Testing

/// The scheduler, loss models and the data-channel source.
struct StreamerSchedulingTests {
    static let dataGroup = Endpoint(address: .v4(0xEFFF_1402), port: 5002)

    @Test func schedulerMergesSourcesByDueTime() {
        var scheduler = StreamerScheduler()
        scheduler.add(DataChannelSource(flow: "a", destination: Self.dataGroup, messages: .counter(channel: "a"),
                                        framing: .udp, startNanoseconds: 0, intervalNanoseconds: 30, limit: 4))
        scheduler.add(DataChannelSource(flow: "b", destination: Self.dataGroup, messages: .counter(channel: "b"),
                                        framing: .udp, startNanoseconds: 10, intervalNanoseconds: 20, limit: 5))
        #expect(scheduler.nextDueNanoseconds == 0)
        #expect(scheduler.popDue(nowNanoseconds: -1).isEmpty)
        let first = scheduler.popDue(nowNanoseconds: 50)
        #expect(first.map(\.flow) == ["a", "b", "a", "b", "b"])   // a first on the tie at 30
        #expect(first.map(\.dueNanoseconds) == [0, 10, 30, 30, 50])
        let rest = scheduler.popDue(nowNanoseconds: 1000)
        #expect(rest.map(\.flow) == ["a", "b", "a", "b"])
        #expect(rest.map(\.dueNanoseconds) == [60, 70, 90, 90])
        #expect(scheduler.isFinished)
        #expect(scheduler.nextDueNanoseconds == nil)
        #expect(scheduler.counters["a"]?.emitted == 4)
        #expect(scheduler.counters["b"]?.emitted == 5)
    }

    @Test func backgroundSourcesDoNotKeepARunAlive() {
        var scheduler = StreamerScheduler()
        let channel = ChannelDescription(name: "Bowl", media: .video, destination: Self.dataGroup, origin: .v4(0x7F00_0001))
        scheduler.add(SAPAnnouncer(destination: Endpoint(address: SAPAnnouncer.defaultGroupV4, port: 9875), origin: .v4(0x7F00_0001),
                                   channels: [channel], compress: false, startNanoseconds: 0, intervalNanoseconds: 100))
        scheduler.add(DataChannelSource(flow: "d", destination: Self.dataGroup, messages: .list([[1]]), framing: .udp,
                                        startNanoseconds: 0, intervalNanoseconds: 10, limit: 2))
        #expect(!scheduler.isFinished)
        _ = scheduler.popDue(nowNanoseconds: 500)
        #expect(scheduler.isFinished)
        #expect(scheduler.nextDueNanoseconds == 600)   // SAP keeps going
        #expect(scheduler.counters["sap"]?.emitted == 6)
    }

    @Test func lossIsPerFlowAndDeterministic() {
        func run(seed: UInt64) -> ([Int], FlowCounters?, FlowCounters?) {
            var scheduler = StreamerScheduler()
            for flow in ["a", "b"] {
                scheduler.add(DataChannelSource(flow: flow, destination: Self.dataGroup, messages: .counter(channel: flow),
                                                framing: .udp, startNanoseconds: 0, intervalNanoseconds: 1, limit: 1000))
            }
            scheduler.setLoss(LossModel.forFlow(.rate(0.1), seed: seed, flow: "a"), flow: "a")
            let sent = scheduler.popDue(nowNanoseconds: 10_000)
            let counters = sent.filter { $0.flow == "a" }.map { Int(String(decoding: $0.payload, as: UTF8.self)
                .split(separator: ",")[1].split(separator: ":")[1]) ?? -1 }
            return (counters, scheduler.counters["a"], scheduler.counters["b"])
        }
        let (kept, a, b) = run(seed: 42)
        let (again, _, _) = run(seed: 42)
        let (other, _, _) = run(seed: 43)
        #expect(kept == again)
        #expect(kept != other)
        #expect((a?.dropped ?? 0) + (a?.emitted ?? 0) == 1000)
        #expect((60...140).contains(a?.dropped ?? 0))   // 10 % of 1000, generously bounded
        #expect(b?.dropped == 0 && b?.emitted == 1000)
    }

    @Test func rateLossConvergesOnTheRate() {
        var model = LossModel(rule: .rate(0.05), seed: 7)
        var dropped = 0
        for _ in 0..<100_000 where model.shouldDrop() { dropped += 1 }
        #expect(abs(dropped - 5000) < 300)
        var none = LossModel(rule: .rate(0), seed: 7), all = LossModel(rule: .rate(1), seed: 7)
        let judged = (0..<1000).map { _ in (none.shouldDrop(), all.shouldDrop()) }
        #expect(judged.allSatisfy { !$0.0 && $0.1 })
    }

    @Test func patternsDropExactlyTheNamedPackets() throws {
        var every = LossModel(rule: try LossModel.parsePattern("every:50").get())
        let dropped = (0..<200).filter { _ in every.shouldDrop() }
        #expect(dropped == [49, 99, 149, 199])
        var list = LossModel(rule: try LossModel.parsePattern("0,3,10-12").get())
        let listed = (0..<15).filter { _ in list.shouldDrop() }
        #expect(listed == [0, 3, 10, 11, 12])
        for bad in ["every:0", "every:x", "3-1", "a", "1,,2", "-3"] {
            #expect(throws: StreamerError.self) { try LossModel.parsePattern(bad).get() }
        }
    }

    @Test func dataChannelFramesAsRTPOrUDP() throws {
        let identity = RTPIdentity(ssrc: 99, initialSequence: 65_535, initialTimestamp: 10)
        var rtp = DataChannelSource(flow: "scores", destination: Self.dataGroup,
                                    messages: .list(DataChannelSource.lines(of: Array("{\"a\":1}\r\n\n  \n{\"b\":2}\n".utf8))),
                                    framing: .rtp(payloadType: 98, identity: identity, clockRate: 90_000),
                                    startNanoseconds: 5_000_000_000, intervalNanoseconds: 500_000_000, limit: 3)
        let sent = StreamerSample.drain(&rtp)
        #expect(sent.map(\.dueNanoseconds) == [5_000_000_000, 5_500_000_000, 6_000_000_000])
        let packets = try sent.map { try RTPPacket.parse($0.payload).get() }
        #expect(packets.map { String(decoding: $0.payload, as: UTF8.self) } == ["{\"a\":1}", "{\"b\":2}", "{\"a\":1}"])
        #expect(packets.map(\.sequenceNumber) == [65_535, 0, 1])
        #expect(packets.map(\.timestamp) == [10, 45_010, 90_010])
        #expect(packets.allSatisfy { $0.payloadType == 98 && $0.ssrc == 99 })

        var udp = DataChannelSource(flow: "ticker", destination: Self.dataGroup, messages: .counter(channel: "Tick \"er\""),
                                    framing: .udp, startNanoseconds: 7, intervalNanoseconds: 3, limit: 2)
        let plain = StreamerSample.drain(&udp).map { String(decoding: $0.payload, as: UTF8.self) }
        #expect(plain == ["{\"channel\":\"Tick \\\"er\\\"\",\"counter\":0,\"sentNanoseconds\":7}",
                          "{\"channel\":\"Tick \\\"er\\\"\",\"counter\":1,\"sentNanoseconds\":10}"])
    }
}

/// A stand-in for an FEC encoder: wraps a media source and, after every `row` media packets,
/// adds one XOR "repair" datagram to port + 2 due with the packet that completed the row. It
/// shows the shape FEC senders take; the scheduler needs no change for it.
struct XORRowSource<Inner: StreamerSource>: StreamerSource {
    var inner: Inner
    let row: Int
    private var parity: [UInt8] = []
    private var count = 0

    init(inner: Inner, row: Int) {
        self.inner = inner
        self.row = row
    }

    var nextDueNanoseconds: Int64? { inner.nextDueNanoseconds }

    mutating func pop() -> [ScheduledDatagram] {
        var out = inner.pop()
        for datagram in out {
            if parity.count < datagram.payload.count { parity += [UInt8](repeating: 0, count: datagram.payload.count - parity.count) }
            for (i, byte) in datagram.payload.enumerated() { parity[i] ^= byte }
            count += 1
            if count % row == 0 {
                var destination = datagram.destination
                destination.port += 2
                out.append(ScheduledDatagram(flow: datagram.flow + ".fec-row", destination: destination, payload: parity,
                                             dueNanoseconds: datagram.dueNanoseconds))
                parity = []
            }
        }
        return out
    }
}

struct StreamerPluggableSourceTests {
    @Test func aWrappingRepairSourcePlugsIntoTheScheduler() throws {
        let group = Endpoint(address: .v4(0xEFFF_1401), port: 5000)
        let media = DataChannelSource(flow: "bowl", destination: group, messages: .list([[1, 2], [4, 8], [16, 32]]),
                                      framing: .udp, startNanoseconds: 0, intervalNanoseconds: 10, limit: 6)
        var scheduler = StreamerScheduler()
        scheduler.add(XORRowSource(inner: media, row: 3))
        // Loss applies per flow after the sources: media loses its 2nd packet, repair survives.
        scheduler.setLoss(LossModel(rule: .indices([1...1])), flow: "bowl")
        let out = scheduler.popDue(nowNanoseconds: 1000)
        #expect(out.map(\.flow) == ["bowl", "bowl", "bowl.fec-row", "bowl", "bowl", "bowl", "bowl.fec-row"])
        let repair = try #require(out.first { $0.flow == "bowl.fec-row" })
        #expect(repair.destination.port == 5002)
        let parity: [UInt8] = [21, 42]   // 1^4^16, 2^8^32: recovers the dropped [4, 8] with the other two
        #expect(repair.payload == parity)
        #expect(scheduler.counters["bowl"]?.dropped == 1)
        #expect(scheduler.counters["bowl.fec-row"]?.emitted == 2)
    }
}
