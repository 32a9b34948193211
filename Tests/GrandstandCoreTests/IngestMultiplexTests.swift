import Testing
import TestSupport
@testable import GrandstandCore

/// A multi-program TS through the pipeline: one channel per program named from the SDT, the
/// multiplex listed as such, programs following the PAT, and the configuration's choice.
struct IngestMultiplexTests {
    static func mux(_ programs: ProgramSelection = .auto, transport rtp: Bool = false) -> GatewayConfig.StaticChannel {
        var channel = GatewayConfig.StaticChannel(name: "Venue Mux", kind: .video, group: Traffic.videoGroup, port: 5004, rtp: rtp)
        channel.programs = programs
        return channel
    }

    /// The fixture in 7-packet datagrams (plain UDP), 10 ms apart from `start`.
    static func feed(_ bytes: [UInt8], into pipeline: inout IngestPipeline, start: Int64 = 0) -> [IngestAction] {
        var actions: [IngestAction] = []
        for (n, offset) in stride(from: 0, to: bytes.count, by: 1316).enumerated() {
            let datagram = Array(bytes[offset..<min(offset + 1316, bytes.count)])
            actions += pipeline.ingest(Traffic.datagram(datagram, port: 5004, at: start + Int64(n) * 10_000_000))
        }
        return actions
    }

    static func changes(_ actions: [IngestAction]) -> [ChannelChange] {
        actions.flatMap { action -> [ChannelChange] in
            guard case .channelsChanged(let changes) = action else { return [] }
            return changes
        }
    }

    @Test func eachProgramBecomesAChannelNamedFromTheSDTAndTheMuxIsListedAsMultiplex() throws {
        var pipeline = Traffic.pipeline([Self.mux()])
        let actions = Self.feed(try MultiplexFixture.bytes(), into: &pipeline)
        let changes = Self.changes(actions)
        #expect(changes.first == .added(pipeline.channels.first { $0.id == "venue-mux" }.map {
            var video = $0; video.kind = .video; video.programChannels = []; return video
        }!), "the multiplex is listed as video until its tables are read")
        let added = changes.compactMap { if case .added(let c) = $0 { c } else { nil } }.filter { $0.multiplex != nil }
        #expect(added.map(\.id) == ["bowl-cam", "tunnel-cam", "stadium-radio"])
        #expect(added.map(\.name) == ["Bowl Cam", "Tunnel Cam", "Stadium Radio"])
        #expect(added.map(\.programNumber) == [1, 2, 3])
        #expect(changes.contains { if case .updated(let c) = $0 { c.id == "venue-mux" && c.kind == .multiplex } else { false } })

        let listed = pipeline.channels
        #expect(listed.map(\.id) == ["bowl-cam", "stadium-radio", "tunnel-cam", "venue-mux"])
        let parent = try #require(listed.last)
        #expect(parent.kind == .multiplex && parent.programChannels == ["bowl-cam", "tunnel-cam", "stadium-radio"])
        if case .object(let members) = parent.json {
            #expect(members.first { $0.key == "kind" }?.value == .string("multiplex"))
            #expect(members.first { $0.key == "programs" }?.value == .array([.string("bowl-cam"), .string("tunnel-cam"), .string("stadium-radio")]))
        }

        for (id, number) in [("bowl-cam", UInt16(1)), ("tunnel-cam", 2), ("stadium-radio", 3)] {
            let ts = Traffic.output(actions, channel: id).ts
            #expect(MultiplexFixture.pids(ts) == Set([0, MultiplexFixture.pmtPIDs[number]!]).union(MultiplexFixture.streamPIDs[number]!), "\(id)")
        }
        #expect(Traffic.output(actions, channel: "venue-mux").ts.isEmpty, "the multiplex itself is not served once split")

        let stats = pipeline.stats
        #expect(stats.channel("venue-mux", "programs_split") == 3)
        #expect(stats.channel("bowl-cam", "packets_received") == stats.channel("venue-mux", "packets_received"))
        #expect(stats.channels["bowl-cam"]?["multiplex"] == .string("venue-mux"))
        #expect(stats.total("packets_received") == stats.channel("venue-mux", "packets_received"), "programs are not summed twice")
    }

    @Test func pickedProgramsAloneAreListedAndWholeKeepsOneChannel() throws {
        var picked = Traffic.pipeline([Self.mux(.only([3]))])
        let actions = Self.feed(try MultiplexFixture.bytes(), into: &picked)
        #expect(picked.channels.map(\.id) == ["stadium-radio", "venue-mux"])
        #expect(MultiplexFixture.pids(Traffic.output(actions, channel: "stadium-radio").ts) == [0, 0x1002, 0x103])

        var whole = Traffic.pipeline([Self.mux(.whole)])
        let bytes = try MultiplexFixture.bytes()
        let kept = Self.feed(bytes, into: &whole)
        #expect(whole.channels.map(\.id) == ["venue-mux"] && whole.channels.first?.kind == .video)
        let same = Traffic.output(kept, channel: "venue-mux").ts == bytes
        #expect(same, "the multiplex passes byte for byte")
    }

    @Test func aSingleProgramStreamStaysTheChannelItWasAnnouncedAs() throws {
        var pipeline = Traffic.pipeline([Self.mux()])
        let bytes = try TSFixture.bytes()
        let actions = Self.feed(bytes, into: &pipeline)
        #expect(pipeline.channels.map(\.id) == ["venue-mux"])
        #expect(Self.changes(actions).count == 1)
        let same = Traffic.output(actions, channel: "venue-mux").ts == bytes
        #expect(same)
    }

    @Test func programsFollowThePATAndGoWithTheirMultiplex() throws {
        var pipeline = Traffic.pipeline([Self.mux()])
        _ = Self.feed(try MultiplexFixture.bytes(), into: &pipeline)
        // The headend drops program 2 (a new PAT version without it).
        let body: [UInt8] = [0, 1, 0xF0, 0x00, 0, 3, 0xF0, 0x02]
        let pat = TSBuilder.psiPackets(pid: 0, section: TSBuilder.section(tableID: 0, idExtension: 1, version: 5, body: body), firstCC: 9)
        let actions = pipeline.ingest(Traffic.datagram(pat.flatMap { $0 }, port: 5004, at: 5_000_000_000))
        let changes = Self.changes(actions)
        #expect(changes.contains { if case .removed(let c, .ended) = $0 { c.id == "tunnel-cam" } else { false } })
        #expect(pipeline.channels.map(\.id) == ["bowl-cam", "stadium-radio", "venue-mux"])

        // Program 2 returns under the id it had.
        let back = TSBuilder.psiPackets(pid: 0, section: TSBuilder.section(tableID: 0, idExtension: 1, version: 6,
                                                                           body: body + [0, 2, 0xF0, 0x01]), firstCC: 10)
        let returned = Self.changes(pipeline.ingest(Traffic.datagram(back.flatMap { $0 }, port: 5004, at: 5_100_000_000)))
        #expect(returned.contains { if case .added(let c) = $0 { c.id == "tunnel-cam" } else { false } })
    }

    @Test func removingTheMultiplexRemovesItsProgramsFirstAndFreesTheirIDs() throws {
        var pipeline = Traffic.pipeline([Self.mux()])
        _ = Self.feed(try MultiplexFixture.bytes(), into: &pipeline)
        var actions: [IngestAction] = []
        // The receiver is replaced when the channel changes what it receives (here: its program choice).
        var registryChannel = try #require(pipeline.registry.channel(id: "venue-mux"))
        registryChannel.programs = .whole
        let presented = pipeline.apply([.updated(registryChannel)], now: 0, into: &actions)
        #expect(presented.map { if case .removed(let c, .ended) = $0 { c.id } else { "" } }.prefix(3) == ["bowl-cam", "tunnel-cam", "stadium-radio"])
        #expect(presented.last == .updated(registryChannel))

        var reserved = pipeline.registry
        #expect(reserved.reserveID(for: "Bowl Cam") == "bowl-cam-2", "ids stay reserved while the multiplex is listed")
        let removal = pipeline.apply([.removed(registryChannel, reason: .deleted)], now: 0, into: &actions)
        #expect(removal.count == 1)
        var freed = pipeline.registry
        #expect(freed.reserveID(for: "Bowl Cam") == "bowl-cam")
    }

    @Test func aGapInTheMultiplexIsAGapInEveryProgram() throws {
        var pipeline = Traffic.pipeline([Self.mux()])
        let bytes = try MultiplexFixture.bytes()
        let datagrams = stride(from: 0, to: bytes.count, by: 1316).map { Array(bytes[$0..<min($0 + 1316, bytes.count)]) }
        var actions: [IngestAction] = []
        for (n, datagram) in datagrams.enumerated() where n != 20 {
            actions += pipeline.ingest(Traffic.datagram(datagram, port: 5004, at: Int64(n) * 10_000_000))
        }
        for id in ["bowl-cam", "tunnel-cam", "stadium-radio"] {
            #expect(!Traffic.output(actions, channel: id).gaps.isEmpty, "\(id)")
        }
    }
}
