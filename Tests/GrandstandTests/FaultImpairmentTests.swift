import GrandstandCore
import Testing
@testable import GrandstandStreamer

/// `grandstand send --impair`: the faults the network fault tests inject, checked datagram by
/// datagram (pure, so everywhere including qemu-user).
struct FaultImpairmentTests {
    static let destination = Endpoint(address: .v4(0xEFFF_3E01), port: 5000)

    static func datagrams(_ flow: String, _ count: Int, from first: Int = 0) -> [ScheduledDatagram] {
        (first..<(first + count)).map { ScheduledDatagram(flow: flow, destination: destination, payload: [UInt8(truncatingIfNeeded: $0)],
                                                          dueNanoseconds: Int64($0) * 1_000_000) }
    }

    static func impairment(_ spec: String) throws -> SendImpairment {
        try SendImpairment.parse(spec, seed: 7).get()
    }

    @Test(arguments: ["loss=0.1", "duplicate=2", "reorder=-0.1", "jitter=x", "burst=5", "burst=5/5", "burst=0/10", "duplicate"])
    func malformedSpecsAreRefusedWithTheReason(spec: String) {
        guard case .failure(let failure) = SendImpairment.parse(spec, seed: 1) else {
            Issue.record("\(spec) accepted")
            return
        }
        #expect(failure.description.hasPrefix("--impair:"), "\(failure)")
    }

    @Test func burstsDropTheLastNOfEveryMPerFlowAndNeverSAP() throws {
        var faults = try Self.impairment("burst=3/10")
        let out = faults.process(Self.datagrams("cam", 25) + Self.datagrams("sap", 5), now: 0)
        let kept = out.filter { $0.flow == "cam" }.map { Int($0.payload[0]) }
        #expect(kept == [0, 1, 2, 3, 4, 5, 6, 10, 11, 12, 13, 14, 15, 16, 20, 21, 22, 23, 24])
        #expect(out.filter { $0.flow == "sap" }.count == 5)
        #expect(faults.counts.burstDropped == 6)
    }

    @Test func duplicatesAreSentTwice() throws {
        var faults = try Self.impairment("duplicate=1")
        let out = faults.process(Self.datagrams("cam", 4), now: 0)
        #expect(out.map { Int($0.payload[0]) } == [0, 0, 1, 1, 2, 2, 3, 3])
        #expect(faults.counts.duplicated == 4)
    }

    @Test func reorderedPacketsFollowTheirSuccessor() throws {
        var faults = try Self.impairment("reorder=1")
        // Every packet is held back; the next one releases it behind itself.
        let out = faults.process(Self.datagrams("cam", 4), now: 0)
        #expect(out.map { Int($0.payload[0]) } == [1, 0, 3, 2])
        // A lone held packet goes out after 50 ms without a successor.
        #expect(faults.process(Self.datagrams("cam", 1, from: 4), now: 0).isEmpty)
        #expect(faults.nextDueNanoseconds == 50_000_000)
        #expect(faults.process([], now: 60_000_000).map { Int($0.payload[0]) } == [4])
        // One still held when the run ends goes out with the deletions, counted.
        #expect(faults.process(Self.datagrams("cam", 1, from: 5), now: 70_000_000).isEmpty)
        #expect(faults.drain().map { Int($0.payload[0]) } == [5])
        #expect(faults.counts.drainedLate == 1 && faults.summary.hasSuffix(", 1 held past the run"))
    }

    @Test func jitterDelaysWithinTheBoundAndReleasesInDueOrder() throws {
        var faults = try Self.impairment("jitter=10")
        var released = faults.process(Self.datagrams("cam", 100), now: 0)
        var now: Int64 = 0
        while let next = faults.nextDueNanoseconds {
            now = max(now, next)
            released += faults.process([], now: now)
        }
        #expect(now <= 10_000_000)
        #expect(faults.counts.delayed == 100)
        #expect(released.count == 100)
        let due = released.map(\.dueNanoseconds)
        #expect(due == due.sorted())
        #expect(faults.drain().isEmpty)
    }
}
