import Testing
import TestSupport
@testable import GrandstandCore

/// A channel removed from the registry while its FEC stage holds packets and open windows: the
/// stage is finished (docs/fec.md, "Channel removal"): held packets come out, open windows
/// close as at the end of input, all before the `.removed` change.
struct IngestPipelineFECRemovalTests {
    static let sapGroup = IPAddress(parsing: "239.255.255.255")!
    static let ms: Int64 = 1_000_000

    /// RS k = 4, m = 2 over Traffic's TS blocks: the source RTP packets and each window's repairs.
    static func stream(windows: Int) -> (sources: [[UInt8]], repairs: [[[UInt8]]]) {
        var encoder = ReedSolomonWindowEncoder(configuration: .init(sourceCount: 4, repairCount: 2), math: ReferenceReedSolomon())
        var sources: [[UInt8]] = [], repairs: [[[UInt8]]] = []
        for index in 0..<(4 * windows) {
            let packet = Traffic.rtp(UInt16(index), payload: Traffic.tsBlock(index))
            sources.append(packet)
            let out = encoder.add(packet)
            if !out.isEmpty { repairs.append(out) }
        }
        return (sources, repairs)
    }

    /// A pipeline with the announced RS channel "bowl" (ISA-L-free reference math).
    static func pipeline() throws -> IngestPipeline {
        let configuration = IngestConfiguration(policy: RegistryPolicy(license: Announce.box),
                                                recovery: FECRecovery.factory(math: { ReferenceReedSolomon() }))
        var pipeline = IngestPipeline(configuration: configuration)
        let sdp = Announce.sdp(name: "Bowl", session: 5, extra: ["a=x-grandstand-fec:scheme=reed-solomon;k=4;m=2;repairPort=5002"])
        _ = pipeline.ingest(Traffic.datagram(Announce.packet(sdp), to: sapGroup, port: 9875))
        let fec = try #require(pipeline.channels.first?.fec)
        #expect(fec == .reedSolomon(k: 4, m: 2, repairPort: 5002))
        return pipeline
    }

    static func removal(_ pipeline: inout IngestPipeline, at time: Int64) -> [IngestAction] {
        pipeline.ingest(Traffic.datagram(Announce.deletion(session: 5), to: sapGroup, port: 9875, at: time))
    }

    static func tsBlocks(_ indices: [Int]) -> [UInt8] {
        var bytes: [UInt8] = []
        for index in indices { bytes += Traffic.tsBlock(index) }
        return bytes
    }

    @Test func heldPacketsAndAnOpenFailingWindowAreFlushedOnDeletion() throws {
        var pipeline = try Self.pipeline()
        let (sources, repairs) = Self.stream(windows: 2)
        var actions: [IngestAction] = []
        var time: Int64 = 0
        // Window 0 whole; window 1 loses sources 5 and 6 and all but its first repair.
        for index in [0, 1, 2, 3, 4, 7] {
            time += Self.ms
            actions += pipeline.ingest(Traffic.datagram(sources[index], at: time))
            if index == 3 { actions += pipeline.ingest(Traffic.datagram(repairs[0][0], port: 5002, at: time)) }
        }
        actions += pipeline.ingest(Traffic.datagram(repairs[1][0], port: 5002, at: time + Self.ms))
        // Packet 7 is held behind the gap (well within the 200 ms hold), window 1 is open.
        #expect(Traffic.output(actions, channel: "bowl").ts == Self.tsBlocks([0, 1, 2, 3, 4]))
        #expect(Traffic.output(actions, channel: "bowl").gaps.isEmpty)

        let removed = Self.removal(&pipeline, at: time + 2 * Self.ms)
        let channel = try #require(removed.last.flatMap { action -> Channel? in
            if case let .channelsChanged(changes) = action, case let .removed(channel, .deleted)? = changes.first { return channel }
            return nil
        })
        #expect(channel.id == "bowl")
        // Before the change: the two lost packets as one gap, then the held packet.
        let flushed = Traffic.output(Array(removed.dropLast()), channel: "bowl")
        #expect(flushed.gaps == [2])
        #expect(flushed.ts == Traffic.tsBlock(7))
        #expect(removed.count == 3)

        // Nothing is left to come out later; the failed window is counted once.
        #expect(pipeline.tick(nowNanoseconds: time + 10_000 * Self.ms).isEmpty)
        let stats = pipeline.stats
        #expect(stats.channel("bowl", "protection_windows") == 2)
        #expect(stats.channel("bowl", "window_no_loss") == 1)
        #expect(stats.channel("bowl", "window_recovery_failures") == 1)
        #expect(stats.channel("bowl", "gap_packets") == 2)
        #expect(stats.channel("bowl", "ts_packets") == 6 * 7)
    }

    @Test func aWindowWaitingOnItsLastSourceIsRebuiltOnDeletion() throws {
        var pipeline = try Self.pipeline()
        let (sources, repairs) = Self.stream(windows: 1)
        var actions: [IngestAction] = []
        // Source 3 (the window's last) never comes; one repair is enough, but until the stream
        // passes it or the timeout, source 3 may merely be late: the window waits.
        for index in 0..<3 { actions += pipeline.ingest(Traffic.datagram(sources[index], at: Int64(index + 1) * Self.ms)) }
        actions += pipeline.ingest(Traffic.datagram(repairs[0][1], port: 5002, at: 4 * Self.ms))
        #expect(Traffic.output(actions, channel: "bowl").ts == Self.tsBlocks([0, 1, 2]))

        let removed = Self.removal(&pipeline, at: 5 * Self.ms)
        let flushed = Traffic.output(removed, channel: "bowl")
        #expect(flushed.ts == Traffic.tsBlock(3))
        #expect(flushed.gaps.isEmpty)
        guard case .channelsChanged? = removed.last else {
            Issue.record("the removal change must come last, after the flushed packets: \(removed)")
            return
        }
        let stats = pipeline.stats
        #expect(stats.channel("bowl", "window_recovery_successes") == 1)
        #expect(stats.channel("bowl", "recovered_packets") == 1)
        #expect(stats.channel("bowl", "ts_packets") == 4 * 7)
    }
}
