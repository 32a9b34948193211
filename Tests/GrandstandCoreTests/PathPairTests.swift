import Testing
import TestSupport
@testable import GrandstandCore

/// A channel's second path over SRT, or on another capture interface (docs/ingest.md, "Two
/// paths"): the `secondary` shapes and every refusal with its JSON path.
struct PathPairConfigTests {
    static func channels(_ items: String) throws -> [GatewayConfig.StaticChannel] {
        try ConfigIngestTests.decode(#""channels":["# + items + "]").channels
    }

    @Test func aSecondPathOverSRTOrOnAnotherInterface() throws {
        let decoded = try Self.channels(
            #"{"name":"Pair","kind":"video","group":"239.255.20.1","port":5000,"transport":"udp","#
            + #""secondary":{"srt":{"url":"srt://:9000","mode":"listener","passphrase":"venue-backup-feed"},"silenceMilliseconds":300}},"#
            + #"{"name":"Red Blue","kind":"video","group":"239.255.20.2","port":5000,"#
            + #""secondary":{"group":"239.255.20.2","port":5000,"interface":"eth1.20","maxSkewMilliseconds":80}}"#)
        let srt = SRTSource(host: "", port: 9000, mode: .listener, passphrase: "venue-backup-feed")
        #expect(decoded[0].secondPath == SecondPath(srt: srt, silenceNanoseconds: 300_000_000))
        #expect(decoded[0].secondPath?.endpoint == nil && decoded[0].rtp == false)
        let endpoint = IngestEndpoint(group: IPAddress(parsing: "239.255.20.2")!, port: 5000)
        #expect(decoded[1].secondPath == SecondPath(endpoint: endpoint, interface: "eth1.20", maxSkewNanoseconds: 80_000_000))
        // An RTP channel may pair with SRT too (its RTP is unwrapped; the pair fails over).
        let rtp = try Self.channels(#"{"name":"R","kind":"video","group":"239.255.20.3","port":5000,"#
                                    + #""secondary":{"srt":{"url":"srt://10.0.0.9:9001","mode":"caller"}}}"#)
        #expect(rtp[0].rtp && rtp[0].secondPath?.srt?.mode == .caller)
    }

    @Test(arguments: [
        (#"{"name":"P","kind":"video","group":"239.255.20.1","port":5000,"secondary":{"srt":{"url":"srt://:9000","mode":"listener"},"group":"239.255.21.1"}}"#,
         "$.channels[0].secondary.group: not used by a second path over SRT (the address is srt.url)"),
        (#"{"name":"P","kind":"video","group":"239.255.20.1","port":5000,"secondary":{"srt":{"url":"srt://:0","mode":"listener"}}}"#,
         #"$.channels[0].secondary.srt.url: "srt://:0" "0" is not a port (1...65535)"#),
        (#"{"name":"P","kind":"video","group":"239.255.20.1","port":5000,"secondary":{"srt":{"url":"srt://:9000","mode":"listener","streamid":"x"}}}"#,
         "$.channels[0].secondary.srt.streamid: unknown key (expected one of: keyLength, latencyMilliseconds, mode, passphrase, url)"),
        (#"{"name":"P","kind":"video","group":"239.255.20.1","port":5000,"fec":{"scheme":"smpte2022-1"},"secondary":{"srt":{"url":"srt://:9000","mode":"listener"}}}"#,
         "$.channels[0].fec: a pair with an SRT path fails over on silence and carries TS without FEC; leave fec out"),
        (#"{"name":"P","kind":"video","group":"239.255.20.1","port":5000,"secondary":{"group":"239.255.21.1","port":5000,"interface":"a-very-long-vlan-name"}}"#,
         #"$.channels[0].secondary.interface: "a-very-long-vlan-name" is longer than an interface name can be (15 bytes)"#),
        (#"{"name":"P","kind":"video","group":"239.255.20.1","port":5000,"secondary":{"group":"239.255.21.1","port":5000,"interface":"eth/1"}}"#,
         #"$.channels[0].secondary.interface: "eth/1" is not an interface name"#),
        (#"{"name":"P","kind":"video","group":"239.255.20.1","port":5000,"secondary":{"group":"239.255.20.1","port":5000}}"#,
         "$.channels[0].secondary: is the channel's own group, port and source; a second path must differ (or arrive on another interface)"),
        (#"{"name":"P","kind":"video","srt":{"url":"srt://:9000","mode":"listener"},"secondary":{"group":"239.255.21.1","port":5000}}"#,
         #"$.channels[0].secondary: an SRT channel takes no second path: make the multicast stream the channel and give SRT as its secondary ({"srt":{…}})"#),
        (#"{"name":"P","kind":"video","group":"239.255.20.1","port":5000,"secondary":{"srt":{"url":"srt://:9000","mode":"listener"}}},{"name":"Q","kind":"video","srt":{"url":"srt://:9000","mode":"listener"}}"#,
         "$.channels[1].srt: srt://:9000 (listener) is already used by $.channels[0].secondary"),
        (#"{"name":"P","kind":"video","group":"239.255.20.1","port":5000,"secondary":{"group":"239.255.21.1","port":5000,"interface":"eth1"}},{"name":"Q","kind":"video","group":"239.255.20.2","port":5000,"secondary":{"group":"239.255.21.1","port":5000,"interface":"eth1"}}"#,
         "$.channels[1].secondary: 239.255.21.1:5000 is already used by $.channels[0].secondary"),
    ])
    func badPairsAreRefusedWithTheirPath(items: String, issue: String) {
        #expect(ConfigIngestTests.issues(#""channels":["# + items + "]") == [issue])
    }
}

/// A multicast channel whose second path is over SRT: the pair is merged as TS and fails over on
/// silence (not hitless), with the same path events and counters as two multicast paths. The
/// primary's RTP is unwrapped (no sequence numbers on the SRT side to merge by). Time is the
/// datagrams' own (the manual clock of the core).
struct IngestSRTPairTests {
    static func channel(rtp: Bool) -> GatewayConfig.StaticChannel {
        var channel = GatewayConfig.StaticChannel(name: "Pair", kind: .video, group: Traffic.videoGroup, port: 5000, rtp: rtp)
        channel.secondPath = SecondPath(srt: SRTSource(host: "", port: 9000, mode: .listener), silenceNanoseconds: 200_000_000)
        return channel
    }

    /// Block n at n ms on each path that is on at n: the primary over multicast (RTP-wrapped when
    /// `rtp`), the secondary as SRT messages. Returns the actions.
    static func run(rtp: Bool, until count: Int, primary: (Int) -> Bool, secondary: (Int) -> Bool) -> (IngestPipeline, [IngestAction]) {
        var pipeline = Traffic.pipeline([channel(rtp: rtp)])
        var actions: [IngestAction] = []
        for n in 0..<count {
            let time = Int64(n) * 1_000_000
            if primary(n) {
                let bytes = rtp ? Traffic.rtp(UInt16(n), payload: Traffic.tsBlock(n)) : Traffic.tsBlock(n)
                pipeline.ingest(Traffic.datagram(bytes, at: time), into: &actions)
            }
            if secondary(n) { pipeline.ingest(stream: Traffic.tsBlock(n)[...], channelID: "pair", path: .secondary, timestampNanoseconds: time, into: &actions) }
        }
        return (pipeline, actions)
    }

    static func events(_ actions: [IngestAction]) -> [String] {
        actions.compactMap { action -> String? in if case .path(_, let event, _) = action { "\(event.name):\(event.path)" } else { nil } }
    }

    @Test(arguments: [true, false])
    func failsOverBothWaysOnSilenceWithOneGapEach(rtp: Bool) {
        // Primary 0..<50, then back at 400; secondary 0..<600. Each silence of 200 ms fails over.
        let (pipeline, actions) = Self.run(rtp: rtp, until: 1000, primary: { $0 < 50 || $0 >= 400 }, secondary: { $0 < 600 })
        #expect(Self.events(actions) == ["down:primary", "failover:secondary", "up:primary", "down:secondary", "failover:primary"])
        let out = Traffic.output(actions, channel: "pair")
        let expected = (0..<50).flatMap(Traffic.tsBlock) + (249..<600).flatMap(Traffic.tsBlock) + (799..<1000).flatMap(Traffic.tsBlock)
        #expect(out.ts == expected, "\(out.ts.count / 1316) blocks")
        #expect(out.gaps.count == 2, "each switch shows as a gap in the continuity counters: \(out.gaps)")
        let stats = pipeline.stats
        #expect(stats.channel("pair", "path_primary_down_events") == 1 && stats.channel("pair", "path_secondary_down_events") == 1)
        #expect(stats.channel("pair", "paths_down_current") == 1, "the secondary is still silent")
        #expect(stats.channel("pair", "path_secondary_packets") == 600 && stats.channel("pair", "path_primary_packets") == 650)
        // Dropped: the secondary until the first failover (0…248), the primary from its return until the second (400…798).
        #expect(stats.channel("pair", "path_secondary_dropped") == 249 && stats.channel("pair", "path_primary_dropped") == 399)
        #expect(stats.total("stream_chunks_unrouted") == 0)
        #expect(stats.channel("pair", "rtp_packets_lost") ?? 0 == 0)
    }

    @Test func aSecondPathChunkForAChannelWithoutOneIsUnrouted() {
        var pipeline = Traffic.pipeline([PlainUDPVideoTests.plain])
        var actions: [IngestAction] = []
        pipeline.ingest(stream: Traffic.tsBlock(0)[...], channelID: "plain", path: .secondary, timestampNanoseconds: 0, into: &actions)
        #expect(actions.allSatisfy { if case .transportStream = $0 { false } else { true } })
        #expect(pipeline.stats.total("stream_chunks_unrouted") == 1)
    }

    @Test func theSRTPathIsNoEndpointToJoin() {
        let pipeline = Traffic.pipeline([Self.channel(rtp: true)])
        #expect(pipeline.endpoints.filter { $0.group == Traffic.videoGroup }.map(\.port) == [5000])
        #expect(pipeline.otherInterfaces.isEmpty)
    }
}

/// ST 2022-7 with the second path on another capture interface (two NICs or VLANs), which may
/// reuse the primary's group and port: frames are routed by the interface they came from.
struct IngestOtherInterfaceTests {
    static func channel() -> GatewayConfig.StaticChannel {
        var channel = GatewayConfig.StaticChannel(name: "Dual", kind: .video, group: Traffic.videoGroup, port: 5000)
        channel.secondPath = SecondPath(endpoint: IngestEndpoint(group: Traffic.videoGroup, port: 5000), interface: "vlan20")
        return channel
    }

    @Test func theSameGroupOnTheOtherInterfaceIsTheSecondPathAndTheMergeIsHitless() {
        var pipeline = Traffic.pipeline([Self.channel()])
        #expect(pipeline.otherInterfaces == ["vlan20"])
        #expect(pipeline.endpoints(onInterface: "vlan20") == [IngestEndpoint(group: Traffic.videoGroup, port: 5000)])
        #expect(pipeline.endpoints.filter { $0.group == Traffic.videoGroup } == [IngestEndpoint(group: Traffic.videoGroup, port: 5000)])
        var actions: [IngestAction] = []
        for n in 0..<300 {
            let bytes = Traffic.rtp(UInt16(n), payload: Traffic.tsBlock(n))
            // The main interface loses 1 in 10 and is cut at 200; the other lags 5 ms and loses other packets until then.
            if n % 10 != 3 && n < 200 { pipeline.ingest(Traffic.datagram(bytes, at: Int64(n) * 1_000_000), into: &actions) }
            if n % 10 != 7 || n >= 200 {
                pipeline.ingest(Traffic.datagram(bytes, at: Int64(n) * 1_000_000 + 5_000_000), interface: "vlan20", into: &actions)
            }
        }
        actions += pipeline.tick(nowNanoseconds: 1_000_000_000)
        let out = Traffic.output(actions, channel: "dual")
        #expect(out.ts == (0..<300).flatMap(Traffic.tsBlock), "\(out.ts.count / 1316) blocks")
        #expect(out.gaps.isEmpty)
        let stats = pipeline.stats
        #expect(stats.channel("dual", "path_primary_packets") == 180 && stats.channel("dual", "path_secondary_packets") == 280)
        #expect(stats.channel("dual", "gaps") == 0)
    }

    @Test func aPrimaryCutOnItsInterfaceIsReportedDownWhileTheOtherDelivers() {
        var pipeline = Traffic.pipeline([Self.channel()])
        var actions: [IngestAction] = []
        for n in 0..<600 {
            let bytes = Traffic.rtp(UInt16(n), payload: Traffic.tsBlock(n))
            if n < 100 || n >= 500 { pipeline.ingest(Traffic.datagram(bytes, at: Int64(n) * 1_000_000), into: &actions) }
            pipeline.ingest(Traffic.datagram(bytes, at: Int64(n) * 1_000_000 + 1_000), interface: "vlan20", into: &actions)
        }
        let events = IngestSRTPairTests.events(actions)
        #expect(events == ["down:primary", "up:primary"])
        #expect(Traffic.output(actions, channel: "dual").gaps.isEmpty)
    }

    @Test func otherTrafficOnTheOtherInterfaceIsNotRouted() {
        var pipeline = Traffic.pipeline([Self.channel()])
        var actions: [IngestAction] = []
        // Another group, and SAP: only second paths are taken from that interface.
        pipeline.ingest(Traffic.datagram(Traffic.rtp(0, payload: Traffic.tsBlock(0)), to: IPAddress(parsing: "239.255.20.77")!),
                        interface: "vlan20", into: &actions)
        pipeline.ingest(Traffic.datagram([0x20, 0, 0, 1], to: IPAddress(parsing: "239.255.255.255")!, port: 9875), interface: "vlan20",
                        into: &actions)
        pipeline.ingest(Traffic.datagram(Traffic.rtp(0, payload: Traffic.tsBlock(0))), interface: "eth9", into: &actions)
        #expect(pipeline.stats.total("unknown_destination") == 3)
        #expect(Traffic.output(actions, channel: "dual").ts.isEmpty)
    }
}
