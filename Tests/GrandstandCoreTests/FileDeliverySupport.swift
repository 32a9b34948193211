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
                                math: options.repairSymbols > 0 ? ReferenceReedSolomon() : nil, reload: reload)
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
