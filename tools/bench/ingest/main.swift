// The pure packet path for tools/bench/ingest.sh (docs/performance.md, "Ingest"): a capture read
// with the Capture adapter (libpcap, `next(into:)`, the same BPF filter as the raw reader),
// every frame through IngestPipeline (FrameDecoder, SAP/registry, RTP, sequence and jitter, the
// recovery stage, TS split and continuity) with the product's configuration (licence, allow-list,
// FEC stages on ISA-L), ticks every 50 ms of capture time, and every action looked at. That is
// `grandstand replay`'s loop without its output: no files, no HLS packaging, no video health.
// Times itself from open to close like tools/bench/pcap-read.c and prints its line format:
//   packets=N bytes=B seconds=S packets_per_second=R sum=X
// Usage: ingest-bench FILE CONFIG [FILTER]
import Capture
import Foundation
import ErasureCoding
import GrandstandCore
#if canImport(Glibc)
import Glibc
#endif

func fail(_ message: String) -> Never {
    let line = Array("ingest-bench: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}

func now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

let arguments = CommandLine.arguments
guard arguments.count == 3 || arguments.count == 4 else {
    fail("usage: ingest-bench FILE CONFIG [FILTER]")
}
let config: GatewayConfig
do {
    guard let bytes = FileManager.default.contents(atPath: arguments[2]) else { fail("cannot read \(arguments[2])") }
    config = try GatewayConfig.decode(Array(bytes))
} catch { fail("configuration \(arguments[2]): \(error)") }
// What `grandstand replay --config` builds (Sources/GrandstandIngest/Live/ProductIngest.swift).
let configuration = IngestConfiguration(config: config,
                                        recovery: FECRecovery.factory(configuration: config.fec, math: { ISALReedSolomonMath() }))

/// Looks at every action as a consumer would (lengths and one byte of each TS run), so nothing is
/// optimized away; the bytes themselves are not summed (the pipeline hands slices on, it does not
/// copy them).
func consume(_ actions: [IngestAction]) -> UInt64 {
    var sum: UInt64 = 0
    for action in actions {
        switch action {
        case .transportStream(_, let packets, _): sum &+= UInt64(packets.count) &+ UInt64(packets[packets.startIndex + 3])
        case .gap(_, let lost, _): sum &+= UInt64(lost)
        case .dataMessage(_, let payload, _), .fileDatagram(_, let payload, _): sum &+= UInt64(payload.count)
        case .channelsChanged(let changes): sum &+= UInt64(changes.count)
        case .path: sum &+= 1
        }
    }
    return sum
}

let start = now()
var packets = 0, bytes = 0
var sum: UInt64 = 0
do {
    let capture = try PacketCapture.open(file: arguments[1])
    if arguments.count == 4 { try capture.setFilter(arguments[3]) }
    guard let link = LinkLayer(linkType: capture.linkType.rawValue) else { fail("unsupported link type \(capture.linkType.name)") }
    var pipeline = IngestPipeline(configuration: configuration)
    var frame: [UInt8] = []
    frame.reserveCapacity(65_536)
    var actions: [IngestAction] = []
    var nextTick: Int64? = nil
    let step: Int64 = 50_000_000   // replay's tick (Replay.tickNanoseconds)
    var last: Int64 = 0
    while let packet = try capture.next(into: &frame) {
        let time = packet.timestampNanoseconds
        if nextTick.map({ time >= $0 }) ?? true {
            sum &+= consume(pipeline.tick(nowNanoseconds: time))
            var steps = time / step
            if time % step < 0 { steps -= 1 }
            nextTick = (steps + 1) * step
        }
        packets += 1
        bytes += frame.count
        last = time
        pipeline.ingest(frame: frame[...], link: link, timestampNanoseconds: time, into: &actions)
        sum &+= consume(actions)
        actions.removeAll(keepingCapacity: true)
    }
    sum &+= consume(pipeline.tick(nowNanoseconds: last))
    sum &+= UInt64(pipeline.stats.total("ts_packets") ?? 0)
} catch {
    fail("\(error)")
}
let seconds = now() - start
let rate = Int((Double(packets) / seconds).rounded())
print("packets=\(packets) bytes=\(bytes) seconds=\(seconds) packets_per_second=\(rate) sum=\(sum)")
