import Testing
import TestSupport
@testable import GrandstandCore

/// Datagrams and RTP/TS payloads for pipeline tests.
enum Traffic {
    static let streamer = Endpoint(address: IPAddress(parsing: "10.1.2.3")!, port: 40000)
    static let videoGroup = IPAddress(parsing: "239.255.20.1")!
    static let dataGroup = IPAddress(parsing: "239.255.20.9")!

    static func datagram(_ payload: [UInt8], to group: IPAddress = videoGroup, port: UInt16 = 5000,
                         from source: Endpoint = streamer, at time: Int64 = 0) -> Datagram {
        Datagram(source: source, destination: Endpoint(address: group, port: port), payload: payload[...],
                 timestampNanoseconds: time, hopLimit: 16)
    }

    static func rtp(_ sequence: UInt16, payload: [UInt8], payloadType: UInt8 = 33, timestamp: UInt32 = 0) -> [UInt8] {
        var bytes: [UInt8] = [0x80, payloadType, UInt8(sequence >> 8), UInt8(sequence & 0xFF)]
        bytes += [UInt8(timestamp >> 24), UInt8(timestamp >> 16 & 0xFF), UInt8(timestamp >> 8 & 0xFF), UInt8(timestamp & 0xFF)]
        bytes += [0x0B, 0x0B, 0x00, 0x01]
        bytes.append(contentsOf: payload)
        return bytes
    }

    static func tsPacket(pid: UInt16 = 0x100, counter: Int, fill: UInt8 = 0) -> [UInt8] {
        var packet: [UInt8] = [0x47, UInt8(pid >> 8), UInt8(pid & 0xFF), 0x10 | UInt8(counter & 0x0F)]
        packet.append(contentsOf: [UInt8](repeating: fill, count: 184))
        return packet
    }

    /// The 7 TS packets RTP packet number `index` carries (continuity counters index*7…).
    static func tsBlock(_ index: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        for j in 0..<7 { bytes += tsPacket(counter: index * 7 + j, fill: UInt8(truncatingIfNeeded: index * 7 + j)) }
        return bytes
    }

    static let video = GatewayConfig.StaticChannel(name: "Bowl", kind: .video, group: videoGroup, port: 5000,
                                                   fec: .smpte2022_1(columns: 5, rows: 4))
    static let rtpData = GatewayConfig.StaticChannel(name: "Scores", kind: .data, group: dataGroup, port: 5100)
    static let udpData = GatewayConfig.StaticChannel(name: "Raw", kind: .data, group: dataGroup, port: 5200, rtp: false)

    static func pipeline(_ channels: [GatewayConfig.StaticChannel] = [video, rtpData, udpData]) -> IngestPipeline {
        IngestPipeline(configuration: IngestConfiguration(policy: RegistryPolicy(license: Announce.box), staticChannels: channels))
    }

    /// The TS bytes and gap sizes in `actions`, for one channel.
    static func output(_ actions: [IngestAction], channel: String) -> (ts: [UInt8], gaps: [Int], messages: [[UInt8]]) {
        var ts: [UInt8] = [], gaps: [Int] = [], messages: [[UInt8]] = []
        for action in actions {
            switch action {
            case .transportStream(let id, let packets, _) where id == channel: ts += packets
            case .gap(let id, let lost, _) where id == channel: gaps.append(lost)
            case .dataMessage(let id, let payload, _) where id == channel: messages.append(Array(payload))
            default: break
            }
        }
        return (ts, gaps, messages)
    }
}

struct IngestPipelineTests {
    @Test func staticChannelsAreAnnouncedWithTheFirstOutput() {
        var pipeline = Traffic.pipeline()
        #expect(pipeline.channels.map(\.id) == ["bowl", "raw", "scores"])
        let first = pipeline.tick(nowNanoseconds: 0)
        #expect(first == [.channelsChanged(pipeline.channels.map { .added($0) })])
        #expect(pipeline.tick(nowNanoseconds: 1).isEmpty)
    }

    @Test func endpointsCoverSAPGroupsMediaAndRepairPorts() {
        let pipeline = Traffic.pipeline([Traffic.video])
        #expect(pipeline.endpoints.map(\.description) == [
            "224.2.127.254:9875", "239.255.20.1:5000", "239.255.20.1:5002", "239.255.20.1:5004", "239.255.255.255:9875",
            "[ff0e::2:7ffe]:9875",
        ])
    }

    @Test func lossReorderAndDuplicatesAreCountedExactly() {
        var pipeline = Traffic.pipeline()
        var actions: [IngestAction] = []
        let order: [Int] = [0, 1, 2, 4, 5, 3, 5, 7, 8, 9]
        for (n, index) in order.enumerated() {
            let packet = Traffic.rtp(UInt16(index), payload: Traffic.tsBlock(index), timestamp: UInt32(index * 1800))
            actions += pipeline.ingest(Traffic.datagram(packet, at: Int64(n) * 20_000_000))
        }
        let out = Traffic.output(actions, channel: "bowl")
        var expected: [UInt8] = []
        for index in [0, 1, 2, 4, 5, 7, 8, 9] { expected += Traffic.tsBlock(index) }
        #expect(out.ts == expected)
        #expect(out.gaps == [1, 1])
        let stats = pipeline.stats
        #expect(stats.channel("bowl", "packets_received") == 10)
        #expect(stats.channel("bowl", "rtp_packets_lost") == 1)        // 3 came late; 6 never came
        #expect(stats.channel("bowl", "rtp_packets_reordered") == 1)
        #expect(stats.channel("bowl", "rtp_packets_duplicate") == 1)
        #expect(stats.channel("bowl", "late_packets_discarded") == 1)
        #expect(stats.channel("bowl", "gaps") == 2)
        #expect(stats.channel("bowl", "gap_packets") == 2)
        #expect(stats.channel("bowl", "num_ts_discontinuities") == 2)
        #expect(stats.channel("bowl", "ts_packets") == 56)
        #expect(stats.channel("bowl", "total_num_bytes_written") == 56 * 188)
        #expect(stats.total("rtp_packets_lost") == 1)
        #expect(stats.total("num_ts_discontinuities") == 2)
    }

    @Test func gapComesBeforeThePacketAfterIt() {
        var pipeline = Traffic.pipeline([Traffic.video])
        _ = pipeline.ingest(Traffic.datagram(Traffic.rtp(10, payload: Traffic.tsBlock(0))))
        let actions = pipeline.ingest(Traffic.datagram(Traffic.rtp(13, payload: Traffic.tsBlock(3)), at: 5))
        guard actions.count == 2, case .gap("bowl", 2, 5) = actions[0], case .transportStream("bowl", _, 5) = actions[1] else {
            Issue.record("unexpected \(actions)")
            return
        }
    }

    @Test func sequenceWrapIsNotLoss() {
        var pipeline = Traffic.pipeline([Traffic.video])
        var actions: [IngestAction] = []
        for (n, sequence) in [UInt16(65534), 65535, 0, 1].enumerated() {
            actions += pipeline.ingest(Traffic.datagram(Traffic.rtp(sequence, payload: Traffic.tsBlock(n))))
        }
        #expect(Traffic.output(actions, channel: "bowl").gaps.isEmpty)
        #expect(pipeline.stats.channel("bowl", "rtp_packets_lost") == 0)
        #expect(pipeline.stats.channel("bowl", "ts_packets") == 28)
        #expect(pipeline.stats.channel("bowl", "num_ts_discontinuities") == 0)
    }

    @Test func tsDuplicatesBadPacketsAndOddSizes() {
        var pipeline = Traffic.pipeline([Traffic.video])
        var payload = Traffic.tsPacket(counter: 0)
        payload += Traffic.tsPacket(counter: 1)
        payload += Traffic.tsPacket(counter: 1)          // a duplicate: dropped
        var broken = Traffic.tsPacket(counter: 2)
        broken[0] = 0x46                                 // lost sync: dropped
        payload += broken
        payload += Traffic.tsPacket(counter: 3)          // counter 2 never arrived intact: a discontinuity
        payload += Traffic.tsPacket(pid: 0x1FFF, counter: 9)
        payload += [1, 2, 3]                             // trailing bytes: ts_bad_length, odd size
        let actions = pipeline.ingest(Traffic.datagram(Traffic.rtp(1, payload: payload)))
        var expected = Traffic.tsPacket(counter: 0)
        expected += Traffic.tsPacket(counter: 1)
        expected += Traffic.tsPacket(counter: 3)
        expected += Traffic.tsPacket(pid: 0x1FFF, counter: 9)
        #expect(Traffic.output(actions, channel: "bowl").ts == expected)
        let stats = pipeline.stats
        #expect(stats.channel("bowl", "ts_duplicates_dropped") == 1)
        #expect(stats.channel("bowl", "num_ts_discontinuities") == 1)
        #expect(stats.channel("bowl", "odd_sized_datagrams") == 1)
        #expect(stats.drops(.tsLostSync, channel: "bowl") == 1)
        #expect(stats.drops(.tsBadLength, channel: "bowl") == 1)
        #expect(stats.drops(.tsBadLength) == 1)
        #expect(stats.channel("bowl", "ts_packets") == 4)
    }

    @Test func dataMessagesAreDeliveredWhole() {
        var pipeline = Traffic.pipeline()
        var actions: [IngestAction] = []
        let sizes = [0, 1, 1400, 9000]
        var expected: [[UInt8]] = []
        for (n, size) in sizes.enumerated() {
            let message = (0..<size).map { UInt8(truncatingIfNeeded: $0 * 7 + n) }
            expected.append(message)
            actions += pipeline.ingest(Traffic.datagram(Traffic.rtp(UInt16(n), payload: message, payloadType: 98),
                                                        to: Traffic.dataGroup, port: 5100))
            actions += pipeline.ingest(Traffic.datagram(message, to: Traffic.dataGroup, port: 5200))
        }
        #expect(Traffic.output(actions, channel: "scores").messages == expected)
        #expect(Traffic.output(actions, channel: "raw").messages == expected)
        #expect(pipeline.stats.channel("scores", "data_messages") == 4)
        #expect(pipeline.stats.channel("raw", "total_num_bytes_written") == 10401)
    }

    @Test func lateDataMessagesAreStillDelivered() {
        var pipeline = Traffic.pipeline([Traffic.rtpData])
        var actions: [IngestAction] = []
        for sequence in [UInt16(1), 3, 2, 2] {
            actions += pipeline.ingest(Traffic.datagram(Traffic.rtp(sequence, payload: [UInt8(sequence)], payloadType: 98),
                                                        to: Traffic.dataGroup, port: 5100))
        }
        #expect(Traffic.output(actions, channel: "scores").messages == [[1], [3], [2]])
        #expect(pipeline.stats.channel("scores", "rtp_packets_reordered") == 1)
        #expect(pipeline.stats.channel("scores", "rtp_packets_duplicate") == 1)
        #expect(pipeline.stats.channel("scores", "rtp_packets_lost") == 0)
    }

    @Test func repairPortsUnknownDestinationsAndSourceFilters() {
        var filtered = Traffic.rtpData
        filtered.source = IPAddress(parsing: "10.1.2.3")
        var pipeline = Traffic.pipeline([Traffic.video, filtered])
        _ = pipeline.ingest(Traffic.datagram([0x80, 0x60, 0, 0], port: 5002))
        _ = pipeline.ingest(Traffic.datagram([0x80, 0x60, 0, 0], port: 5004))
        _ = pipeline.ingest(Traffic.datagram([1], port: 5006))
        _ = pipeline.ingest(Traffic.datagram([1], to: IPAddress(parsing: "239.1.1.1")!, port: 5000))
        let stranger = Endpoint(address: IPAddress(parsing: "10.6.6.6")!, port: 1)
        let refused = pipeline.ingest(Traffic.datagram(Traffic.rtp(1, payload: [1], payloadType: 98), to: Traffic.dataGroup,
                                                       port: 5100, from: stranger))
        let accepted = pipeline.ingest(Traffic.datagram(Traffic.rtp(1, payload: [1], payloadType: 98), to: Traffic.dataGroup,
                                                        port: 5100))
        #expect(Traffic.output(refused, channel: "scores").messages.isEmpty)
        #expect(Traffic.output(accepted, channel: "scores").messages == [[1]])
        let stats = pipeline.stats
        #expect(stats.channel("bowl", "fec_packets_received") == 2)
        #expect(stats.total("unknown_destination") == 2)
        #expect(stats.channel("scores", "unexpected_source") == 1)
    }

    @Test func announcedChannelsRouteUntilDeleted() throws {
        var pipeline = IngestPipeline(configuration: IngestConfiguration(policy: RegistryPolicy(license: Announce.box)))
        let sap = Announce.packet(Announce.sdp(name: "Bowl", session: 5))
        let sapGroup = IPAddress(parsing: "239.255.255.255")!
        let added = pipeline.ingest(Traffic.datagram(sap, to: sapGroup, port: 9875))
        let channel = try #require(pipeline.channels.first)
        #expect(added == [.channelsChanged([.added(channel)])])
        let media = pipeline.ingest(Traffic.datagram(Traffic.rtp(1, payload: Traffic.tsBlock(0)), at: 1))
        #expect(Traffic.output(media, channel: "bowl").ts == Traffic.tsBlock(0))
        let removed = pipeline.ingest(Traffic.datagram(Announce.deletion(session: 5), to: sapGroup, port: 9875, at: 2))
        #expect(removed == [.channelsChanged([.removed(channel, reason: .deleted)])])
        #expect(pipeline.ingest(Traffic.datagram(Traffic.rtp(2, payload: Traffic.tsBlock(1)), at: 3)).isEmpty)
        let stats = pipeline.stats
        #expect(stats.total("unknown_destination") == 1)
        #expect(stats.channel("bowl", "ts_packets") == 7)
        #expect(stats.channels["bowl"]?["listed"] == .bool(false))
        #expect(stats.channels["bowl"]?["announcement_session_id"] == .string("5"))
        #expect(stats.channels["bowl"]?["announcement_session_title"] == .string("Bowl"))
        #expect(stats.total("num_channel_announcements_received") == 1)
        // SAP to a group not listened to is not SAP.
        _ = pipeline.ingest(Traffic.datagram(sap, to: IPAddress(parsing: "239.1.2.3")!, port: 9875))
        #expect(pipeline.stats.total("unknown_destination") == 2)
        #expect(pipeline.stats.total("sap_packets_received") == 2)
    }

    @Test func statsRenderDeterministicallyWithSortedKeys() {
        func run() -> String {
            var pipeline = Traffic.pipeline()
            for index in [0, 2, 1, 3] {
                _ = pipeline.ingest(Traffic.datagram(Traffic.rtp(UInt16(index), payload: Traffic.tsBlock(index)),
                                                     at: Int64(index) * 1_000_003))
            }
            return pipeline.stats.encoded
        }
        let text = run()
        #expect(text == run())
        #expect(text.hasPrefix(#"{"channels":{"bowl":{"announcement_session_id":"","announcement_session_title":"Bowl","bytes_received":"#))
        #expect(text.hasSuffix("}}\n"))
        guard case .object(let total)? = pipeline(text)["total"] else {
            Issue.record("no total")
            return
        }
        #expect(total.map(\.key) == total.map(\.key).sorted())
    }

    private func pipeline(_ text: String) -> JSONValue {
        (try? JSONParser.parse(Array(text.utf8))) ?? .null
    }
}

struct IngestFileChannelTests {
    @Test func fileChannelPacketsGoToTheFileReceiverNotAsData() {
        var pipeline = IngestPipeline(configuration: IngestConfiguration(policy: .permissive))
        let sdp = Announce.sdp(name: "Files", media: ["m=application 6000 FLUTE/UDP 0", "a=x-grandstand-kind:file"])
        _ = pipeline.ingest(Traffic.datagram(Announce.packet(sdp), to: IPAddress(parsing: "239.255.255.255")!, port: 9875))
        #expect(pipeline.channels.first?.kind == .file)
        let actions = pipeline.ingest(Traffic.datagram([1, 2, 3], port: 6000))
        // Whole payloads for the FLUTE receiver (docs/files.md), never data messages.
        #expect(actions.count == 1)
        if case .fileDatagram(let id, let payload, _)? = actions.first {
            #expect(id == "files" && Array(payload) == [1, 2, 3])
        } else {
            Issue.record("expected a fileDatagram, got \(actions)")
        }
        #expect(pipeline.stats.channel("files", "packets_received") == 1)
        #expect(pipeline.stats.channel("files", "data_messages") == 0)
    }
}

struct IngestSAPGroupTests {
    @Test func ipv6AndConfiguredSAPGroups() throws {
        let v6Group = try #require(IPAddress(parsing: "ff0e::2:7ffe"))
        let v6Streamer = Endpoint(address: try #require(IPAddress(parsing: "fd00::3")), port: 9875)
        var pipeline = IngestPipeline(configuration: IngestConfiguration(policy: .permissive))
        let sap = SAPMessage.encode(kind: .announcement, origin: v6Streamer.address, messageIDHash: 7,
                                    payload: Array(Announce.sdp(name: "Six").utf8))
        _ = pipeline.ingest(Traffic.datagram(sap, to: v6Group, port: 9875, from: v6Streamer))
        #expect(pipeline.channels.map(\.id) == ["six"])
        #expect(pipeline.channels.first?.streamer == v6Streamer.address)

        let custom = try #require(IPAddress(parsing: "239.195.255.255"))
        var configured = IngestPipeline(configuration: IngestConfiguration(policy: .permissive, sapGroups: [custom]))
        _ = configured.ingest(Traffic.datagram(Announce.packet(Announce.sdp(name: "Default")),
                                               to: IPAddress(parsing: "239.255.255.255")!, port: 9875))
        _ = configured.ingest(Traffic.datagram(Announce.packet(Announce.sdp(name: "Custom", session: 2)), to: custom, port: 9875))
        #expect(configured.channels.map(\.id) == ["custom"])
        #expect(configured.stats.total("unknown_destination") == 1)
        #expect(configured.endpoints.first == IngestEndpoint(group: custom, port: 9875))
    }
}

/// MPEG-TS in plain UDP datagrams (no RTP header): loss is what the TS continuity counters show
/// missing, reported as a gap before the datagram after it, under the same stats keys as RTP.
struct PlainUDPVideoTests {
    static let plain = GatewayConfig.StaticChannel(name: "Plain", kind: .video, group: Traffic.videoGroup, port: 5004, rtp: false)

    static func run(dropping dropped: Set<Int>, count: Int = 8) -> (actions: [IngestAction], stats: IngestStats) {
        var pipeline = Traffic.pipeline([plain])
        var actions: [IngestAction] = []
        for index in 0..<count where !dropped.contains(index) {
            actions += pipeline.ingest(Traffic.datagram(Traffic.tsBlock(index), port: 5004, at: Int64(index)))
        }
        return (actions, pipeline.stats)
    }

    @Test func wholeStreamPassesWithoutGaps() {
        let (actions, stats) = Self.run(dropping: [])
        let out = Traffic.output(actions, channel: "plain")
        #expect(out.ts == (0..<8).flatMap(Traffic.tsBlock))
        #expect(out.gaps.isEmpty)
        #expect(stats.channel("plain", "ts_packets") == 56 && stats.channel("plain", "gaps") == 0)
        #expect(stats.channel("plain", "rtp_packets_lost") == 0)
    }

    /// One lost datagram is 7 TS packets of the PID; two in a row are 14 (under 16, the counter's
    /// modulus: a longer burst on one PID is undercounted, and documented so).
    @Test(arguments: [([3], [7]), ([2, 3], [14]), ([1, 5], [7, 7])])
    func lostDatagramsBecomeGapsBeforeTheNextOne(dropped: [Int], gaps: [Int]) {
        let (actions, stats) = Self.run(dropping: Set(dropped))
        let out = Traffic.output(actions, channel: "plain")
        #expect(out.gaps == gaps)
        #expect(out.ts == (0..<8).filter { !dropped.contains($0) }.flatMap(Traffic.tsBlock))
        #expect(stats.channel("plain", "gaps") == gaps.count && stats.channel("plain", "gap_packets") == gaps.reduce(0, +))
        #expect(stats.channel("plain", "num_ts_discontinuities") == gaps.count)
        // Each gap goes out right before the datagram that revealed it.
        let revealing = Set(dropped.map { $0 + 1 }.filter { !dropped.contains($0) })
        for (index, action) in actions.enumerated() {
            guard case .transportStream(_, _, let time) = action, revealing.contains(Int(time)) else { continue }
            guard index > 0, case .gap = actions[index - 1] else { Issue.record("no gap before datagram \(time): \(actions)"); continue }
        }
    }

    /// FFmpeg's `udp://` at its defaults: 1,472-byte datagrams cut packets in two; the stream
    /// comes out whole, and a lost datagram is a gap (its cut neighbour dropped, sync regained).
    @Test(arguments: [nil, 3])
    func ffmpegSizedDatagramsAreReassembled(lost: Int?) {
        let stream = (0..<16).flatMap(Traffic.tsBlock)   // 112 packets on one PID
        let datagrams = stride(from: 0, to: stream.count, by: 1472).map { Array(stream[$0..<min($0 + 1472, stream.count)]) }
        var pipeline = Traffic.pipeline([Self.plain])
        var actions: [IngestAction] = []
        for (index, datagram) in datagrams.enumerated() where index != lost {
            actions += pipeline.ingest(Traffic.datagram(datagram, port: 5004, at: Int64(index)))
        }
        let out = Traffic.output(actions, channel: "plain")
        let stats = pipeline.stats
        #expect(stats.channel("plain", "odd_sized_datagrams") == datagrams.count - (lost == nil ? 0 : 1))
        if let lost {
            // Packets wholly inside the lost datagram, plus the two cut at its ends, are missing.
            let first = lost * 1472 / 188, last = ((lost + 1) * 1472 - 1) / 188
            let expected = (0..<112).filter { $0 < first || $0 > last }.flatMap { Traffic.tsPacket(counter: $0, fill: UInt8(truncatingIfNeeded: $0)) }
            let same = out.ts == expected
            #expect(same, "\(out.ts.count) bytes, expected \(expected.count)")
            #expect(out.gaps == [last - first + 1])
            #expect(stats.drops(.tsLostSync, channel: "plain") == 1)
        } else {
            let same = out.ts == stream
            #expect(same, "\(out.ts.count) of \(stream.count) bytes")
            #expect(out.gaps.isEmpty)
            #expect(stats.channel("plain", "gaps") == 0)
        }
    }
}

/// The aligner alone, fed the same stream whole, byte by byte and in odd splits.
struct TSStreamAlignerTests {
    static let stream = (0..<6).flatMap(Traffic.tsBlock)

    @Test(arguments: [1, 7, 187, 188, 189, 1316, 1472, 5000])
    func anySplitGivesTheStreamBack(chunk: Int) {
        var aligner = TSStreamAligner()
        var out: [UInt8] = []
        for start in stride(from: 0, to: Self.stream.count, by: chunk) {
            out += aligner.packets(Self.stream[start..<min(start + chunk, Self.stream.count)])
        }
        let whole = out == Self.stream
        #expect(whole, "\(out.count) of \(Self.stream.count) bytes")
        #expect(aligner.skippedBytes == 0)
    }

    @Test func strayBytesAreSkippedToTheNextConfirmedSync() {
        var aligner = TSStreamAligner()
        let garbage: [UInt8] = [0x00, 0x47, 0x12, 0x99]   // a lone 0x47 not followed by a packet
        let out = Array(aligner.packets((garbage + Self.stream)[...]))
        let whole = out == Self.stream
        #expect(whole, "\(out.count) of \(Self.stream.count) bytes")
        #expect(aligner.skippedBytes == garbage.count)
    }

    @Test func aCutPacketWhoseTailNeverComesIsDropped() {
        var aligner = TSStreamAligner()
        let head = Array(Self.stream[0..<100])
        #expect(aligner.packets(head[...]).isEmpty)
        let later = Array(Self.stream[376...])   // the next datagram starts at a packet boundary
        let resumed = Array(aligner.packets(later[...])) == later
        #expect(resumed)
        #expect(aligner.skippedBytes == 100)
    }
}
