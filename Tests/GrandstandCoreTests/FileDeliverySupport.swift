@testable import GrandstandCore

/// Helpers for the FLUTE tests: a carousel drained to its packets, a deterministic RNG, and a
/// receiver fed a packet list.
enum FluteTesting {
    static let destination = Endpoint(address: .v4(0xEFFF_1E01), port: 4000)
    /// 2026-01-01T00:00:00Z in Unix ns: FDT instances made "now" expire a day later.
    static let start: Int64 = 1_767_225_600_000_000_000

    static func carousel(_ files: [FluteFile], options: FluteCarouselSource.Options,
                         reload: (@Sendable () -> [FluteFile]?)? = nil) throws -> FluteCarouselSource {
        try FluteCarouselSource(flow: "files", destination: destination, files: files, options: options, startNanoseconds: start,
                                math: options.repairSymbols > 0 ? RFC5510Reference() : nil, reload: reload)
    }

    /// Every datagram of the carousel (it must have a round limit), with due times.
    static func drain(_ source: inout FluteCarouselSource, limit: Int = 1_000_000) -> [ScheduledDatagram] {
        var out: [ScheduledDatagram] = []
        while source.nextDueNanoseconds != nil, out.count < limit { out.append(contentsOf: source.pop()) }
        return out
    }

    static func feed(_ receiver: inout FluteReceiver, _ datagrams: [ScheduledDatagram]) -> [FluteEvent] {
        var events: [FluteEvent] = []
        for datagram in datagrams { events += receiver.receive(datagram.payload[...], nowNanoseconds: datagram.dueNanoseconds) }
        return events
    }

    static func completed(_ events: [FluteEvent]) -> [FluteObject] {
        events.compactMap { if case .completed(let object) = $0 { return object } else { return nil } }
    }

    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var rng = SplitMix(seed: seed)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    }
}

/// The suite's SplitMix64 (FECReedSolomonTests) as a generator for shuffles.
extension SplitMix: RandomNumberGenerator {}

/// FEC Encoding ID 5 in pure Swift for the core's FLUTE tests: `RFC5510Generator`'s matrix, and
/// decoding by Gauss-Jordan on the survivors' generator rows (the product's is ISA-L, checked
/// against zfec in ErasureCodingTests/RFC5510InteropTests).
final class RFC5510Reference: ReedSolomonMath, Sendable {
    struct Singular: Error {}

    func encode(sourceCount k: Int, repairCount m: Int, symbolLength: Int, sources: [[UInt8]]) throws -> [[UInt8]] {
        guard let repairs = RFC5510Generator.encode(sources: sources, repairCount: m) else { throw Singular() }
        return repairs
    }

    func reconstruct(sourceCount k: Int, repairCount m: Int, symbolLength: Int, received: [Int: [UInt8]]) throws -> [Int: [UInt8]] {
        guard let g = RFC5510Generator.matrix(sourceCount: k, repairCount: m) else { throw Singular() }
        let survivors = Array(received.keys.sorted().prefix(k))
        guard survivors.count == k else { throw Singular() }
        var rows: [UInt8] = []
        for index in survivors { rows += g[(index * k)..<((index + 1) * k)] }
        guard let inverse = RFC5510Generator.invert(rows, size: k) else { throw Singular() }
        var out: [Int: [UInt8]] = [:]
        for j in 0..<k where received[j] == nil {
            var symbol = [UInt8](repeating: 0, count: symbolLength)
            for (t, index) in survivors.enumerated() {
                let c = inverse[j * k + t]
                guard c != 0, let bytes = received[index] else { continue }
                for i in 0..<symbolLength { symbol[i] ^= RFC5510Generator.multiply(c, bytes[i]) }
            }
            out[j] = symbol
        }
        return out
    }
}
