import GrandstandCore
import Testing

/// The streamer's output fed straight into the ingest pipeline (no sockets): what `grandstand
/// send` puts on the wire is what the gateway's registry and receivers accept.
struct StreamerIngestTests {
    static let origin = IPAddress.v4(0xC000_0207)   // 192.0.2.7
    static let license = LicenseTriplet(venueName: "Demo Stadium", contentOwner: "Grandstand", appDeveloper: "Grandstand")
    static let bowl = Endpoint(address: .v4(0xEFFF_1401), port: 5000)
    static let scores = Endpoint(address: .v4(0xEFFF_1402), port: 5002)
    static let ticker = Endpoint(address: .v4(0xEFFF_1404), port: 5004)

    struct Outcome {
        var pipeline: IngestPipeline
        var changes: [ChannelChange] = []
        var transportStream: [UInt8] = []
        var lost = 0
        var messages: [String: [String]] = [:]
        var scheduler: StreamerScheduler
    }

    static func run(passes: Int, loss: LossModel.Rule?, compress: Bool) throws -> Outcome {
        let stream = try PacedTransportStream(try StreamerSample.bytes())
        let channels = [
            ChannelDescription(name: "Bowl", media: .video, destination: bowl, bandwidthKbps: 900, license: license, origin: origin),
            ChannelDescription(name: "Scores", media: .data(rtpPayloadType: 98), destination: scores, license: license, origin: origin),
            ChannelDescription(name: "Ticker", media: .data(rtpPayloadType: nil), destination: ticker, license: license, origin: origin),
        ]
        var scheduler = StreamerScheduler()
        let sap = SAPAnnouncer(destination: Endpoint(address: SAPAnnouncer.defaultGroupV4, port: SAPMessage.port), origin: origin,
                               channels: channels, compress: compress, startNanoseconds: 0, intervalNanoseconds: 1_000_000_000)
        scheduler.add(sap)
        scheduler.add(RTPTransportStreamSource(flow: "bowl", destination: bowl, stream: stream, identity: RTPIdentity(name: "bowl"),
                                               startNanoseconds: 500_000_000, passes: passes))
        scheduler.add(DataChannelSource(flow: "scores", destination: scores, messages: .counter(channel: "Scores"),
                                        framing: .rtp(payloadType: 98, identity: RTPIdentity(name: "scores"), clockRate: 90_000),
                                        startNanoseconds: 500_000_000, intervalNanoseconds: 1_000_000_000, limit: 5))
        scheduler.add(DataChannelSource(flow: "ticker", destination: ticker, messages: .list([Array("{\"t\":1}".utf8)]),
                                        framing: .udp, startNanoseconds: 600_000_000, intervalNanoseconds: 1_000_000_000, limit: 3))
        if let loss { scheduler.setLoss(LossModel(rule: loss, seed: 3), flow: "bowl") }

        var outcome = Outcome(pipeline: IngestPipeline(configuration: IngestConfiguration(policy: RegistryPolicy(license: license))),
                              scheduler: scheduler)
        func feed(_ datagrams: [ScheduledDatagram]) {
            for datagram in datagrams {
                let received = Datagram(source: Endpoint(address: origin, port: 40_000), destination: datagram.destination,
                                        payload: datagram.payload[...], timestampNanoseconds: datagram.dueNanoseconds, hopLimit: 16)
                for action in outcome.pipeline.ingest(received) {
                    switch action {
                    case .channelsChanged(let changes): outcome.changes += changes
                    case .transportStream(_, let packets, _): outcome.transportStream += packets
                    case .gap(_, let lost, _): outcome.lost += lost
                    case .dataMessage(let id, let payload, _): outcome.messages[id, default: []].append(String(decoding: payload, as: UTF8.self))
                    case .fileDatagram, .path: break
                    }
                }
            }
        }
        while !outcome.scheduler.isFinished, let due = outcome.scheduler.nextDueNanoseconds {
            feed(outcome.scheduler.popDue(nowNanoseconds: due))
        }
        feed(sap.deletions(dueNanoseconds: 60_000_000_000))
        return outcome
    }

    @Test(arguments: [false, true])
    func channelsAreRegisteredAndTheirTrafficDelivered(compress: Bool) throws {
        let outcome = try Self.run(passes: 2, loss: nil, compress: compress)
        let added = outcome.changes.compactMap { if case .added(let channel) = $0 { return channel } else { return nil } }
        #expect(added.map(\.id).sorted() == ["bowl", "scores", "ticker"])
        let bowl = try #require(added.first { $0.id == "bowl" })
        #expect(bowl.kind == .video && bowl.group == Self.bowl.address && bowl.port == 5000)
        #expect(bowl.venueName == "Demo Stadium" && bowl.streamer == Self.origin && bowl.bandwidthKbps == 900)
        #expect(added.first { $0.id == "ticker" }?.rtp == false)
        // The transport stream arrives whole, twice; the loop seam costs no TS discontinuity.
        let file = try StreamerSample.bytes()
        #expect(outcome.transportStream.count == 2 * file.count)
        #expect(Array(outcome.transportStream.prefix(file.count)) == file)
        #expect(outcome.lost == 0)
        let stats = outcome.pipeline.stats
        #expect(stats.channel("bowl", "num_ts_discontinuities") == 0)
        #expect(stats.channel("bowl", "rtp_packets_lost") == 0)
        #expect(stats.channel("bowl", "rtp_restarts") == 0)
        #expect(stats.channel("bowl", "ts_packets") == 2 * file.count / 188)
        // Data: the RTP payload (counter JSON) and the whole UDP payload, one message each.
        #expect(outcome.messages["scores"]?.count == 5)
        #expect(outcome.messages["scores"]?.first == "{\"channel\":\"Scores\",\"counter\":0,\"sentNanoseconds\":500000000}")
        #expect(outcome.messages["ticker"] == ["{\"t\":1}", "{\"t\":1}", "{\"t\":1}"])
        // SAP deletions retire all three.
        let removed = outcome.changes.compactMap { if case .removed(let channel, let reason) = $0 { return "\(channel.id):\(reason.rawValue)" } else { return nil } }
        #expect(removed.sorted() == ["bowl:deleted", "scores:deleted", "ticker:deleted"])
    }

    @Test func droppedPacketsBecomeGapsOfExactlyThatSize() throws {
        let outcome = try Self.run(passes: 1, loss: .every(50), compress: false)
        let dropped = outcome.scheduler.counters["bowl"]?.dropped ?? 0
        let file = try StreamerSample.bytes()
        let datagrams = (file.count / 188 + 6) / 7
        #expect(dropped == datagrams / 50)
        #expect(outcome.lost == dropped)
        #expect(outcome.pipeline.stats.channel("bowl", "rtp_packets_lost") == dropped)
        #expect(outcome.transportStream.count == file.count - dropped * 7 * 188)
    }
}
