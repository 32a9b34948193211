import Testing
import TestSupport
@testable import GrandstandCore

/// Builds SAP packets carrying SDP for registry and pipeline tests.
enum Announce {
    static let box = LicenseTriplet(venueName: "Demo Stadium", contentOwner: "Grandstand", appDeveloper: "Grandstand")
    static let other = LicenseTriplet(venueName: "Other Arena", contentOwner: "Grandstand", appDeveloper: "Grandstand")
    static let streamer = IPAddress(parsing: "10.1.2.3")!
    static let second = ns(1)

    static func ns(_ seconds: Double) -> Int64 { Int64(seconds * 1_000_000_000) }

    /// SDP for a channel; `license` nil leaves the attribute out, `rawLicense` writes it verbatim.
    static func sdp(name: String, session: Int = 1, version: Int = 1, group: String = "239.255.20.1", port: Int = 5000,
                    license: LicenseTriplet? = box, rawLicense: String? = nil, media: [String]? = nil,
                    extra: [String] = []) -> String {
        var lines = ["v=0", "o=gs \(session) \(version) IN IP4 10.1.2.3", "s=\(name)", "c=IN IP4 \(group)/16", "t=0 0"]
        if let license { lines.append("a=x-grandstand-license:\(license.attributeValue)") }
        if let rawLicense { lines.append("a=x-grandstand-license:\(rawLicense)") }
        lines += media ?? ["m=video \(port) RTP/AVP 33"]
        lines += extra
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    static func packet(_ sdp: String, origin: IPAddress = streamer, hash: UInt16 = 1) -> [UInt8] {
        SAPMessage.encode(kind: .announcement, origin: origin, messageIDHash: hash, payload: Array(sdp.utf8))
    }

    static func deletion(session: Int, version: Int = 1, origin: IPAddress = streamer) -> [UInt8] {
        SAPMessage.encode(kind: .deletion, origin: origin, messageIDHash: 1,
                          payload: Array("o=gs \(session) \(version) IN IP4 10.1.2.3\r\n".utf8))
    }
}

extension ChannelRegistry {
    /// Feeds one SDP by SAP; returns the changes (empty on a drop).
    mutating func feed(_ sdp: String, from source: IPAddress = Announce.streamer, at time: Int64 = 0) -> [ChannelChange] {
        (try? receiveSAP(Announce.packet(sdp, origin: source)[...], from: source, at: time).get()) ?? []
    }
}

struct RegistryPolicyTests {
    /// (license.required, announced license: "box" | "other" | "none" | "malformed", admitted)
    @Test(arguments: [
        (true, "box", true), (true, "other", false), (true, "none", false), (true, "malformed", false),
        (false, "box", true), (false, "other", false), (false, "none", true), (false, "malformed", false),
    ])
    func licensePolicy(required: Bool, announced: String, admitted: Bool) {
        var registry = ChannelRegistry(policy: RegistryPolicy(license: Announce.box, licenseRequired: required))
        let sdp: String
        switch announced {
        case "box": sdp = Announce.sdp(name: "Bowl")
        case "other": sdp = Announce.sdp(name: "Bowl", license: Announce.other)
        case "none": sdp = Announce.sdp(name: "Bowl", license: nil)
        default: sdp = Announce.sdp(name: "Bowl", license: nil, rawLicense: "venueName=Demo Stadium")
        }
        let changes = registry.feed(sdp)
        #expect(changes.count == (admitted ? 1 : 0))
        #expect(registry.channels.map(\.id) == (admitted ? ["bowl"] : []))
        #expect(registry.counters.licenseMismatches == (admitted ? 0 : 1))
        #expect(registry.counters.announcementsReceived == 1)
        #expect(registry.refused.count == (admitted ? 0 : 1))
    }

    @Test(arguments: ["box", "other", "none", "malformed"])
    func withoutConfigEveryLicenseIsAdmitted(announced: String) {
        var registry = ChannelRegistry(policy: .permissive)
        let license: LicenseTriplet? = announced == "box" ? Announce.box : announced == "other" ? Announce.other : nil
        let raw: String? = announced == "malformed" ? "nonsense" : nil
        _ = registry.feed(Announce.sdp(name: "Bowl", license: license, rawLicense: raw))
        #expect(registry.channels.count == 1)
        #expect(registry.counters.licenseMismatches == 0)
    }

    /// (allow-list, streamer, admitted)
    @Test(arguments: [
        (["*"], "10.9.9.9", true), (["10.1.2.3"], "10.1.2.3", true), (["10.1.2.3"], "10.1.2.4", false),
        (["10.1.2.0/24"], "10.1.2.200", true), (["10.1.2.0/24"], "10.1.3.1", false), ([], "10.1.2.3", false),
        (["fd00::/16"], "fd00::7", true), (["fd00::/16", "10.1.2.3"], "10.1.2.3", true),
    ])
    func streamerAllowList(allow: [String], streamer: String, admitted: Bool) {
        let patterns = allow.compactMap { AddressPattern(parsing: $0) }
        var registry = ChannelRegistry(policy: RegistryPolicy(license: Announce.box, allow: patterns))
        let source = IPAddress(parsing: streamer)!
        _ = registry.feed(Announce.sdp(name: "Bowl"), from: source)
        #expect(registry.channels.count == (admitted ? 1 : 0))
        #expect(registry.counters.streamersRefused == (admitted ? 0 : 1))
        #expect(registry.counters.licenseMismatches == 0)
        if admitted { #expect(registry.channels.first?.streamer == source) }
        if !admitted { #expect(registry.refused.first?.reason == "streamer \(streamer) is not in streamers.allow") }
    }
}

struct RegistryLifecycleTests {
    static let policy = RegistryPolicy(license: Announce.box)

    @Test func channelFieldsFromTheAnnouncement() throws {
        var registry = ChannelRegistry(policy: Self.policy)
        let sdp = Announce.sdp(name: "Bowl Cam 1", session: 4242, version: 7,
                               extra: ["b=AS:6000", "a=x-grandstand-fec:scheme=smpte2022-1;L=5;D=4",
                                       "a=source-filter: incl IN IP4 239.255.20.1 10.1.2.3"])
        let changes = registry.feed(sdp)
        let channel = try #require(registry.channels.first)
        #expect(changes == [.added(channel)])
        #expect(channel.id == "bowl-cam-1")
        #expect(channel.kind == .video)
        #expect(channel.sessionNum == "4242")
        #expect(channel.sessionVersion == "7")
        #expect(channel.bandwidthKbps == 6000)
        #expect(channel.venueName == "Demo Stadium")
        #expect(channel.group == IPAddress(parsing: "239.255.20.1"))
        #expect(channel.port == 5000)
        #expect(channel.ttl == 16)
        #expect(channel.source == IPAddress(parsing: "10.1.2.3"))
        #expect(channel.fec == .smpte2022_1(columns: 5, rows: 4))
        #expect(channel.rtp)
        #expect(channel.origin == .sap)
        #expect(channel.endpoints.map(\.port) == [5000, 5002, 5004])
    }

    @Test func reannouncementRefreshesAndNewVersionUpdates() throws {
        var registry = ChannelRegistry(policy: Self.policy)
        _ = registry.feed(Announce.sdp(name: "Bowl", version: 1), at: 0)
        #expect(registry.feed(Announce.sdp(name: "Bowl", version: 1), at: 5 * Announce.second).isEmpty)
        let changes = registry.feed(Announce.sdp(name: "Bowl Renamed", version: 2, port: 6000), at: 10 * Announce.second)
        let channel = try #require(registry.channels.first)
        #expect(changes == [.updated(channel)])
        #expect(channel.id == "bowl")   // the id is kept across re-announcements
        #expect(channel.name == "Bowl Renamed")
        #expect(channel.port == 6000)
        #expect(channel.sessionVersion == "2")
        #expect(registry.counters.updates == 1)
        #expect(registry.announcementsPerChannel["bowl"] == 3)
    }

    @Test func duplicateNamesGetDistinctStableIDs() {
        var registry = ChannelRegistry(policy: Self.policy)
        _ = registry.feed(Announce.sdp(name: "Bowl Cam", session: 1))
        _ = registry.feed(Announce.sdp(name: "bowl cam!", session: 2, group: "239.255.20.2"))
        _ = registry.feed(Announce.sdp(name: "Bowl-Cam", session: 3, group: "239.255.20.3"))
        #expect(registry.channels.map(\.id) == ["bowl-cam", "bowl-cam-2", "bowl-cam-3"])
        // Re-announcing in another order keeps every id.
        _ = registry.feed(Announce.sdp(name: "Bowl-Cam", session: 3, group: "239.255.20.3"), at: Announce.second)
        _ = registry.feed(Announce.sdp(name: "Bowl Cam", session: 1), at: Announce.second)
        #expect(registry.channels.map(\.name) == ["Bowl Cam", "bowl cam!", "Bowl-Cam"])
        // The freed id is reused by the next newcomer.
        _ = try? registry.receiveSAP(Announce.deletion(session: 2)[...], from: Announce.streamer, at: Announce.second).get()
        _ = registry.feed(Announce.sdp(name: "Bowl Cam", session: 4, group: "239.255.20.4"), at: Announce.second)
        #expect(registry.channels.map(\.id) == ["bowl-cam", "bowl-cam-2", "bowl-cam-3"])
        #expect(registry.channel(id: "bowl-cam-2")?.sessionNum == "4")
    }

    @Test func deletionRetiresTheSession() throws {
        var registry = ChannelRegistry(policy: Self.policy)
        _ = registry.feed(Announce.sdp(name: "Bowl", session: 9))
        let channel = try #require(registry.channels.first)
        let changes = try registry.receiveSAP(Announce.deletion(session: 9)[...], from: Announce.streamer, at: Announce.second).get()
        #expect(changes == [.removed(channel, reason: .deleted)])
        #expect(registry.channels.isEmpty)
        #expect(registry.counters.deletionsReceived == 1)
        #expect(registry.counters.deleted == 1)
        // Another streamer cannot withdraw it, and an unknown session is only counted.
        _ = registry.feed(Announce.sdp(name: "Bowl", session: 9))
        let other = IPAddress(parsing: "10.1.2.99")!
        let ignored = try registry.receiveSAP(Announce.deletion(session: 9, origin: other)[...], from: other, at: Announce.second).get()
        #expect(ignored.isEmpty)
        #expect(registry.channels.count == 1)
        #expect(registry.counters.unknownDeletions == 1)
    }

    @Test func timeoutUsesTheObservedIntervalWithAMinimum() throws {
        var registry = ChannelRegistry(policy: RegistryPolicy(license: Announce.box, retireMinimumSeconds: 60, retireIntervalMultiple: 10))
        _ = registry.feed(Announce.sdp(name: "Slow", session: 1), at: 0)
        _ = registry.feed(Announce.sdp(name: "Slow", session: 1), at: 30 * Announce.second)      // interval 30 s → 300 s
        _ = registry.feed(Announce.sdp(name: "Once", session: 2, group: "239.255.20.2"), at: 30 * Announce.second)  // 60 s
        #expect(registry.tick(now: 90 * Announce.second).isEmpty)
        let once = try #require(registry.channel(id: "once"))
        #expect(registry.tick(now: 90 * Announce.second + 1) == [.removed(once, reason: .timeout)])
        #expect(registry.tick(now: 330 * Announce.second).isEmpty)
        let slow = try #require(registry.channel(id: "slow"))
        #expect(registry.tick(now: 330 * Announce.second + 1) == [.removed(slow, reason: .timeout)])
        #expect(registry.counters.timedOut == 2)
    }

    @Test func retireTimeoutPolicy() {
        let policy = RegistryPolicy(license: nil, retireMinimumSeconds: 60, retireIntervalMultiple: 10)
        #expect(policy.retireTimeout(interval: nil) == 60 * Announce.second)
        #expect(policy.retireTimeout(interval: 5 * Announce.second) == 60 * Announce.second)
        #expect(policy.retireTimeout(interval: 7 * Announce.second) == 70 * Announce.second)
        #expect(policy.retireTimeout(interval: Int64.max / 2) == Int64.max)
    }

    @Test func unsupportedKindsAreListedWithTheReason() throws {
        var registry = ChannelRegistry(policy: Self.policy)
        _ = registry.feed(Announce.sdp(name: "H264", media: ["m=video 5000 RTP/AVP 96", "a=rtpmap:96 H264/90000"]))
        _ = registry.feed(Announce.sdp(name: "Bad FEC", session: 2, extra: ["a=x-grandstand-fec:scheme=xor"]))
        let h264 = try #require(registry.channel(id: "h264"))
        #expect(h264.kind == .unsupported(reason: "H.264 RTP (RFC 6184) is not MPEG-TS"))
        #expect(h264.endpoints.isEmpty)
        let badFEC = try #require(registry.channel(id: "bad-fec"))
        #expect(badFEC.kind == .unsupported(reason: "malformed x-grandstand-fec: unknown scheme \"xor\" (none, smpte2022-1, reed-solomon)"))
    }

    @Test func dataChannelsOverRTPAndPlainUDP() throws {
        var registry = ChannelRegistry(policy: Self.policy)
        _ = registry.feed(Announce.sdp(name: "Scores", media: ["m=application 5100 RTP/AVP 98", "a=x-grandstand-kind:data"]))
        _ = registry.feed(Announce.sdp(name: "Raw", session: 2, media: ["m=application 5200 udp x", "a=x-grandstand-kind:data"]))
        #expect(registry.channel(id: "scores")?.kind == .data)
        #expect(registry.channel(id: "scores")?.rtp == true)
        #expect(registry.channel(id: "raw")?.rtp == false)
    }

    /// VLC's `#udp{mux=ts,sap}` and IPTV headends: MPEG-TS in plain UDP datagrams is a video
    /// channel with transport udp; announced with FEC it is refused (FEC needs RTP).
    @Test func videoOverPlainUDP() throws {
        var registry = ChannelRegistry(policy: Self.policy)
        _ = registry.feed(Announce.sdp(name: "Plain", media: ["m=video 5004 udp mpeg"]))
        _ = registry.feed(Announce.sdp(name: "Plain FEC", session: 2, media: ["m=video 5006 udp mpeg"],
                                       extra: ["a=x-grandstand-fec:scheme=smpte2022-1;L=5;D=4"]))
        let plain = try #require(registry.channel(id: "plain"))
        #expect(plain.kind == .video && plain.rtp == false && plain.json["transport"] == .string("udp"))
        #expect(plain.endpoints.map(\.port) == [5004])
        #expect(registry.channel(id: "plain-fec")?.kind == .unsupported(reason: "FEC on plain UDP: FEC needs RTP sequence numbers (send RTP/AVP 33)"))
    }

    /// A FLUTE session as RFC 6726 §7 announces it (no private attribute) and a static file channel.
    @Test func standardFluteSessionsAndStaticFileChannelsAreFileChannels() throws {
        let configured = GatewayConfig.StaticChannel(name: "Static Files", kind: .file, group: IPAddress(parsing: "239.255.48.2")!, port: 48002,
                                                     rtp: false, fluteTSI: 7)
        var registry = ChannelRegistry(policy: Self.policy, staticChannels: [configured])
        _ = registry.feed(Announce.sdp(name: "Flute", media: ["m=application 48000 FLUTE/UDP 0", "a=flute-tsi:3",
                                                              "a=source-filter: incl IN IP4 * 10.0.0.9"]))
        let flute = try #require(registry.channel(id: "flute"))
        #expect(flute.kind == .file && flute.fluteTSI == 3 && flute.source?.description == "10.0.0.9")
        let fixed = try #require(registry.channel(id: "static-files"))
        #expect(fixed.kind == .file && fixed.fluteTSI == 7 && fixed.endpoints.map(\.port) == [48002])
    }

    @Test func aRefusedReannouncementRemovesTheChannel() throws {
        var registry = ChannelRegistry(policy: Self.policy)
        _ = registry.feed(Announce.sdp(name: "Bowl", version: 1))
        let channel = try #require(registry.channels.first)
        let changes = registry.feed(Announce.sdp(name: "Bowl", version: 2, license: Announce.other), at: Announce.second)
        #expect(changes == [.removed(channel, reason: .refused)])
        #expect(registry.refused.map(\.reason) == ["license triplet does not match this box"])
    }

    @Test func versionMismatchesAndDrops() {
        var registry = ChannelRegistry(policy: .permissive)
        var sapV2 = Announce.packet(Announce.sdp(name: "Bowl"))
        sapV2[0] = sapV2[0] & 0x1F | 2 << 5
        #expect(registry.receiveSAP(sapV2[...], from: Announce.streamer, at: 0) == .failure(.sapVersionMismatch))
        let sdpV1 = Announce.packet("v=1\r\no=gs 1 1 IN IP4 10.1.2.3\r\ns=x\r\n")
        #expect(registry.receiveSAP(sdpV1[...], from: Announce.streamer, at: 0) == .failure(.sdpInvalid))
        #expect(registry.counters.versionMismatches == 2)
        let garbage = Announce.packet("v=0\r\nnonsense\r\n")
        #expect(registry.receiveSAP(garbage[...], from: Announce.streamer, at: 0) == .failure(.sdpInvalid))
        #expect(registry.receiveSAP([0x20][...], from: Announce.streamer, at: 0) == .failure(.sapTruncated))
        #expect(registry.counters.versionMismatches == 2)
        #expect(registry.counters.announcementsReceived == 2)
        #expect(registry.channels.isEmpty)
    }

    @Test func compressedAnnouncementsAreCounted() throws {
        var registry = ChannelRegistry(policy: .permissive)
        let bytes = try Fixtures.bytes("discovery/sap-zlib.bin")
        let changes = try registry.receiveSAP(bytes[...], from: Announce.streamer, at: 0).get()
        #expect(changes.count == 1)
        #expect(registry.counters.compressedAnnouncementsReceived == 1)
        #expect(registry.counters.announcementsReceived == 1)
    }

    @Test func staticChannelsAreListedAndNeverRetired() {
        let group = IPAddress(parsing: "239.255.30.1")!
        let configured = [GatewayConfig.StaticChannel(name: "Bowl", kind: .video, group: group, port: 5000),
                          GatewayConfig.StaticChannel(name: "Bowl", kind: .data, group: group, port: 6000, rtp: false)]
        var registry = ChannelRegistry(policy: Self.policy, staticChannels: configured)
        #expect(registry.channels.map(\.id) == ["bowl", "bowl-2"])
        #expect(registry.channels.map(\.origin) == [.config, .config])
        #expect(registry.tick(now: Int64.max / 2).isEmpty)
        _ = registry.feed(Announce.sdp(name: "Bowl", group: "239.255.20.1"))
        #expect(registry.channels.map(\.id) == ["bowl", "bowl-2", "bowl-3"])
    }
}

struct RegistryLimitTests {
    @Test func sessionsAndRefusalsAreBounded() {
        var registry = ChannelRegistry(policy: RegistryPolicy(license: Announce.box))
        let total = ChannelRegistry.maximumSessions + 10
        for session in 0..<total {
            _ = registry.feed(Announce.sdp(name: "Ch", session: session))
        }
        #expect(registry.channels.count == ChannelRegistry.maximumSessions)
        #expect(registry.counters.overLimit == 10)
        #expect(registry.channel(id: "ch-1024")?.sessionNum == "1023")
        for session in 0..<(ChannelRegistry.maximumRefusals + 5) {
            _ = registry.feed(Announce.sdp(name: "Other", session: 10_000 + session, license: Announce.other))
        }
        #expect(registry.refused.count == ChannelRegistry.maximumRefusals)
        #expect(registry.counters.licenseMismatches == ChannelRegistry.maximumRefusals + 5)
    }
}
