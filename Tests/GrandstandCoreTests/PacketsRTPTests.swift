import Testing
@testable import GrandstandCore

struct PacketsRTPTests {
    /// V=2, given flags, PT 33, seq 0x1234, ts 0x01020304, SSRC 0xCAFEBABE.
    static func header(padding: Bool = false, csrcs: [UInt32] = [], extensionWords: [UInt32]? = nil) -> [UInt8] {
        var first: UInt8 = 0x80 | UInt8(csrcs.count)
        if padding { first |= 0x20 }
        if extensionWords != nil { first |= 0x10 }
        var bytes: [UInt8] = [first, 0x80 | 33, 0x12, 0x34, 1, 2, 3, 4, 0xCA, 0xFE, 0xBA, 0xBE]
        for c in csrcs { bytes += [UInt8(c >> 24), UInt8(c >> 16 & 0xFF), UInt8(c >> 8 & 0xFF), UInt8(c & 0xFF)] }
        if let words = extensionWords {
            bytes += [0xBE, 0xDE, 0, UInt8(words.count)]
            for w in words { bytes += [UInt8(w >> 24), UInt8(w >> 16 & 0xFF), UInt8(w >> 8 & 0xFF), UInt8(w & 0xFF)] }
        }
        return bytes
    }

    @Test func parsesFixedHeaderCSRCsExtensionAndPadding() throws {
        let bytes = Self.header(padding: true, csrcs: [7, 8], extensionWords: [0xAABBCCDD]) + [9, 9, 9] + [0, 0, 3]
        guard case .success(let p) = RTPPacket.parse(bytes) else { Issue.record("not parsed"); return }
        #expect(p.marker && p.payloadType == 33 && p.sequenceNumber == 0x1234)
        #expect(p.timestamp == 0x0102_0304 && p.ssrc == 0xCAFE_BABE)
        #expect(p.csrcs == [7, 8])
        #expect(p.extensionProfile == 0xBEDE && Array(p.extensionData) == [0xAA, 0xBB, 0xCC, 0xDD])
        #expect(Array(p.payload) == [9, 9, 9] && p.paddingLength == 3)
    }

    static func rejectCases() -> [([UInt8], DropReason)] {
        var version1 = header()
        version1[0] = 0x40
        let zeroPadding: [UInt8] = header(padding: true) + [1, 2, 0]
        let overlongPadding: [UInt8] = header(padding: true) + [1, 2, 4]
        let shortCSRC: [UInt8] = Array(header(csrcs: [1]).dropLast(1))
        let shortHeader: [UInt8] = Array(header().prefix(11))
        return [(version1, .rtpBadVersion), (zeroPadding, .rtpBadPadding), (overlongPadding, .rtpBadPadding),
                (shortCSRC, .rtpTruncated), (shortHeader, .rtpTruncated)]
    }

    @Test(arguments: rejectCases())
    func rejects(bytes: [UInt8], reason: DropReason) {
        #expect(RTPPacket.parse(bytes) == .failure(reason))
    }

    @Test func everyTruncationIsTruncatedUntilTheHeaderEnds() {
        let headerBytes = Self.header(csrcs: [1, 2, 3], extensionWords: [5, 6])
        let packet = headerBytes + [UInt8](repeating: 0x47, count: 20)
        for end in 0...packet.count {
            let result = RTPPacket.parse(Array(packet[..<end]))
            if end < headerBytes.count {
                #expect(result == .failure(.rtpTruncated), "prefix \(end)")
            } else {
                guard case .success(let p) = result else { Issue.record("prefix \(end) refused"); continue }
                #expect(p.payload.count == end - headerBytes.count)
            }
        }
    }

    typealias O = SequenceTracker.Outcome

    @Test(arguments: [
        ("in order", [1, 2, 3], [O.first, .inOrder(skipped: 0), .inOrder(skipped: 0)], 3, 0, 0, 0, 3),
        ("wrap", [65534, 65535, 0, 1], [.first, .inOrder(skipped: 0), .inOrder(skipped: 0), .inOrder(skipped: 0)], 4, 0, 0, 0, 65537),
        ("loss", [10, 11, 14], [.first, .inOrder(skipped: 0), .inOrder(skipped: 2)], 3, 2, 0, 0, 14),
        ("loss across wrap", [65535, 2], [.first, .inOrder(skipped: 2)], 2, 2, 0, 0, 65538),
        ("reorder", [10, 12, 11, 13], [.first, .inOrder(skipped: 1), .late, .inOrder(skipped: 0)], 4, 0, 1, 0, 13),
        ("reorder across wrap", [65535, 1, 0], [.first, .inOrder(skipped: 1), .late], 3, 0, 1, 0, 65537),
        ("duplicates", [10, 11, 11, 10], [.first, .inOrder(skipped: 0), .duplicate, .duplicate], 2, 0, 0, 2, 11),
        ("late before first", [10, 9], [.first, .late], 2, 0, 1, 0, 10),
        ("restart", [100, 101, 20000, 20001], [.first, .inOrder(skipped: 0), .jump, .restart], 3, 0, 0, 0, 20001),
        ("unconfirmed jump", [100, 20000, 102], [.first, .jump, .inOrder(skipped: 1)], 2, 1, 0, 0, 102),
        ("late within misorder", [200, 101], [.first, .late], 2, 0, 1, 0, 200),
    ] as [(String, [Int], [O], Int, Int, Int, Int, Int64)])
    func sequenceTracking(name: String, sequence: [Int], outcomes: [O], received: Int, lost: Int, reordered: Int,
                          duplicates: Int, highest: Int64) {
        var tracker = SequenceTracker()
        let got = sequence.map { tracker.record(UInt16($0)).outcome }
        #expect(got == outcomes, "\(name)")
        #expect(tracker.received == received, "\(name)")
        #expect(tracker.lost == lost, "\(name)")
        #expect(tracker.reordered == reordered, "\(name)")
        #expect(tracker.duplicates == duplicates, "\(name)")
        #expect(tracker.highestExtended == highest, "\(name)")
    }

    /// A.1: the jump itself is dropped; the packet that confirms it restarts the stream.
    @Test func restartsAreCounted() {
        var tracker = SequenceTracker()
        for s in [5, 6, 40000, 40001, 40002] { _ = tracker.record(UInt16(s)) }
        #expect(tracker.restarts == 1 && tracker.lost == 0 && tracker.baseExtended == 40001 && tracker.received == 4)
    }

    /// Hand-computed: packets every 40 ms (3600 ticks at 90 kHz); the third arrives 10 ms
    /// (900 ticks) late. Transits 0, 0, 900, 0 → D = 0, 900, 900 →
    /// J = 0, 900/16 = 56.25, 56.25 + (900 − 56.25)/16 = 108.984375.
    @Test(arguments: [(UInt32(0), Int64(0)), (0xFFFF_F000, 1_700_000_000_123_456_789)])
    func jitterMatchesHandComputation(timestampBase: UInt32, arrivalBase: Int64) {
        var jitter = JitterEstimator(clockRate: 90_000)
        let arrivalsMs: [Int64] = [0, 40, 90, 120]
        var values: [Double] = []
        for (i, ms) in arrivalsMs.enumerated() {
            jitter.record(rtpTimestamp: timestampBase &+ UInt32(i * 3600), arrivalNanoseconds: arrivalBase + ms * 1_000_000)
            values.append(jitter.jitter)
        }
        #expect(values == [0, 0, 56.25, 108.984375])
        #expect(jitter.reportedJitter == 108)
        #expect(jitter.jitterSeconds == 108.984375 / 90_000)
    }

    @Test func ticksFloorNegativeTimes() {
        let j = JitterEstimator(clockRate: 90_000)
        #expect(j.ticks(1_000_000_000) == 90_000)
        #expect(j.ticks(-1) == -1)
        #expect(j.ticks(Int64.max) > 0)
    }
}
