// The whole IngestPipeline (frame decoding, SAP registry, per-channel RTP receivers, SMPTE
// 2022-1 and Reed-Solomon recovery, plain-UDP TS reassembly) driven by a script of operations:
//   0: captured frame   [link u8][length u16][bytes]
//   1: SAP datagram     [length u16][bytes] to 239.255.255.255:9875
//   2: media datagram   [endpoint u8][length u16][bytes] to a channel's group and port (a
//                       dual-path channel's second path is an endpoint of its own)
//   3: repair datagram  [endpoint u8][port offset u8][length u16][bytes]
//   4: time passes      [milliseconds u16], then tick
//   5: stream chunk     [channel u8][path u8][length u16][bytes] (SRT messages, either path)
//   6: other interface  [endpoint u8][length u16][bytes] captured on "vlan20" (second paths there)
// Every op also advances the clock 1 ms. Static channels cover each receiver kind.
@testable import GrandstandCore

let links: [LinkLayer] = [.ethernet, .linuxCooked, .linuxCooked2, .raw, .null]

/// Reed-Solomon math that cannot rebuild: windows still open, count and fail (the real GF(2^8)
/// code is an adapter, ISA-L, outside the pure core).
struct FailingMath: ReedSolomonMath {
    struct Unavailable: Error {}
    func encode(sourceCount k: Int, repairCount m: Int, symbolLength: Int, sources: [[UInt8]]) throws -> [[UInt8]] {
        throw Unavailable()
    }
    func reconstruct(sourceCount k: Int, repairCount m: Int, symbolLength: Int, received: [Int: [UInt8]]) throws -> [Int: [UInt8]] {
        throw Unavailable()
    }
}

let channels: [GatewayConfig.StaticChannel] = [
    .init(name: "plain", kind: .video, group: ipv4(239, 1, 1, 1), port: 5000),
    .init(name: "smpte", kind: .video, group: ipv4(239, 1, 1, 2), port: 5000, fec: .smpte2022_1(columns: 4, rows: 4)),
    .init(name: "smpte-any", kind: .video, group: ipv4(239, 1, 1, 3), port: 5000, fec: .smpte2022_1(columns: nil, rows: nil)),
    .init(name: "rs", kind: .video, group: ipv4(239, 1, 1, 4), port: 5000, fec: .reedSolomon(k: 10, m: 3, repairPort: 5002)),
    .init(name: "data-rtp", kind: .data, group: ipv4(239, 1, 1, 5), port: 6000),
    .init(name: "data-udp", kind: .data, group: ipv4(239, 1, 1, 6), port: 6000, rtp: false),
    // MPEG-TS over plain UDP: packets cut across datagrams, loss from continuity counters.
    .init(name: "video-udp", kind: .video, group: ipv4(239, 1, 1, 7), port: 5000, rtp: false),
    // SMPTE ST 2022-7: the same RTP stream on two groups, and plain UDP failing over.
    .init(name: "dual", kind: .video, group: ipv4(239, 1, 1, 8), port: 5000,
          secondPath: SecondPath(endpoint: IngestEndpoint(group: ipv4(239, 1, 2, 8), port: 5000))),
    .init(name: "dual-udp", kind: .video, group: ipv4(239, 1, 1, 9), port: 5000, rtp: false,
          secondPath: SecondPath(endpoint: IngestEndpoint(group: ipv4(239, 1, 2, 9), port: 5000))),
    // A second path over SRT (failover, RTP unwrapped), and one on another interface (same group).
    .init(name: "dual-srt", kind: .video, group: ipv4(239, 1, 1, 10), port: 5000,
          secondPath: SecondPath(srt: SRTSource(host: "", port: 9000, mode: .listener))),
    .init(name: "dual-if", kind: .video, group: ipv4(239, 1, 1, 11), port: 5000,
          secondPath: SecondPath(endpoint: IngestEndpoint(group: ipv4(239, 1, 1, 11), port: 5000), interface: "vlan20")),
]

let streamChannels = ["dual-srt", "video-udp", "dual-udp", "nonexistent"]

/// Where media datagrams go: every channel's group and port, and each second path.
let mediaEndpoints: [Endpoint] = channels.compactMap { channel in channel.group.map { Endpoint(address: $0, port: channel.port) } }
    + channels.compactMap { $0.secondPath?.endpoint.map { Endpoint(address: $0.group, port: $0.port) } }

let configuration = IngestConfiguration(policy: .permissive, staticChannels: channels,
                                        recovery: FECRecovery.factory(math: { FailingMath() }))

func fuzzOne(_ bytes: [UInt8]) {
    var pipeline = IngestPipeline(configuration: configuration)
    var cursor = FuzzCursor(bytes)
    var now: Int64 = 1_000_000_000
    let streamer = Endpoint(address: ipv4(10, 1, 2, 3), port: 40000)
    var actions: [IngestAction] = []
    while !cursor.isAtEnd {
        now += 1_000_000
        switch cursor.u8() % 7 {
        case 0:
            let link = links[Int(cursor.u8()) % links.count]
            pipeline.ingest(frame: cursor.chunk(), link: link, timestampNanoseconds: now, into: &actions)
        case 1:
            let datagram = Datagram(source: streamer, destination: Endpoint(address: ipv4(239, 255, 255, 255), port: SAPMessage.port),
                                    payload: cursor.chunk(), timestampNanoseconds: now, hopLimit: 8)
            pipeline.ingest(datagram, into: &actions)
        case 2:
            let endpoint = mediaEndpoints[Int(cursor.u8()) % mediaEndpoints.count]
            let datagram = Datagram(source: streamer, destination: endpoint,
                                    payload: cursor.chunk(), timestampNanoseconds: now, hopLimit: 8)
            pipeline.ingest(datagram, into: &actions)
        case 3:
            let endpoint = mediaEndpoints[Int(cursor.u8()) % mediaEndpoints.count]
            let port = endpoint.port &+ UInt16(cursor.u8() % 5)
            let datagram = Datagram(source: streamer, destination: Endpoint(address: endpoint.address, port: port),
                                    payload: cursor.chunk(), timestampNanoseconds: now, hopLimit: 8)
            pipeline.ingest(datagram, into: &actions)
        case 5:
            let channel = streamChannels[Int(cursor.u8()) % streamChannels.count]
            let path: SeamlessMerger.Path = cursor.u8() % 2 == 0 ? .primary : .secondary
            pipeline.ingest(stream: cursor.chunk(), channelID: channel, path: path, timestampNanoseconds: now, into: &actions)
        case 6:
            let endpoint = mediaEndpoints[Int(cursor.u8()) % mediaEndpoints.count]
            let datagram = Datagram(source: streamer, destination: endpoint, payload: cursor.chunk(), timestampNanoseconds: now, hopLimit: 8)
            pipeline.ingest(datagram, interface: "vlan20", into: &actions)
        default:
            now += Int64(cursor.u16()) * 1_000_000
            actions += pipeline.tick(nowNanoseconds: now)
        }
        if actions.count > 256 { check(actions); actions.removeAll(keepingCapacity: true) }
    }
    actions += pipeline.tick(nowNanoseconds: now + 3_600_000_000_000)
    check(actions)
    _ = pipeline.stats
    _ = pipeline.endpoints
    _ = pipeline.endpoints(onInterface: "vlan20")
}

func check(_ actions: [IngestAction]) {
    for action in actions {
        switch action {
        case .transportStream(_, let packets, _):
            require(packets.count % 188 == 0, "transport stream actions carry whole 188-byte packets")
            require(stride(from: packets.startIndex, to: packets.endIndex, by: 188).allSatisfy { packets[$0] == 0x47 },
                    "every packet handed on starts with the sync byte")
        case .gap(_, let lost, _):
            require(lost > 0, "a gap loses at least one packet")
        default:
            break
        }
    }
}
