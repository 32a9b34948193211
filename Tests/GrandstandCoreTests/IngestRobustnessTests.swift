import Testing
import TestSupport
@testable import GrandstandCore

/// Malformed input of every kind, interleaved with good traffic: counted per reason, never a trap.
struct IngestRobustnessTests {
    /// A small deterministic generator (xorshift64*), so failures reproduce.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            return state &* 0x2545F4914F6CDD1D
        }
        mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) } }
    }

    static func goodFrame(_ index: Int) -> [UInt8] {
        FrameBuilder.multicastFrame(Traffic.rtp(UInt16(index), payload: Traffic.tsBlock(index)))
    }

    @Test func garbageInterleavedWithGoodTrafficIsCountedAndGoodTrafficSurvives() {
        var pipeline = Traffic.pipeline([Traffic.video])
        var generator = Generator(state: 0x9E3779B97F4A7C15)
        var actions: [IngestAction] = []
        var frames = 0
        for index in 0..<200 {
            actions += pipeline.ingest(frame: Self.goodFrame(index)[...], link: .ethernet, timestampNanoseconds: Int64(index))
            frames += 1
            // Random bytes, random-length prefixes of a good frame, and random bit flips in one.
            let size = Int(generator.next() % 1600)
            _ = pipeline.ingest(frame: generator.bytes(size)[...], link: .ethernet, timestampNanoseconds: Int64(index))
            let good = Self.goodFrame(index)
            let cut = Int(generator.next() % UInt64(good.count))
            _ = pipeline.ingest(frame: good[..<cut], link: .ethernet, timestampNanoseconds: Int64(index))
            var flipped = good
            flipped[Int(generator.next() % UInt64(good.count))] ^= UInt8(1 << (generator.next() % 8))
            _ = pipeline.ingest(frame: flipped[...], link: [LinkLayer.ethernet, .raw, .linuxCooked, .linuxCooked2, .null][index % 5],
                                timestampNanoseconds: Int64(index))
            frames += 3
        }
        let stats = pipeline.stats
        #expect(stats.total("frames_received") == frames)
        let dropped = (stats.total["drops"].flatMap { value -> Int? in
            guard case .object(let members) = value else { return nil }
            return members.reduce(0) { $0 + (IngestStats.int($1.value) ?? 0) }
        }) ?? -1
        #expect(dropped > 0)
        // Good traffic is all there: every RTP packet's TS reached the output once, in order
        // (flipped copies that still parse are duplicates or late to the sequence tracker, or
        // land on other ports).
        var expected: [UInt8] = []
        for index in 0..<200 { expected += Traffic.tsBlock(index) }
        let ts = Traffic.output(actions, channel: "bowl").ts
        #expect(ts == expected)
    }

    /// Every prefix of every kind of good frame: each is delivered or dropped with a reason.
    @Test(arguments: [LinkLayer.ethernet, .raw])
    func everyTruncationIsAccountedFor(link: LinkLayer) {
        var packet = FrameBuilder.ipv4(source: "10.1.2.3", destination: "239.255.20.1",
                                       segment: FrameBuilder.udp(sourcePort: 1, destinationPort: 5000,
                                                                 payload: Traffic.rtp(1, payload: Traffic.tsBlock(0))))
        if link == .ethernet { packet = FrameBuilder.ethernet(packet) }
        var pipeline = Traffic.pipeline([Traffic.video])
        for cut in 0...packet.count {
            _ = pipeline.ingest(frame: packet[..<cut], link: link, timestampNanoseconds: 0)
        }
        let stats = pipeline.stats
        let frameDrops = stats.drops(.linkTruncated) + stats.drops(.ipv4Truncated) + stats.drops(.ipBadVersion)
        #expect(frameDrops + (stats.total("datagrams_received") ?? 0) == packet.count + 1)
        #expect(stats.channel("bowl", "ts_packets") == 7)   // only the whole frame delivers
        #expect(stats.total("frames_received") == packet.count + 1)
    }

    @Test func oversizedAndOddDatagramsOnEveryPort() {
        var pipeline = Traffic.pipeline()
        let huge = [UInt8](repeating: 0x47, count: 65_000)
        _ = pipeline.ingest(Traffic.datagram(huge))
        _ = pipeline.ingest(Traffic.datagram(Traffic.rtp(1, payload: huge)))
        _ = pipeline.ingest(Traffic.datagram(huge, to: Traffic.dataGroup, port: 5100))
        _ = pipeline.ingest(Traffic.datagram(huge, to: IPAddress(parsing: "239.255.255.255")!, port: 9875))
        _ = pipeline.ingest(Traffic.datagram([], to: IPAddress(parsing: "224.2.127.254")!, port: 9875))
        _ = pipeline.ingest(Traffic.datagram([0x90, 33, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]))
        _ = pipeline.ingest(Traffic.datagram([0xA0, 33, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 200]))
        let stats = pipeline.stats
        #expect(stats.drops(.rtpBadVersion, channel: "bowl") == 1)
        #expect(stats.drops(.rtpTruncated, channel: "bowl") == 1)
        #expect(stats.drops(.rtpBadPadding, channel: "bowl") == 1)
        #expect(stats.channel("bowl", "odd_sized_datagrams") == 1)
        #expect(stats.drops(.tsBadLength, channel: "bowl") == 1)
        #expect(stats.drops(.sapVersionMismatch) + stats.drops(.sapTruncated) + stats.drops(.sapUnsupportedPayloadType) == 2)
        #expect(stats.drops(.rtpBadVersion, channel: "scores") == 1)
        #expect(stats.total("malformed_dropped") ?? 0 >= 5)
    }
}
