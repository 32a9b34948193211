import GrandstandCore
import Testing

/// What `grandstand send --fec … --drop-pattern …` schedules, fed straight into the ingest
/// pipeline with FEC recovery (the pure-Swift Reed-Solomon here; ISA-L and the real sample in
/// ErasureCodingTests/SendFECIngestTests): exact window stats, and the delivered TS equal to
/// the original whenever each window's losses are within its capacity.
struct StreamerFECIngestTests {
    static let origin = IPAddress.v4(0xC000_0207)
    static let license = LicenseTriplet(venueName: "Demo Stadium", contentOwner: "Grandstand", appDeveloper: "Grandstand")
    static let bowl = Endpoint(address: .v4(0xEFFF_1401), port: 5000)

    struct Outcome {
        var pipeline: IngestPipeline
        var scheduler: StreamerScheduler
        var transportStream: [UInt8] = []
        var gapPackets = 0
        var fecAttribute: String?

        /// Equal streams, or where they differ (never the whole arrays in a failure message).
        func sameStream(as expected: [UInt8]) -> Bool { transportStream == expected }
        func stat(_ name: String) -> Int { pipeline.stats.channel("bowl", name) ?? -1 }
        /// The six StadiumVision window keys, in DESIGN.md order.
        var windows: [Int] {
            ["protection_windows", "window_no_loss", "window_recovery_successes", "window_recovery_failures",
             "window_warning", "window_error"].map(stat)
        }
    }

    /// `datagrams` datagrams of 7 TS packets, one per millisecond (a PCR every 7 packets).
    static func stream(datagrams: Int) throws -> PacedTransportStream {
        try PacedTransportStream(StreamerSample.stream(count: datagrams * 7, every: 7, firstPCR: 0, step: 27_000))
    }

    static func run(_ fec: StreamerFEC, stream: PacedTransportStream, media: LossModel.Rule? = nil, repair: LossModel.Rule? = nil,
                    decoder: FECDecoderConfiguration = FECDecoderConfiguration(), math: any ReedSolomonMath = ReferenceReedSolomon()) -> Outcome {
        let channel = ChannelDescription(name: "Bowl", media: .video, destination: bowl, license: license, origin: origin,
                                         extraAttributes: [fec.attribute])
        var scheduler = StreamerScheduler()
        let sap = SAPAnnouncer(destination: Endpoint(address: SAPAnnouncer.defaultGroupV4, port: SAPMessage.port), origin: origin,
                               channels: [channel], compress: false, startNanoseconds: 0, intervalNanoseconds: 1_000_000_000)
        scheduler.add(sap)
        let source = RTPTransportStreamSource(flow: "bowl", destination: bowl, stream: stream, identity: RTPIdentity(name: "bowl"),
                                              startNanoseconds: 500_000_000, passes: 1)
        scheduler.add(FECStreamerSource(wrapping: source, flow: "bowl", fec: fec, math: math, seed: 1))
        if let media { scheduler.setLoss(LossModel(rule: media), flow: "bowl") }
        if let repair { for flow in fec.repairFlows("bowl") { scheduler.setLoss(LossModel(rule: repair), flow: flow) } }
        let configuration = IngestConfiguration(policy: RegistryPolicy(license: license),
                                                recovery: FECRecovery.factory(configuration: decoder, math: { ReferenceReedSolomon() }))
        var outcome = Outcome(pipeline: IngestPipeline(configuration: configuration), scheduler: scheduler,
                              fecAttribute: channel.sdp.split(separator: "\r\n").first { $0.hasPrefix("a=x-grandstand-fec:") }.map(String.init))
        func take(_ actions: [IngestAction]) {
            for action in actions {
                switch action {
                case .transportStream(_, let packets, _): outcome.transportStream += packets
                case .gap(_, let lost, _): outcome.gapPackets += lost
                default: break
                }
            }
        }
        var last: Int64 = 0
        while !outcome.scheduler.isFinished, let due = outcome.scheduler.nextDueNanoseconds {
            for datagram in outcome.scheduler.popDue(nowNanoseconds: due) {
                take(outcome.pipeline.ingest(Datagram(source: Endpoint(address: origin, port: 40_000), destination: datagram.destination,
                                                      payload: datagram.payload[...], timestampNanoseconds: due, hopLimit: 16)))
            }
            take(outcome.pipeline.tick(nowNanoseconds: due))
            last = due
        }
        // The receiver's timeout passes with nothing arriving: every window closes.
        take(outcome.pipeline.tick(nowNanoseconds: last + 1_000_000_000))
        return outcome
    }

    @Test func reedSolomonWindowsRecoverTwoLossesEachExactly() throws {
        let stream = try Self.stream(datagrams: 210)
        let outcome = Self.run(.reedSolomon(k: 20, m: 4, repairPort: 5002), stream: stream, media: .every(10))
        #expect(outcome.fecAttribute == "a=x-grandstand-fec:scheme=reed-solomon;k=20;m=4;repairPort=5002")
        // 210 datagrams: 10 windows of 20 + one of 10; every:10 drops 2 per full window, 1 in the last.
        #expect(outcome.scheduler.counters["bowl"]?.dropped == 21)
        #expect(outcome.scheduler.counters["bowl.rs"]?.emitted == 11 * 4)
        #expect(outcome.windows == [11, 0, 11, 0, 0, 0])
        #expect(outcome.stat("fec_recovered_packets") == 21 && outcome.stat("fec_unrecovered_packets") == 0)
        // The sequence tracker sees 20 holes; the 21st is the stream's last packet (only the
        // repair window knows it existed) — rebuilt at the window's deadline.
        #expect(outcome.stat("rtp_packets_lost") == 20)
        #expect(outcome.gapPackets == 0 && outcome.stat("num_ts_discontinuities") == 0)
        #expect(outcome.sameStream(as: stream.bytes))
    }

    @Test func reedSolomonWindowBeyondItsRepairsFailsAndOnlyItLosesPackets() throws {
        let stream = try Self.stream(datagrams: 100)
        // Window 1 (datagrams 20…39) loses 5 > m = 4; window 3 loses 4 of its sources and 0 repairs.
        let outcome = Self.run(.reedSolomon(k: 20, m: 4, repairPort: 5002), stream: stream, media: .indices([22...26, 60...63]))
        #expect(outcome.windows == [5, 3, 1, 1, 0, 0])
        #expect(outcome.stat("fec_recovered_packets") == 4 && outcome.stat("fec_unrecovered_packets") == 5)
        #expect(outcome.gapPackets == 5)
        var expected = stream.bytes
        expected.removeSubrange((22 * 7 * 188)..<(27 * 7 * 188))
        #expect(outcome.sameStream(as: expected))
    }

    @Test func lostRepairsCountOnlyWhenSourcesNeedThem() throws {
        let stream = try Self.stream(datagrams: 60)
        // Repairs 0-2 (all but one of window 0's) are lost: window 0 loses 2 sources → failure;
        // window 1 loses 1 source with 4 repairs → success; window 2 no loss.
        let outcome = Self.run(.reedSolomon(k: 20, m: 4, repairPort: 5002), stream: stream, media: .indices([3...4, 25...25]),
                               repair: .indices([0...2]))
        #expect(outcome.windows == [3, 1, 1, 1, 0, 0])
        #expect(outcome.gapPackets == 2)
    }

    /// A gap at the start of a window that takes 300 ms to send (20 datagrams 15 ms apart): a packet
    /// after it is held for the rest of the window at the measured rate (`RepairWait`), so the
    /// repairs sent after the window still fill it. A fixed 200 ms hold released it as lost.
    @Test func aGapEarlyInASlowWindowWaitsForTheWindowsRepairs() throws {
        let stream = try PacedTransportStream(StreamerSample.stream(count: 120 * 7, every: 7, firstPCR: 0, step: 15 * 27_000))
        let outcome = Self.run(.reedSolomon(k: 20, m: 4, repairPort: 5002), stream: stream, media: .indices([100...100]))
        #expect(outcome.stat("fec_recovered_packets") == 1 && outcome.gapPackets == 0)
        let identical = outcome.sameStream(as: stream.bytes)
        #expect(identical)
        // The hold in force: 20 intervals + one with an eighth more + 50 ms ≈ 367 ms.
        let wait = outcome.stat("fec_wait_ms_current")
        #expect((340...400).contains(wait), "fec_wait_ms_current \(wait)")
    }

    @Test func oversizedWindowsCountWarningAndError() throws {
        let stream = try Self.stream(datagrams: 200)
        // k + m = 130 > 120 (recommended): protected, and window_warning for each.
        let warned = Self.run(.reedSolomon(k: 100, m: 30, repairPort: 5002), stream: stream, media: .indices([5...9, 150...151]))
        #expect(warned.windows == [2, 0, 2, 0, 2, 0])
        #expect(warned.sameStream(as: stream.bytes) && warned.gapPackets == 0)
        // k + m = 260 > 255: announced as the largest legal shape, sent unprotected with a marker
        // repair per window; the receiver counts window_error and passes the sources through.
        let errored = Self.run(.reedSolomon(k: 200, m: 60, repairPort: 5002), stream: stream)
        #expect(errored.fecAttribute == "a=x-grandstand-fec:scheme=reed-solomon;k=200;m=55;repairPort=5002")
        #expect(errored.scheduler.counters["bowl.rs"]?.emitted == 1)
        #expect(errored.windows == [1, 0, 0, 0, 1, 1])
        #expect(errored.sameStream(as: stream.bytes))
        // The receiver's own limit: k + m = 24 beyond a configured maximum of 20.
        let limited = Self.run(.reedSolomon(k: 20, m: 4, repairPort: 5002), stream: stream,
                               decoder: FECDecoderConfiguration(recommendedMaxSymbols: 22, maxSymbols: 20))
        #expect(limited.windows == [10, 0, 0, 0, 10, 10])
        #expect(limited.sameStream(as: stream.bytes))
    }

    @Test func smpte2022MatricesRecoverARowOrColumnLossExactly() throws {
        let stream = try Self.stream(datagrams: 200)
        // L = 5, D = 4: 10 matrices of 20. every:10 drops positions 9 and 19 of each matrix: the
        // same column (4) twice, one per row — row FEC rebuilds both.
        let outcome = Self.run(.smpte2022_1(columns: 5, rows: 4, rowFEC: true), stream: stream, media: .every(10))
        #expect(outcome.fecAttribute == "a=x-grandstand-fec:scheme=smpte2022-1;L=5;D=4")
        #expect(outcome.scheduler.counters["bowl.fec-col"]?.emitted == 10 * 5)
        #expect(outcome.scheduler.counters["bowl.fec-row"]?.emitted == 10 * 4)
        #expect(outcome.windows == [10, 0, 10, 0, 0, 0])
        #expect(outcome.stat("fec_recovered_packets") == 20 && outcome.gapPackets == 0)
        #expect(outcome.sameStream(as: stream.bytes))
        // Column only (1D): a burst of 5 in one row is 5 columns, one loss each: recovered.
        let columns = Self.run(.smpte2022_1(columns: 5, rows: 4, rowFEC: false), stream: stream, media: .indices([40...44]))
        #expect(columns.scheduler.counters["bowl.fec-row"] == nil)
        #expect(columns.windows == [10, 9, 1, 0, 0, 0])
        #expect(columns.sameStream(as: stream.bytes) && columns.gapPackets == 0)
        // Two losses in one column of a matrix without row FEC: that matrix fails.
        let failed = Self.run(.smpte2022_1(columns: 5, rows: 4, rowFEC: false), stream: stream, media: .indices([60...60, 65...65]))
        #expect(failed.windows == [10, 9, 0, 1, 0, 0])
        #expect(failed.gapPackets == 2)
    }
}

/// The `--fec` grammar (also `"fec"` in `send --config`).
struct StreamerFECSpecTests {
    @Test func specsParseWithDefaults() {
        #expect(StreamerFEC.parse("reed-solomon", mediaPort: 5000) == .success(.reedSolomon(k: 20, m: 4, repairPort: 5002)))
        #expect(StreamerFEC.parse("rs:k=10,m=2,port=6000", mediaPort: 5000) == .success(.reedSolomon(k: 10, m: 2, repairPort: 6000)))
        #expect(StreamerFEC.parse("smpte2022-1", mediaPort: 5000) == .success(.smpte2022_1(columns: 5, rows: 4, rowFEC: true)))
        #expect(StreamerFEC.parse("2022-1:L=10,D=10,row=no", mediaPort: 5000) == .success(.smpte2022_1(columns: 10, rows: 10, rowFEC: false)))
        let column = StreamerFEC.smpte2022_1(columns: 10, rows: 10, rowFEC: false)
        #expect(column.repairPorts(mediaPort: 5000) == [5002] && column.repairFlows("bowl") == ["bowl.fec-col"])
        #expect(column.attribute == "x-grandstand-fec:scheme=smpte2022-1;L=10;D=10")
    }

    @Test(arguments: [
        ("reed-solomon:k=0", "k and m must be numbers in 1...255"),
        ("rs:k=20,m=300", "k and m must be numbers in 1...255"),
        ("rs:port=5000", "port must be 1...65535 and not the media port"),
        ("rs:x=1", "unknown key x"),
        ("rs:k=3,k=4", "is not a new key=value"),
        ("smpte2022-1:L=21", "L 21 is out of range 1...20"),
        ("smpte2022-1:L=20,D=20", "L×D = 400 exceeds 100"),
        ("smpte2022-1:row=maybe", "row must be yes or no"),
        ("xor", "unknown scheme \"xor\""),
    ])
    func badSpecsSayWhy(text: String, reason: String) {
        guard case .failure(let error) = StreamerFEC.parse(text, mediaPort: 5000) else {
            Issue.record("\(text) parsed")
            return
        }
        #expect(error.reason.contains(reason), "\(error.reason)")
    }
}
