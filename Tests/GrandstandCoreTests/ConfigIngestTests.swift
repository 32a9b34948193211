import Foundation
import Testing
import TestSupport
@testable import GrandstandCore

/// The ingest keys of the configuration: license.required, streamers.allow, static channels, discovery.
struct ConfigIngestTests {
    static let base = #""license":{"venueName":"V","contentOwner":"O","appDeveloper":"D"},"management":{"token":"t""#

    static func decode(_ members: String) throws -> GatewayConfig {
        try GatewayConfig.decode(Array("{\(base)}\(members.isEmpty ? "" : ",")\(members)}".utf8))
    }

    static func issues(_ members: String) -> [String] {
        thrownError(ConfigError.self) { try decode(members) }?.issues.map(\.description) ?? ["accepted"]
    }

    @Test func defaults() throws {
        let config = try Self.decode("")
        #expect(config.license.required)
        #expect(config.streamers.allow == [.any])
        #expect(config.channels.isEmpty)
        #expect(config.discovery.sapGroups.map(\.description) == ["224.2.127.254", "239.255.255.255", "ff0e::2:7ffe"])
        #expect(config.discovery.retireMinimumSeconds == 60)
        #expect(config.discovery.retireIntervalMultiple == 10)
    }

    @Test func theShippedConfigurationDecodesWithTheDocumentedDefaults() throws {
        let path = Fixtures.directory.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("rootfs-overlay/etc/grandstand/config.json")
        let config = try GatewayConfig.decode(Array(try Data(contentsOf: path)))
        #expect(config.streamers.allow == [.any])
        #expect(config.license.required)
        #expect(config.discovery == GatewayConfig.Discovery())
    }

    @Test func fecLimits() throws {
        #expect(try Self.decode("").fec == FECDecoderConfiguration())
        let config = try Self.decode(#""fec":{"timeoutMilliseconds":500,"recommendedMaxSymbols":60,"maxSymbols":200}"#)
        #expect(config.fec == FECDecoderConfiguration(timeoutNanoseconds: 500_000_000, matrixWaitBoundNanoseconds: 500_000_000,
                                                           recommendedMaxSymbols: 60, maxSymbols: 200))
        // A smaller maximum also lowers the default recommendation to it.
        #expect(try Self.decode(#""fec":{"maxSymbols":100}"#).fec.recommendedMaxSymbols == 100)
    }

    @Test(arguments: [
        (#""fec":{"timeoutMilliseconds":0}"#, "$.fec.timeoutMilliseconds: 0 is out of range 1...60000"),
        (#""fec":{"maxSymbols":300}"#, "$.fec.maxSymbols: 300 is out of range 2...255"),
        (#""fec":{"maxSymbols":50,"recommendedMaxSymbols":80}"#, "$.fec.recommendedMaxSymbols: 80 is out of range 2...50"),
        (#""fec":{"timeout":5}"#, "$.fec.timeout: unknown key (expected one of: maxSymbols, recommendedMaxSymbols, timeoutMilliseconds)"),
    ])
    func fecLimitsRejected(members: String, message: String) {
        #expect(Self.issues(members) == [message])
    }

    @Test func licenseRequiredFalse() throws {
        let config = try GatewayConfig.decode(Array(#"{"license":{"venueName":"V","contentOwner":"O","appDeveloper":"D","required":false},"management":{"token":"t"}}"#.utf8))
        #expect(!config.license.required)
        #expect(config.license.triplet == LicenseTriplet(venueName: "V", contentOwner: "O", appDeveloper: "D"))
    }

    @Test func licenseRequiredMustBeBoolean() {
        let issues = thrownError(ConfigError.self) {
            try GatewayConfig.decode(Array(#"{"license":{"venueName":"V","contentOwner":"O","appDeveloper":"D","required":"no"},"management":{"token":"t"}}"#.utf8))
        }?.issues.map(\.description)
        #expect(issues == ["$.license.required: expected true or false, got a string"])
    }

    @Test func streamerAllowList() throws {
        let config = try Self.decode(#""streamers":{"allow":["10.1.2.3","10.9.0.0/16","fd00::5","*"]}"#)
        #expect(config.streamers.allow.map(\.description) == ["10.1.2.3", "10.9.0.0/16", "fd00::5", "*"])
        let exact = try #require(AddressPattern(parsing: "10.1.2.3"))
        #expect(exact.matches(IPAddress(parsing: "10.1.2.3")!))
        #expect(!exact.matches(IPAddress(parsing: "10.1.2.4")!))
        let prefix = try #require(AddressPattern(parsing: "10.9.0.0/16"))
        #expect(prefix.matches(IPAddress(parsing: "10.9.200.1")!))
        #expect(!prefix.matches(IPAddress(parsing: "10.10.0.1")!))
        #expect(!prefix.matches(IPAddress(parsing: "fd00::5")!))
        let v6 = try #require(AddressPattern(parsing: "fd00::/72"))
        #expect(v6.matches(IPAddress(parsing: "fd00::00ff:1:2:3")!))
        #expect(!v6.matches(IPAddress(parsing: "fd00::0:100:0:0:1")!))
        #expect(AddressPattern.any.matches(IPAddress(parsing: "ff0e::1")!))
    }

    @Test func emptyAllowListRefusesEveryone() throws {
        let config = try Self.decode(#""streamers":{"allow":[]}"#)
        #expect(config.streamers.allow.isEmpty)
        #expect(!RegistryPolicy(config: config).allows(streamer: IPAddress(parsing: "10.0.0.1")!))
    }

    @Test func staticChannels() throws {
        let config = try Self.decode(#"""
        "channels":[{"name":"Bowl","kind":"video","group":"239.255.20.1","port":5000,"fec":{"scheme":"smpte2022-1"}},
                    {"name":"Scores","kind":"data","group":"ff15::9","port":5100,"transport":"udp","source":"fd00::1"},
                    {"name":"RS","kind":"video","group":"239.255.20.2","port":6000,"fec":{"scheme":"reed-solomon","k":20,"m":4}},
                    {"name":"RS2","kind":"video","group":"239.255.20.3","port":6000,"channelText":"t","bandwidthKbps":500,
                     "fec":{"scheme":"reed-solomon","k":10,"m":2,"repairPort":7000}},
                    {"name":"None","kind":"video","group":"239.255.20.4","port":6000,"fec":{"scheme":"none"}},
                    {"name":"LD","kind":"video","group":"239.255.20.5","port":6000,"fec":{"scheme":"smpte2022-1","L":10,"D":10}}]
        """#)
        #expect(config.channels.count == 6)
        #expect(config.channels[0] == GatewayConfig.StaticChannel(name: "Bowl", kind: .video, group: IPAddress(parsing: "239.255.20.1")!,
                                                                  port: 5000, fec: .smpte2022_1(columns: nil, rows: nil)))
        #expect(config.channels[1].rtp == false)
        #expect(config.channels[1].source == IPAddress(parsing: "fd00::1"))
        #expect(config.channels[2].fec == .reedSolomon(k: 20, m: 4, repairPort: 6002))
        #expect(config.channels[3].fec == .reedSolomon(k: 10, m: 2, repairPort: 7000))
        #expect(config.channels[3].bandwidthKbps == 500)
        #expect(config.channels[4].fec == FECParameters.none)
        #expect(config.channels[5].fec == .smpte2022_1(columns: 10, rows: 10))
        #expect(config.channels.allSatisfy { $0.programs == .auto })
    }

    @Test func programChoices() throws {
        let config = try Self.decode(#"""
        "discovery":{"programs":"whole"},
        "channels":[{"name":"Mux","kind":"video","group":"239.255.20.1","port":5000,"transport":"udp","programs":[3,1]},
                    {"name":"Whole","kind":"video","group":"239.255.20.2","port":5000,"programs":"whole"},
                    {"name":"Auto","kind":"video","group":"239.255.20.3","port":5000,"programs":"auto"}]
        """#)
        #expect(config.discovery.programs == .whole)
        #expect(RegistryPolicy(config: config).programs == .whole)
        #expect(config.channels.map(\.programs) == [.only([3, 1]), .whole, .auto])
    }

    @Test func secondPaths() throws {
        let config = try Self.decode(#"""
        "channels":[{"name":"Dual","kind":"video","group":"239.255.20.1","port":5000,
                     "secondary":{"group":"239.255.21.1","port":5000,"source":"10.0.0.2","maxSkewMilliseconds":100,"silenceMilliseconds":500}},
                    {"name":"Defaults","kind":"video","group":"239.255.20.2","port":5000,"transport":"udp","secondary":{"group":"239.255.20.2","port":5002}}]
        """#)
        #expect(config.channels[0].secondPath == SecondPath(endpoint: IngestEndpoint(group: IPAddress(parsing: "239.255.21.1")!, port: 5000,
                                                                                      source: IPAddress(parsing: "10.0.0.2")),
                                                            maxSkewNanoseconds: 100_000_000, silenceNanoseconds: 500_000_000))
        #expect(config.channels[1].secondPath?.maxSkewNanoseconds == SecondPath.defaultMaxSkewNanoseconds)
        #expect(config.channels[1].secondPath?.silenceNanoseconds == SecondPath.defaultSilenceNanoseconds)
    }

    @Test(arguments: [
        (#""streamers":{"allow":["10.1.2.300","*",5,"10.0.0.0/33"],"deny":[]}"#,
         ["$.streamers.deny: unknown key (expected one of: allow)",
          "$.streamers.allow[0]: \"10.1.2.300\" is not an IP address, an address/prefix-length or \"*\"",
          "$.streamers.allow[2]: expected a string, got a number",
          "$.streamers.allow[3]: \"10.0.0.0/33\" is not an IP address, an address/prefix-length or \"*\""]),
        (#""streamers":{"allow":"*"}"#, ["$.streamers.allow: expected an array, got a string"]),
        (#""discovery":{"sapGroups":["10.0.0.1","x",true],"retireMinimumSeconds":0,"retireIntervalMultiple":1.5}"#,
         ["$.discovery.sapGroups[0]: 10.0.0.1 is not a multicast group (224.0.0.0/4 or ff00::/8)",
          "$.discovery.sapGroups[1]: \"x\" is not an IP address",
          "$.discovery.sapGroups[2]: expected a string, got a boolean",
          "$.discovery.retireMinimumSeconds: 0 is out of range 1...86400",
          "$.discovery.retireIntervalMultiple: expected an integer, got a fraction"]),
        (#""discovery":{"sapGroups":[],"timeout":5}"#,
         ["$.discovery.timeout: unknown key (expected one of: programs, retireIntervalMultiple, retireMinimumSeconds, sapGroups)",
          "$.discovery.sapGroups: must list at least one group (or leave the key out)"]),
        (#""channels":[{"kind":"audio","group":"10.0.0.1","port":0,"colour":1}]"#,
         ["$.channels[0].colour: unknown key (expected one of: bandwidthKbps, channelText, fec, group, kind, name, port, programs, secondary, source, srt, transport, tsi)",
          "$.channels[0].name: required string is missing",
          "$.channels[0].kind: \"audio\" is not a channel kind (video, data, file)",
          "$.channels[0].group: 10.0.0.1 is not a multicast group (224.0.0.0/4 or ff00::/8)",
          "$.channels[0].port: 0 is out of range 1...65535"]),
        (#""channels":[{"name":"a","kind":"video"}]"#,
         ["$.channels[0].group: required string is missing", "$.channels[0].port: required integer is missing"]),
        (#""channels":[{"name":"a","kind":"video","group":"239.1.1.1","port":5,"transport":"udp","source":"nope"}]"#,
         ["$.channels[0].source: \"nope\" is not an IP address"]),
        (#""channels":[{"name":"a","kind":"video","group":"239.1.1.1","port":5,"transport":"udp","fec":{"scheme":"smpte2022-1"}}]"#,
         ["$.channels[0].fec: FEC needs RTP sequence numbers; a \"udp\" channel finds loss from TS continuity counters"]),
        (#""channels":[{"name":"f","kind":"file","group":"239.1.1.1","port":5,"tsi":1,"fec":{"scheme":"none"},"transport":"udp"}]"#,
         ["$.channels[0].fec: file channels carry their FEC inside FLUTE (its FEC Encoding ID); leave fec out",
          "$.channels[0].transport: file channels are FLUTE over UDP; leave transport out"]),
        (#""channels":[{"name":"v","kind":"video","group":"239.1.1.1","port":5,"tsi":1},{"name":"f","kind":"file","group":"239.1.1.1","port":7,"tsi":-1}]"#,
         ["$.channels[0].tsi: only file channels (FLUTE) have a TSI", "$.channels[1].tsi: -1 is out of range 0...281474976710655"]),
        (#""channels":[{"name":"a","kind":"video","group":"239.1.1.1","port":5,"programs":"split"},{"name":"b","kind":"video","group":"239.1.1.1","port":6,"programs":[]},{"name":"c","kind":"video","group":"239.1.1.1","port":7,"programs":[1,0,1]},{"name":"d","kind":"data","group":"239.1.1.1","port":8,"programs":"whole"}]"#,
         ["$.channels[0].programs: \"split\" is not a program choice (\"auto\", \"whole\" or an array of program numbers)",
          "$.channels[1].programs: must list at least one program number (or use \"whole\")",
          "$.channels[2].programs[1]: 0 is out of range 1...65535", "$.channels[2].programs[2]: program 1 is listed twice",
          "$.channels[3].programs: only video channels carry MPEG-TS programs"]),
        (#""channels":[{"name":"a","kind":"video","group":"239.1.1.1","port":5,"secondary":{"group":"239.1.1.1","port":5}},{"name":"b","kind":"video","group":"239.1.1.2","port":5,"secondary":{"group":"239.1.1.1","port":5}},{"name":"c","kind":"data","group":"239.1.1.3","port":5,"secondary":{"group":"239.2.1.3","port":5}},{"name":"d","kind":"video","group":"239.1.1.4","port":5,"secondary":{"port":5,"maxSkewMilliseconds":500,"lag":1}}]"#,
         ["$.channels[0].secondary: is the channel's own group, port and source; a second path must differ (or arrive on another interface)",
          "$.channels[1].secondary: 239.1.1.1:5 is already used by $.channels[0]",
          "$.channels[2].secondary: only video channels take a second path (SMPTE ST 2022-7)",
          "$.channels[3].secondary.lag: unknown key (expected one of: group, interface, maxSkewMilliseconds, port, silenceMilliseconds, source, srt)",
          "$.channels[3].secondary.group: required string is missing",
          "$.channels[3].secondary.maxSkewMilliseconds: 500 is out of range 1...450"]),
        (#""discovery":{"programs":[1]}"#,
         ["$.discovery.programs: announced channels take \"auto\" or \"whole\"; pick programs in a static channel"]),
        (#""channels":[{"name":"a","kind":"data","group":"239.1.1.1","port":5,"transport":"tcp"}]"#,
         ["$.channels[0].transport: \"tcp\" is not a transport (rtp, udp)"]),
        (#""channels":[{"name":"a","kind":"video","group":"239.1.1.1","port":5},{"name":"b","kind":"data","group":"239.1.1.1","port":5}]"#,
         ["$.channels[1]: 239.1.1.1:5 is already used by $.channels[0]"]),
        (#""channels":{}"#, ["$.channels: expected an array, got an object"]),
        (#""channels":[{"name":"a","kind":"video","group":"239.1.1.1","port":5,"fec":{"scheme":"raptor"}}]"#,
         ["$.channels[0].fec.scheme: \"raptor\" is not a FEC scheme (none, smpte2022-1, reed-solomon)"]),
        (#""channels":[{"name":"a","kind":"video","group":"239.1.1.1","port":5,"fec":{}}]"#,
         ["$.channels[0].fec.scheme: required string is missing"]),
        (#""channels":[{"name":"a","kind":"video","group":"239.1.1.1","port":5,"fec":{"scheme":"smpte2022-1","L":0,"D":30,"k":3}}]"#,
         ["$.channels[0].fec.L: 0 is out of range 1...20", "$.channels[0].fec.D: 30 is out of range 1...20",
          "$.channels[0].fec.k: not a parameter of scheme smpte2022-1"]),
        (#""channels":[{"name":"a","kind":"video","group":"239.1.1.1","port":5,"fec":{"scheme":"smpte2022-1","L":20,"D":20}}]"#,
         ["$.channels[0].fec: L×D = 400 exceeds 100"]),
        (#""channels":[{"name":"a","kind":"video","group":"239.1.1.1","port":5,"fec":{"scheme":"reed-solomon","m":4}}]"#,
         ["$.channels[0].fec.k: required integer is missing"]),
        (#""channels":[{"name":"a","kind":"video","group":"239.1.1.1","port":5,"fec":{"scheme":"reed-solomon","k":200,"m":100}}]"#,
         ["$.channels[0].fec: k + m = 300 exceeds 255 (GF(2^8) codeword length)"]),
        (#""channels":[{"name":"a","kind":"video","group":"239.1.1.1","port":5,"fec":{"scheme":"reed-solomon","k":2,"m":1,"repairPort":5}}]"#,
         ["$.channels[0].fec.repairPort: must differ from the channel's port"]),
        (#""channels":[{"name":"a","kind":"video","group":"239.1.1.1","port":5,"fec":{"scheme":"none","L":4}}]"#,
         ["$.channels[0].fec.L: not a parameter of scheme none"]),
    ])
    func rejectsWithPathAndReason(members: String, messages: [String]) {
        #expect(Self.issues(members) == messages)
    }
}

/// The x-grandstand-fec SDP attribute.
struct FECAttributeTests {
    @Test(arguments: [
        ("scheme=none", FECParameters.none),
        ("scheme=smpte2022-1", FECParameters.smpte2022_1(columns: nil, rows: nil)),
        ("scheme=smpte2022-1;L=10;D=5", FECParameters.smpte2022_1(columns: 10, rows: 5)),
        ("scheme=reed-solomon;k=20;m=4", FECParameters.reedSolomon(k: 20, m: 4, repairPort: 5002)),
        ("scheme=Reed-Solomon; k=20; m=4; repairPort=6000", FECParameters.reedSolomon(k: 20, m: 4, repairPort: 6000)),
    ])
    func parses(value: String, expected: FECParameters) {
        #expect(FECParameters.parse(value, mediaPort: 5000) == .success(expected))
        #expect(FECParameters.parse(expected.attributeValue, mediaPort: 5000) == .success(expected))
    }

    @Test(arguments: [
        ("L=5", "malformed x-grandstand-fec: missing scheme"),
        ("scheme=xor", "malformed x-grandstand-fec: unknown scheme \"xor\" (none, smpte2022-1, reed-solomon)"),
        ("scheme=smpte2022-1;L=30", "malformed x-grandstand-fec: L 30 is out of range 1...20"),
        ("scheme=smpte2022-1;L=x", "malformed x-grandstand-fec: L and D must be numbers"),
        ("scheme=reed-solomon;k=4", "malformed x-grandstand-fec: reed-solomon needs numeric k and m"),
        ("scheme=reed-solomon;k=4;m=2;repairPort=70000", "malformed x-grandstand-fec: repairPort must be 1...65535"),
        ("scheme=none;scheme=none", "malformed x-grandstand-fec: scheme appears twice"),
        ("scheme", "malformed x-grandstand-fec: \"scheme\" is not key=value"),
    ])
    func rejects(value: String, message: String) {
        guard case .failure(let error) = FECParameters.parse(value, mediaPort: 5000) else {
            Issue.record("accepted \(value)")
            return
        }
        #expect(error.description == message)
    }

    @Test func repairPorts() {
        #expect(FECParameters.none.repairPorts(mediaPort: 5000) == [])
        #expect(FECParameters.smpte2022_1(columns: 5, rows: 4).repairPorts(mediaPort: 5000) == [5002, 5004])
        #expect(FECParameters.reedSolomon(k: 4, m: 2, repairPort: 7000).repairPorts(mediaPort: 5000) == [7000])
    }
}
