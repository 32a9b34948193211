import Testing
import TestSupport
@testable import GrandstandCore

/// SMPTE ST 2022-7 merging, alone and in the pipeline: first copy wins, paths reported down and
/// up, a path carrying another stream refused, plain UDP failing over on silence.
struct SeamlessMergerTests {
    static func payload(_ n: Int) -> ArraySlice<UInt8> { Traffic.tsBlock(n)[...] }

    @Test func theFirstCopyGoesOnAndLaterCopiesAreCountedPerPath() {
        var merger = SeamlessMerger(rtp: true)
        var forwarded: [Int] = []
        for n in 0..<100 {
            for path in [SeamlessMerger.Path.primary, .secondary] where !(path == .primary && n % 10 == 3) && !(path == .secondary && n % 10 == 7) {
                let time = Int64(n) * 1_000_000 + (path == .secondary ? 20_000_000 : 0)
                if merger.receive(ssrc: 7, sequence: UInt16(n), payload: Self.payload(n), from: path, at: time) == .forward { forwarded.append(n) }
            }
        }
        #expect(forwarded == Array(0..<100))
        #expect(merger.counters[0].packets == 90 && merger.counters[1].packets == 90)
        #expect(merger.counters[1].duplicates == 80 && merger.counters[0].duplicates == 0)
        #expect(merger.refusal == nil && merger.takeEvents().isEmpty)
    }

    @Test func aSilentPathIsDownWhileTheOtherDeliversAndUpWhenItReturns() {
        var merger = SeamlessMerger(configuration: .init(silenceNanoseconds: 200_000_000), rtp: true)
        var sequence: UInt16 = 0
        func send(_ path: SeamlessMerger.Path, at ms: Int64) {
            _ = merger.receive(ssrc: 1, sequence: sequence, payload: Self.payload(Int(sequence)), from: path, at: ms * 1_000_000)
        }
        for ms in stride(from: Int64(0), to: 100, by: 10) { send(.primary, at: ms); send(.secondary, at: ms + 1); sequence &+= 1 }
        // The primary path goes silent at 90 ms; the secondary keeps delivering.
        for ms in stride(from: Int64(100), to: 400, by: 10) { send(.secondary, at: ms); sequence &+= 1 }
        let events = merger.takeEvents()
        #expect(events.count == 1)
        guard case .pathDown(.primary, let silent)? = events.first else { Issue.record("\(events)"); return }
        #expect(silent >= 200_000_000 && silent < 220_000_000)
        #expect(merger.pathsDown == 1 && merger.counters[0].downEvents == 1)
        send(.primary, at: 400)
        #expect(merger.takeEvents() == [.pathUp(.primary)])
        #expect(merger.pathsDown == 0)

        // Both silent (the sender stopped): nothing is down, neither path failed the other.
        merger.tick(now: 2_000_000_000)
        #expect(merger.takeEvents().isEmpty, "both silent: the sender stopped, no path is blamed")
    }

    @Test func aPathWithAnotherSSRCIsRefusedAfterAShortGrace() {
        var merger = SeamlessMerger(rtp: true)
        var decisions: [SeamlessMerger.Decision] = []
        for n in 0..<40 {
            _ = merger.receive(ssrc: 0xAAAA, sequence: UInt16(n), payload: Self.payload(n), from: .primary, at: Int64(n) * 1_000_000)
            decisions.append(merger.receive(ssrc: 0xBBBB, sequence: UInt16(n), payload: Self.payload(n), from: .secondary, at: Int64(n) * 1_000_000 + 1))
        }
        #expect(decisions.allSatisfy { $0 == .dropped })
        #expect(merger.refusal?.path == .secondary)
        #expect(merger.takeEvents() == [.refused(.secondary, reason: "SSRC 0xbbbb differs from the primary path's 0xaaaa")])
        #expect(merger.counters[1].dropped == 40)
    }

    @Test func aSenderRestartOnBothPathsIsNoMismatch() {
        var merger = SeamlessMerger(rtp: true)
        for n in 0..<50 {
            let ssrc: UInt32 = n < 20 ? 1 : 2   // the sender restarts with a new SSRC and sequence
            let sequence = UInt16(n < 20 ? n : 5_000 + n)
            #expect(merger.receive(ssrc: ssrc, sequence: sequence, payload: Self.payload(n), from: .primary, at: Int64(n) * 2_000_000) == .forward)
            // The secondary lags one packet behind: it still sends the old SSRC once after the switch.
            #expect(merger.receive(ssrc: ssrc, sequence: sequence, payload: Self.payload(n), from: .secondary, at: Int64(n) * 2_000_000 + 1) == .duplicate)
        }
        #expect(merger.refusal == nil)
    }

    @Test func copiesWithOtherBytesRefuseTheLaterPath() {
        var merger = SeamlessMerger(rtp: true)
        for n in 0..<10 {
            _ = merger.receive(ssrc: 1, sequence: UInt16(n), payload: Self.payload(n), from: .primary, at: Int64(n))
            _ = merger.receive(ssrc: 1, sequence: UInt16(n), payload: Self.payload(n + 1), from: .secondary, at: Int64(n) + 1)
        }
        #expect(merger.refusal?.path == .secondary)
        #expect(merger.refusal?.reason.contains("differs from the primary path's copy") == true)
    }

    @Test func plainUDPFailsOverOnSilenceAndStaysThere() {
        var merger = SeamlessMerger(configuration: .init(silenceNanoseconds: 100_000_000), rtp: false)
        var forwarded: [(SeamlessMerger.Path, Int64)] = []
        func send(_ path: SeamlessMerger.Path, _ ms: Int64) {
            if merger.receiveDatagram(from: path, at: ms * 1_000_000) == .forward { forwarded.append((path, ms)) }
        }
        for ms in stride(from: Int64(0), to: 50, by: 10) { send(.primary, ms); send(.secondary, ms) }
        for ms in stride(from: Int64(50), to: 300, by: 10) { send(.secondary, ms) }   // the primary stops at 40 ms
        for ms in stride(from: Int64(300), to: 350, by: 10) { send(.primary, ms); send(.secondary, ms) }
        #expect(forwarded.filter { $0.0 == .primary }.map(\.1) == [0, 10, 20, 30, 40])
        #expect(forwarded.filter { $0.0 == .secondary }.map(\.1).first == 140, "after 100 ms of silence")
        #expect(forwarded.filter { $0.0 == .secondary }.map(\.1).last == 340, "no switch back while the secondary delivers")
        #expect(merger.takeEvents() == [.pathDown(.primary, silentNanoseconds: 100_000_000), .failover(to: .secondary), .pathUp(.primary)])
    }
}

/// Two paths of one RTP channel through the pipeline: each loses packets the other delivers and
/// the secondary lags 20 ms, yet the output is the whole stream with no gap.
struct IngestTwoPathTests {
    static let second = IPAddress(parsing: "239.255.21.1")!

    static func channel(rtp: Bool = true, skewMilliseconds: Int64 = 50) -> GatewayConfig.StaticChannel {
        var channel = GatewayConfig.StaticChannel(name: "Dual", kind: .video, group: Traffic.videoGroup, port: 5000, rtp: rtp)
        channel.secondPath = SecondPath(endpoint: IngestEndpoint(group: second, port: 5000), maxSkewNanoseconds: skewMilliseconds * 1_000_000)
        return channel
    }

    /// Datagrams of both paths in arrival order: packet n at n ms on the primary, n ms + `lag` on
    /// the secondary, minus each path's losses.
    static func arrivals(count: Int, lagMilliseconds: Int64, primaryLoses: (Int) -> Bool, secondaryLoses: (Int) -> Bool,
                         rtp: Bool = true) -> [Datagram] {
        var list: [Datagram] = []
        for n in 0..<count {
            let bytes = rtp ? Traffic.rtp(UInt16(n), payload: Traffic.tsBlock(n)) : Traffic.tsBlock(n)
            if !primaryLoses(n) { list.append(Traffic.datagram(bytes, at: Int64(n) * 1_000_000)) }
            if !secondaryLoses(n) { list.append(Traffic.datagram(bytes, to: second, at: (Int64(n) + lagMilliseconds) * 1_000_000)) }
        }
        return list.sorted { $0.timestampNanoseconds < $1.timestampNanoseconds }
    }

    @Test(arguments: [(Int64(0), true), (20, true), (80, false)])
    func lossOnEitherPathIsHitlessWithinTheSkew(lag: Int64, hitless: Bool) {
        var pipeline = Traffic.pipeline([Self.channel()])
        #expect(pipeline.endpoints.contains(IngestEndpoint(group: Self.second, port: 5000)))
        var actions: [IngestAction] = []
        for datagram in Self.arrivals(count: 200, lagMilliseconds: lag, primaryLoses: { $0 % 10 == 3 }, secondaryLoses: { $0 % 10 == 7 }) {
            actions += pipeline.ingest(datagram)
        }
        actions += pipeline.tick(nowNanoseconds: 1_000_000_000)
        let out = Traffic.output(actions, channel: "dual")
        let stats = pipeline.stats
        if hitless {
            let same = out.ts == (0..<200).flatMap(Traffic.tsBlock)
            #expect(same, "\(out.ts.count / 188) packets")
            #expect(out.gaps.isEmpty && stats.channel("dual", "gaps") == 0)
        } else {
            #expect(!out.gaps.isEmpty, "a lag beyond maxSkew loses what the faster path lost")
        }
        #expect(stats.channel("dual", "path_primary_packets") == 180 && stats.channel("dual", "path_secondary_packets") == 180)
        #expect(stats.channel("dual", "path_primary_duplicates")! + stats.channel("dual", "path_secondary_duplicates")! == 160)
        #expect(stats.channel("dual", "paths_down_current") == 0)
    }

    @Test func aPathThatDiesIsReportedAndTheOutputStaysWhole() {
        var pipeline = Traffic.pipeline([Self.channel()])
        var actions: [IngestAction] = []
        // The secondary dies after packet 100.
        for datagram in Self.arrivals(count: 600, lagMilliseconds: 5, primaryLoses: { $0 % 50 == 1 }, secondaryLoses: { $0 > 100 }) {
            actions += pipeline.ingest(datagram)
        }
        actions += pipeline.tick(nowNanoseconds: 700_000_000)
        let events = actions.compactMap { action -> SeamlessMerger.Event? in if case .path(_, let event, _) = action { event } else { nil } }
        #expect(events.map(\.name) == ["down"] && events.first?.path == .secondary)
        #expect(pipeline.stats.channel("dual", "paths_down_current") == 1)
        let out = Traffic.output(actions, channel: "dual")
        // Until the secondary died, the primary's losses were filled; after, they are gaps.
        #expect(out.gaps.count == (101..<600).filter { $0 % 50 == 1 }.count)
    }

    @Test func plainUDPFailsOverWithOneGap() {
        var pipeline = Traffic.pipeline([Self.channel(rtp: false)])
        var actions: [IngestAction] = []
        for datagram in Self.arrivals(count: 1000, lagMilliseconds: 0, primaryLoses: { $0 >= 150 }, secondaryLoses: { _ in false }, rtp: false) {
            actions += pipeline.ingest(datagram)
        }
        let out = Traffic.output(actions, channel: "dual")
        #expect(out.gaps.count == 1, "the switch shows as one gap in the continuity counters: \(out.gaps)")
        let events = actions.compactMap { action -> String? in if case .path(_, let event, _) = action { event.name } else { nil } }
        #expect(events == ["down", "failover"])
        // The primary's datagrams until it stopped, then the secondary's after 200 ms of silence.
        let same = out.ts == ((0..<150).flatMap(Traffic.tsBlock) + (349..<1000).flatMap(Traffic.tsBlock))
        #expect(same, "\(out.ts.count / 1316) datagrams")
    }
}

/// ST 2022-7 as SDP announces it: RFC 7104 `a=group:DUP` over two m= lines with `a=mid`.
struct DuplicationGroupingTests {
    static let sdp = """
        v=0\r
        o=- 7 1 IN IP4 10.1.2.3\r
        s=Bowl Dual\r
        t=0 0\r
        a=group:DUP main backup\r
        m=video 5000 RTP/AVP 33\r
        c=IN IP4 239.255.20.1/32\r
        a=source-filter: incl IN IP4 239.255.20.1 10.1.2.3\r
        a=mid:main\r
        m=video 5002 RTP/AVP 33\r
        c=IN IP4 239.255.21.1/32\r
        a=source-filter: incl IN IP4 239.255.21.1 10.1.2.4\r
        a=mid:backup\r

        """

    @Test func theGroupedMediaLineIsTheSecondPath() throws {
        let sdp = try SDPParser.parse(Self.sdp)
        let announcement = ChannelAnnouncement(sdp: sdp)
        #expect(announcement.kind == .video && announcement.group == IPAddress(parsing: "239.255.20.1") && announcement.port == 5000)
        #expect(announcement.duplicate == IngestEndpoint(group: IPAddress(parsing: "239.255.21.1")!, port: 5002,
                                                         source: IPAddress(parsing: "10.1.2.4")))
        let channel = ChannelRegistry.channel(from: announcement, sdp: sdp, id: "bowl-dual", streamer: IPAddress(parsing: "10.1.2.3")!)
        #expect(channel.secondPath?.endpoint == announcement.duplicate)
        #expect(channel.endpoints.contains(IngestEndpoint(group: IPAddress(parsing: "239.255.21.1")!, port: 5002, source: IPAddress(parsing: "10.1.2.4"))))

        // Without the group (or with another semantics, e.g. FID) there is no second path.
        for other in ["a=group:FID main backup\r\n", ""] {
            let plain = try SDPParser.parse(Self.sdp.replacingOccurrences(of: "a=group:DUP main backup\r\n", with: other))
            #expect(ChannelAnnouncement(sdp: plain).duplicate == nil)
        }
    }
}
