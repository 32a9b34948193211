import Testing
import TestSupport
@testable import GrandstandCore

/// SRT static channels: the `srt` object of a channel (docs/ingest.md "SRT channels"), every bad
/// value refused with its JSON path, and the pipeline's entry keyed by channel id rather than
/// (group, port).
struct SRTChannelConfigTests {
    static func channels(_ items: String) throws -> [GatewayConfig.StaticChannel] {
        try ConfigIngestTests.decode(#""channels":[\#(items)]"#).channels
    }

    static func issues(_ items: String) -> [String] { ConfigIngestTests.issues(#""channels":[\#(items)]"#) }

    static func srt(_ members: String, extra: String = "") -> String {
        #"{"name":"Backup","kind":"video"\#(extra),"srt":{\#(members)}}"#
    }

    @Test func callerAndListenerChannelsDecode() throws {
        let decoded = try Self.channels(Self.srt(#""url":"srt://203.0.113.5:9000","mode":"caller","passphrase":"venue-backup-1","keyLength":32,"latencyMilliseconds":400"#)
            + "," + #"{"name":"Truck","kind":"video","srt":{"url":"srt://:9001","mode":"listener"}}"#)
        #expect(decoded.count == 2)
        #expect(decoded[0].srt == SRTSource(host: "203.0.113.5", port: 9000, mode: .caller, passphrase: "venue-backup-1", keyLength: 32,
                                            latencyMilliseconds: 400))
        #expect(decoded[0].group == nil && decoded[0].kind == .video && !decoded[0].rtp)
        #expect(decoded[1].srt == SRTSource(host: "", port: 9001, mode: .listener))
        #expect(decoded[1].srt?.latencyMilliseconds == 120 && decoded[1].srt?.passphrase == nil)
        let ipv6 = try Self.channels(Self.srt(#""url":"srt://[2001:db8::5]:9000","mode":"caller""#))
        #expect(ipv6[0].srt?.host == "2001:db8::5" && ipv6[0].srt?.url == "srt://[2001:db8::5]:9000")
    }

    @Test(arguments: [
        (#""url":"udp://1.2.3.4:9000","mode":"caller""#, #"$.channels[0].srt.url: "udp://1.2.3.4:9000" must start with srt://"#),
        (#""url":"srt://1.2.3.4","mode":"caller""#, #"$.channels[0].srt.url: "srt://1.2.3.4" has no :port"#),
        (#""url":"srt://1.2.3.4:0","mode":"caller""#, #"$.channels[0].srt.url: "srt://1.2.3.4:0" "0" is not a port (1...65535)"#),
        (#""url":"srt://1.2.3.4:9000?mode=caller","mode":"caller""#,
         #"$.channels[0].srt.url: "srt://1.2.3.4:9000?mode=caller" has a path or query: give mode, passphrase and latency as their own keys"#),
        (#""url":"srt://:9000","mode":"caller""#, "$.channels[0].srt.url: a caller needs the peer's host (srt://host:port)"),
        (#""url":"srt://1.2.3.4:9000","mode":"rendezvous""#, #"$.channels[0].srt.mode: "rendezvous" is not an SRT mode (caller, listener)"#),
        (#""url":"srt://1.2.3.4:9000""#, "$.channels[0].srt.mode: required string is missing"),
        (#""url":"srt://1.2.3.4:9000","mode":"caller","passphrase":"short1234""#,
         "$.channels[0].srt.passphrase: must be 10 to 79 characters long (SRT), not 9"),
        (#""url":"srt://1.2.3.4:9000","mode":"caller","passphrase":"pppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp""#,
         "$.channels[0].srt.passphrase: must be 10 to 79 characters long (SRT), not 80"),
        (#""url":"srt://1.2.3.4:9000","mode":"caller","passphrase":"long-enough-1","keyLength":20"#,
         "$.channels[0].srt.keyLength: 20 is not an AES key length in bytes (16, 24, 32)"),
        (#""url":"srt://1.2.3.4:9000","mode":"caller","keyLength":16"#, "$.channels[0].srt.keyLength: only meaningful with a passphrase"),
        (#""url":"srt://1.2.3.4:9000","mode":"caller","latencyMilliseconds":5"#,
         "$.channels[0].srt.latencyMilliseconds: 5 is out of range 20...60000"),
        (#""url":"srt://1.2.3.4:9000","mode":"caller","streamid":"x""#,
         "$.channels[0].srt.streamid: unknown key (expected one of: keyLength, latencyMilliseconds, mode, passphrase, url)"),
    ])
    func badSRTSettingsAreRefusedWithTheirPath(members: String, issue: String) {
        #expect(Self.issues(Self.srt(members)) == [issue])
    }

    @Test func multicastKeysFECAndOtherKindsAreRefusedOnAnSRTChannel() throws {
        let caller = #""url":"srt://1.2.3.4:9000","mode":"caller""#
        #expect(Self.issues(Self.srt(caller, extra: #","fec":{"scheme":"smpte2022-1"}"#))
                == ["$.channels[0].fec: SRT recovers loss by retransmission within its latency; leave fec out"])
        #expect(Self.issues(Self.srt(caller, extra: #","group":"239.1.1.1","port":5000"#))
                == ["$.channels[0].group: not used by an SRT channel (the address is srt.url)",
                    "$.channels[0].port: not used by an SRT channel (the address is srt.url)"])
        #expect(Self.issues(Self.srt(caller, extra: #","secondary":{"group":"239.1.1.2","port":5000}"#))
                == ["$.channels[0].secondary: an SRT channel takes no second path: make the multicast stream the channel and give SRT as its secondary ({\"srt\":{…}})"])
        #expect(try Self.channels(Self.srt(caller, extra: #","programs":[2]"#)).first?.programs == .only([2]))
        let data = #"{"name":"D","kind":"data","srt":{\#(caller)}}"#
        #expect(Self.issues(data) == ["$.channels[0].kind: an SRT channel carries MPEG-TS: kind must be video"])
    }

    /// The fixture (also a seed of the config fuzz target) decodes: SRT beside multicast channels.
    @Test func theSRTFixtureDecodes() throws {
        let config = try GatewayConfig.decode(try Fixtures.bytes("ingest/srt-config.json"))
        #expect(config.channels.map(\.srt?.mode) == [.caller, .listener, nil])
        #expect(config.channels[0].srt?.keyLength == 32 && config.channels[2].group != nil)
    }

    @Test func twoListenersOnOnePortAreRefused() {
        let listener = Self.srt(#""url":"srt://:9000","mode":"listener""#)
        #expect(Self.issues(listener + "," + listener) == [#"$.channels[1].srt: srt://:9000 (listener) is already used by $.channels[0]"#])
    }

    @Test func theChannelListShowsTheSourceButNeverThePassphrase() throws {
        let configured = try Self.channels(Self.srt(#""url":"srt://203.0.113.5:9000","mode":"caller","passphrase":"venue-backup-1""#))
        let registry = ChannelRegistry(policy: .permissive, staticChannels: configured)
        let channel = try #require(registry.channel(id: "backup"))
        #expect(channel.endpoints.isEmpty && channel.group == nil && channel.port == 9000)
        let json = channel.json.encoded
        #expect(json.contains(#""transport":"srt""#))
        #expect(json.contains(#""srt":{"encrypted":true,"keyLength":16,"latencyMilliseconds":120,"mode":"caller","url":"srt://203.0.113.5:9000"}"#), "\(json)")
        #expect(!json.contains("venue-backup-1"))
    }
}

/// The pipeline's stream entry: an SRT channel's messages are plain TS of that channel, loss
/// found from continuity counters, under the same stats keys as a plain-UDP channel.
struct StreamIngestTests {
    static let source = SRTSource(host: "", port: 9000, mode: .listener)

    static func pipeline() -> IngestPipeline {
        var channel = GatewayConfig.StaticChannel(name: "Backup", kind: .video, group: nil, port: 9000, rtp: false)
        channel.srt = source
        return Traffic.pipeline([channel, PlainUDPVideoTests.plain])
    }

    @Test func messagesBecomeTheChannelsTransportStreamAndLossAGap() {
        var pipeline = Self.pipeline()
        var actions: [IngestAction] = []
        for index in 0..<8 where index != 4 {
            pipeline.ingest(stream: Traffic.tsBlock(index)[...], channelID: "backup", timestampNanoseconds: Int64(index), into: &actions)
        }
        let out = Traffic.output(actions, channel: "backup")
        #expect(out.ts == (0..<8).filter { $0 != 4 }.flatMap(Traffic.tsBlock))
        #expect(out.gaps == [7])
        let stats = pipeline.stats
        #expect(stats.channel("backup", "ts_packets") == 49 && stats.channel("backup", "gap_packets") == 7)
        #expect(stats.channel("backup", "packets_received") == 7)
        #expect(stats.total("stream_chunks_received") == 7 && stats.total("stream_chunks_unrouted") == 0)
        // Nothing reached the multicast channel, and its (group, port) routing is unchanged.
        #expect(Traffic.output(actions, channel: "plain").ts.isEmpty)
        #expect(pipeline.endpoints.contains(IngestEndpoint(group: Traffic.videoGroup, port: 5004)))
    }

    @Test func garbageIsCountedAndDroppedNeverDelivered() {
        var pipeline = Self.pipeline()
        var actions: [IngestAction] = []
        var random = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            let junk = (0..<Int.random(in: 1...1456, using: &random)).map { _ in UInt8.random(in: 0...0x46, using: &random) }
            pipeline.ingest(stream: junk[...], channelID: "backup", timestampNanoseconds: 0, into: &actions)
        }
        #expect(Traffic.output(actions, channel: "backup").ts.isEmpty)
        #expect(pipeline.stats.channel("backup", "packets_received") == 50)
        // TS again after the garbage is found and delivered.
        for index in 0..<3 {
            pipeline.ingest(stream: Traffic.tsBlock(index)[...], channelID: "backup", timestampNanoseconds: 1, into: &actions)
        }
        #expect(!Traffic.output(actions, channel: "backup").ts.isEmpty)
    }

    /// A multi-program TS over SRT is split into one channel per program, as on multicast.
    @Test func aMultiProgramStreamIsSplitIntoItsPrograms() throws {
        var channel = GatewayConfig.StaticChannel(name: "Venue Mux", kind: .video, group: nil, port: 9000, rtp: false)
        channel.srt = Self.source
        var pipeline = Traffic.pipeline([channel])
        let bytes = try MultiplexFixture.bytes()
        var actions: [IngestAction] = []
        for (n, offset) in stride(from: 0, to: bytes.count, by: 1316).enumerated() {
            let chunk = bytes[offset..<min(offset + 1316, bytes.count)]
            pipeline.ingest(stream: chunk, channelID: "venue-mux", timestampNanoseconds: Int64(n) * 10_000_000, into: &actions)
        }
        #expect(pipeline.channels.map(\.id) == ["bowl-cam", "stadium-radio", "tunnel-cam", "venue-mux"])
        #expect(pipeline.channels.last?.kind == .multiplex && pipeline.channels.last?.srt == Self.source)
        #expect(!Traffic.output(actions, channel: "bowl-cam").ts.isEmpty)
        #expect(Traffic.output(actions, channel: "venue-mux").ts.isEmpty, "the multiplex itself is not served once split")
    }

    @Test func chunksForAChannelThatIsNotAStreamAreUnrouted() {
        var pipeline = Self.pipeline()
        var actions: [IngestAction] = []
        pipeline.ingest(stream: Traffic.tsBlock(0)[...], channelID: "nope", timestampNanoseconds: 0, into: &actions)
        pipeline.ingest(stream: Traffic.tsBlock(0)[...], channelID: "scores", timestampNanoseconds: 0, into: &actions)
        #expect(pipeline.stats.total("stream_chunks_unrouted") == 2)
        #expect(actions.allSatisfy { if case .channelsChanged = $0 { true } else { false } })
    }
}

struct ReconnectBackoffTests {
    @Test func doublesToItsCapAndStartsOverAfterAConnection() {
        var backoff = ReconnectBackoff(initialNanoseconds: 250, capNanoseconds: 2_000)
        #expect((0..<6).map { _ in backoff.failed() } == [250, 500, 1_000, 2_000, 2_000, 2_000])
        backoff.connected()
        #expect(backoff.failed() == 250)
        var long = ReconnectBackoff(initialNanoseconds: 1, capNanoseconds: .max)
        for _ in 0..<100 { #expect(long.failed() > 0) }
    }
}
