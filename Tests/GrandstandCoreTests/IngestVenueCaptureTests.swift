import Testing
import TestSupport
@testable import GrandstandCore

/// The venue capture of tools/fixtures/make-ingest-fixtures.py through the pipeline, ticking
/// once per capture second like replay does; every count is what the script's scenario implies.
struct IngestVenueCaptureTests {
    struct Run {
        var pipeline: IngestPipeline
        var ts: [String: [UInt8]] = [:]
        var messages: [String: [[UInt8]]] = [:]
        var changes: [String] = []
    }

    static func run(config: Bool) throws -> Run {
        let capture = try CoreFixtures.pcapFrames("ingest/venue.pcap")
        let link = try #require(LinkLayer(linkType: capture.linkType))
        var configuration = IngestConfiguration()
        if config {
            configuration = IngestConfiguration(config: try GatewayConfig.decode(try Fixtures.bytes("ingest/config.json")))
        }
        var run = Run(pipeline: IngestPipeline(configuration: configuration))
        func handle(_ actions: [IngestAction]) {
            for action in actions {
                switch action {
                case .channelsChanged(let changes):
                    for change in changes {
                        switch change {
                        case .added(let channel): run.changes.append("+\(channel.id)")
                        case .updated(let channel): run.changes.append("~\(channel.id)")
                        case .removed(let channel, let reason): run.changes.append("-\(channel.id) \(reason.rawValue)")
                        }
                    }
                case .transportStream(let id, let packets, _): run.ts[id, default: []] += packets
                case .dataMessage(let id, let payload, _): run.messages[id, default: []].append(Array(payload))
                case .gap, .fileDatagram, .path: break
                }
            }
        }
        var nextTick: Int64? = nil
        for (time, frame) in capture.frames {
            if nextTick.map({ time >= $0 }) ?? true {
                handle(run.pipeline.tick(nowNanoseconds: time))
                nextTick = (time / 1_000_000_000 + 1) * 1_000_000_000
            }
            handle(run.pipeline.ingest(frame: frame[...], link: link, timestampNanoseconds: time))
        }
        handle(run.pipeline.tick(nowNanoseconds: capture.frames.last?.0 ?? 0))
        return run
    }

    @Test func withTheVenueConfiguration() throws {
        let run = try Self.run(config: true)
        #expect(run.changes == ["+scoreboard-feed", "+bowl-cam-1", "+live-scores", "+concourse", "+bowl-cam-1-2", "+old-feed",
                                "-concourse deleted", "~bowl-cam-1", "-old-feed timeout"])
        #expect(run.pipeline.channels.map(\.id) == ["bowl-cam-1", "bowl-cam-1-2", "live-scores", "scoreboard-feed"])
        let stats = run.pipeline.stats
        // Registry.
        #expect(stats.total("num_channel_announcements_received") == 16)
        #expect(stats.total("compressedChannelAnnouncementsReceived") == 1)
        #expect(stats.total("num_channel_announcement_version_mismatches") == 1)
        #expect(stats.total("num_license_key_mismatches") == 2)
        #expect(stats.total("num_streamer_mismatches") == 1)
        #expect(stats.total("num_channels_deleted") == 1)
        #expect(stats.total("num_channels_timed_out") == 1)
        #expect(stats.total("num_channel_updates") == 1)
        // Bowl Cam 1: 29 of 30 sent once, one duplicate, two malformed RTP packets.
        #expect(stats.channel("bowl-cam-1", "packets_received") == 32)
        #expect(stats.channel("bowl-cam-1", "rtp_packets_lost") == 1)
        #expect(stats.channel("bowl-cam-1", "rtp_packets_duplicate") == 1)
        #expect(stats.channel("bowl-cam-1", "gap_packets") == 1)
        #expect(stats.channel("bowl-cam-1", "num_ts_discontinuities") == 2)
        #expect(stats.channel("bowl-cam-1", "odd_sized_datagrams") == 1)
        #expect(stats.channel("bowl-cam-1", "ts_packets") == 29 * 7 - 1)
        #expect(stats.channel("bowl-cam-1", "fec_packets_received") == 2)
        #expect(stats.channel("bowl-cam-1", "num_channel_announcements_received") == 4)
        #expect(stats.drops(.rtpBadVersion, channel: "bowl-cam-1") == 1)
        #expect(stats.drops(.rtpTruncated, channel: "bowl-cam-1") == 1)
        #expect(stats.drops(.tsLostSync, channel: "bowl-cam-1") == 1)
        #expect(stats.drops(.tsBadLength, channel: "bowl-cam-1") == 1)
        // Data channels.
        #expect(stats.channel("live-scores", "data_messages") == 6)
        #expect(stats.channel("live-scores", "rtp_packets_reordered") == 1)
        #expect(stats.channel("old-feed", "data_messages") == 2)
        #expect(stats.channel("scoreboard-feed", "data_messages") == 2)
        #expect(stats.channel("concourse", "ts_packets") == 21)
        // Frame-level garbage and strays.
        #expect(stats.total("frames_received") == capture().count)
        #expect(stats.drops(.linkTruncated) == 1)
        #expect(stats.drops(.ipv4BadChecksum) == 1)
        #expect(stats.drops(.ipv4Truncated) == 2)
        #expect(stats.drops(.udpBadLength) == 1)
        #expect(stats.drops(.notIP) == 1)
        #expect(stats.drops(.sapTruncated) == 1)
        #expect(stats.drops(.sdpInvalid) == 1)
        #expect(stats.drops(.sapVersionMismatch) == 1)
        #expect(stats.total("unknown_destination") == 5)
        // Outputs.
        let expectedTS = try Fixtures.bytes("ingest/bowl-cam-1.expected.ts")
        #expect(run.ts["bowl-cam-1"] == expectedTS)
        #expect(run.messages["scoreboard-feed"] == [Array("score 1-0".utf8), Array("score 2-0".utf8)])
        #expect(run.messages["old-feed"] == [Array("old-1".utf8), Array("old-2".utf8)])
        #expect(run.messages["live-scores"]?.map(\.count) == [1, 1400, 100, 0, 37, 5])
    }

    @Test func withoutConfigurationNothingIsRefused() throws {
        let run = try Self.run(config: false)
        let stats = run.pipeline.stats
        #expect(stats.total("num_license_key_mismatches") == 0)
        #expect(stats.total("num_streamer_mismatches") == 0)
        #expect(run.changes.contains("+rival-feed"))
        #expect(run.changes.contains("+pirate"))
        #expect(run.changes.contains("+no-license"))
        #expect(!run.changes.contains("+scoreboard-feed"))
        // Announced once, so retired after the 60 s minimum like Old Feed.
        #expect(run.changes.contains("-rival-feed timeout"))
        #expect(run.pipeline.channels.map(\.id) == ["bowl-cam-1", "bowl-cam-1-2", "live-scores"])
        // Rival Feed's two packets now reach a channel; the static Scoreboard Feed's two do not.
        #expect(stats.channel("rival-feed", "packets_received") == 2)
        #expect(stats.total("unknown_destination") == 5 - 2 + 2)
    }

    private func capture() -> [(Int64, [UInt8])] { (try? CoreFixtures.pcapFrames("ingest/venue.pcap").frames) ?? [] }

    @Test func theExpectedStreamIsTheSentStreamMinusWhatWasLost() throws {
        let sent = try Fixtures.bytes("ingest/bowl-cam-1.sent.ts")
        let expected = try Fixtures.bytes("ingest/bowl-cam-1.expected.ts")
        // RTP packet 12 (TS packets 84..<91) was never sent; TS packet 27*7+3 had a bad sync byte.
        var rebuilt: [UInt8] = []
        for index in 0..<(sent.count / 188) where !(84..<91).contains(index) && index != 27 * 7 + 3 {
            rebuilt += sent[(index * 188)..<(index * 188 + 188)]
        }
        #expect(rebuilt == expected)
    }
}
