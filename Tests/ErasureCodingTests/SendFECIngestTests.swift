import Foundation
import Testing
import TestSupport
import GrandstandCore
import ErasureCoding

/// The streamer's FEC wrapper on ISA-L with the real sample (tools/samples/clean.ts, 1 714
/// datagrams), scheduled with a loss pattern and fed into the ingest pipeline built like the
/// product's (`FECRecovery.factory` on `ISALReedSolomonMath`): exact window stats and the
/// delivered TS equal to the file.
@Suite struct SendFECIngestTests {
    static let origin = IPAddress.v4(0xC000_0207)
    static let bowl = Endpoint(address: .v4(0xEFFF_1401), port: 5000)
    static let sample = Fixtures.directory.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("tools/samples/clean.ts").path

    struct Outcome {
        var pipeline: IngestPipeline
        var scheduler: StreamerScheduler
        var transportStream: [UInt8] = []
        var gapPackets = 0
        var windows: [Int] {
            ["protection_windows", "window_no_loss", "window_recovery_successes", "window_recovery_failures",
             "window_warning", "window_error"].map { pipeline.stats.channel("bowl", $0) ?? -1 }
        }
    }

    static func run(_ fec: StreamerFEC, media: LossModel.Rule) throws -> (Outcome, [UInt8]) {
        let file = Array(try Data(contentsOf: URL(fileURLWithPath: sample)))
        let stream = try PacedTransportStream(file)
        let channel = ChannelDescription(name: "Bowl", media: .video, destination: bowl, origin: origin, extraAttributes: [fec.attribute])
        var scheduler = StreamerScheduler()
        let sap = SAPAnnouncer(destination: Endpoint(address: SAPAnnouncer.defaultGroupV4, port: SAPMessage.port), origin: origin,
                               channels: [channel], compress: false, startNanoseconds: 0, intervalNanoseconds: 1_000_000_000)
        scheduler.add(sap)
        let source = RTPTransportStreamSource(flow: "bowl", destination: bowl, stream: stream, identity: RTPIdentity(name: "bowl"),
                                              startNanoseconds: 500_000_000, passes: 1)
        scheduler.add(FECStreamerSource(wrapping: source, flow: "bowl", fec: fec, math: ISALReedSolomonMath(), seed: 1))
        scheduler.setLoss(LossModel(rule: media), flow: "bowl")
        let configuration = IngestConfiguration(recovery: FECRecovery.factory(math: { ISALReedSolomonMath() }))
        var outcome = Outcome(pipeline: IngestPipeline(configuration: configuration), scheduler: scheduler)
        func take(_ actions: [IngestAction]) {
            for action in actions {
                if case .transportStream(_, let packets, _) = action { outcome.transportStream += packets }
                if case .gap(_, let lost, _) = action { outcome.gapPackets += lost }
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
        take(outcome.pipeline.tick(nowNanoseconds: last + 1_000_000_000))
        return (outcome, file)
    }

    @Test func reedSolomonOnISALRepairsEveryTenthPacketOfTheSample() throws {
        let (outcome, file) = try Self.run(.reedSolomon(k: 20, m: 4, repairPort: 5002), media: .every(10))
        // 1 714 datagrams: 85 windows of 20 (2 drops each) and one of 14 (1 drop: 1 709).
        #expect(outcome.scheduler.counters["bowl"]?.dropped == 171)
        #expect(outcome.windows == [86, 0, 86, 0, 0, 0])
        #expect(outcome.pipeline.stats.channel("bowl", "fec_recovered_packets") == 171)
        #expect(outcome.gapPackets == 0)
        #expect(outcome.transportStream.count == file.count)
        #expect(outcome.transportStream == file, "recovered TS differs from the file")
    }

    @Test func reedSolomonOnISALFailsExactlyTheWindowBeyondCapacity() throws {
        let (outcome, file) = try Self.run(.reedSolomon(k: 20, m: 4, repairPort: 5002), media: .indices([100...104, 300...303]))
        #expect(outcome.windows == [86, 84, 1, 1, 0, 0])
        #expect(outcome.gapPackets == 5)
        var expected = file
        expected.removeSubrange((100 * 7 * 188)..<(105 * 7 * 188))
        #expect(outcome.transportStream == expected, "only window 5's five datagrams may be missing")
    }

    @Test func smpte2022RepairsEveryTenthPacketOfTheSample() throws {
        let (outcome, file) = try Self.run(.smpte2022_1(columns: 5, rows: 4, rowFEC: true), media: .every(10))
        // 85 whole matrices plus the trailing 14 datagrams (row FEC for its two full rows).
        #expect(outcome.windows == [86, 0, 86, 0, 0, 0])
        #expect(outcome.gapPackets == 0)
        #expect(outcome.transportStream == file, "recovered TS differs from the file")
    }
}
