import Testing
@testable import GrandstandCore

struct PacketsTSTests {
    enum Shape { case payload, adaptationOnly, both }

    static func packet(pid: UInt16 = 0x100, cc: Int, shape: Shape = .payload, discontinuity: Bool = false,
                       pusi: Bool = false) -> [UInt8] {
        let control: UInt8 = shape == .payload ? 1 : shape == .adaptationOnly ? 2 : 3
        var bytes: [UInt8] = [0x47, UInt8(pid >> 8) | (pusi ? 0x40 : 0), UInt8(pid & 0xFF), control << 4 | UInt8(cc & 0xF)]
        if shape != .payload {
            let length: UInt8 = shape == .adaptationOnly ? 183 : 7
            bytes += [length, discontinuity ? 0xC0 : 0x40] + [UInt8](repeating: 0xFF, count: Int(length) - 1)
        }
        return bytes + [UInt8](repeating: 0xAB, count: 188 - bytes.count)
    }

    @Test func parsesHeaderAndAdaptationField() throws {
        guard case .success(let p) = TSPacket.parse(Self.packet(pid: 0x1ABC & 0x1FFF, cc: 9, shape: .both, discontinuity: true, pusi: true)[...])
        else { Issue.record("not parsed"); return }
        #expect(p.pid == 0x1ABC & 0x1FFF && p.continuityCounter == 9 && p.payloadUnitStart)
        #expect(p.hasAdaptationField && p.hasPayload && p.discontinuityIndicator && p.randomAccessIndicator)
        #expect(p.payload.count == 188 - 4 - 8)
    }

    @Test func rejects() {
        var tei = Self.packet(cc: 0); tei[1] |= 0x80
        var reserved = Self.packet(cc: 0); reserved[3] &= 0x0F
        var badLength = Self.packet(cc: 0, shape: .both); badLength[4] = 183
        var afOnlyShort = Self.packet(cc: 0, shape: .adaptationOnly); afOnlyShort[4] = 100
        #expect(TSPacket.parse(([0x46] + Self.packet(cc: 0).dropFirst())[...]) == .failure(.tsLostSync))
        #expect(TSPacket.parse(tei[...]) == .failure(.tsTransportError))
        #expect(TSPacket.parse(reserved[...]) == .failure(.tsReservedAdaptationControl))
        #expect(TSPacket.parse(badLength[...]) == .failure(.tsBadAdaptationLength))
        #expect(TSPacket.parse(afOnlyShort[...]) == .failure(.tsBadAdaptationLength))
        let whole = Self.packet(cc: 0, shape: .both)
        for end in 0..<188 { #expect(TSPacket.parse(whole[..<end]) == .failure(.tsBadLength)) }
    }

    @Test func splitsDatagrams() {
        let seven = (0..<7).flatMap { Self.packet(cc: $0) }
        let (packets, trailing) = TSPacket.split(seven[...])
        #expect(packets.count == 7 && trailing == 0)
        let odd = TSPacket.split((seven + [1, 2, 3])[...])
        #expect(odd.packets.count == 7 && odd.trailing == 3)
    }

    typealias O = ContinuityTracker.Outcome
    typealias P = (pid: UInt16, cc: Int, shape: Shape, discontinuity: Bool)

    static func p(_ cc: Int, _ shape: Shape = .payload, pid: UInt16 = 0x100, di: Bool = false) -> P { (pid, cc, shape, di) }

    /// Built in a function: Swift 6.0.3 crashes on a closure inside `@Test(arguments:)`.
    static func continuityCases() -> [(String, [P], [O], Int)] {
        var wrap: [P] = []
        for i in 0..<18 { wrap.append(p(i % 16)) }
        return [("wrap", wrap, [O](repeating: .ok, count: 18), 0)] + otherContinuityCases
    }

    static let otherContinuityCases: [(String, [P], [O], Int)] = [
        ("gap", [p(0), p(1), p(3)], [.ok, .ok, .discontinuity(expected: 2, received: 3)], 1),
        ("one duplicate", [p(4), p(5), p(5), p(6)], [.ok, .ok, .duplicate, .ok], 0),
        ("second duplicate", [p(4), p(5), p(5), p(5)], [.ok, .ok, .duplicate, .discontinuity(expected: 6, received: 5)], 1),
        ("adaptation only keeps counter", [p(1), p(1, .adaptationOnly), p(2)], [.ok, .ok, .ok], 0),
        ("adaptation only mismatch", [p(1), p(3, .adaptationOnly)], [.ok, .discontinuity(expected: 1, received: 3)], 1),
        ("adaptation with payload counts", [p(1), p(2, .both), p(3)], [.ok, .ok, .ok], 0),
        ("discontinuity indicator", [p(1), p(9, .both, di: true), p(10)], [.ok, .ok, .ok], 0),
        ("null packets", [p(0, pid: 0x1FFF), p(7, pid: 0x1FFF)], [.ignored, .ignored], 0),
        ("pids independent", [p(0), p(8, pid: 0x101), p(1), p(9, pid: 0x101)], [.ok, .ok, .ok, .ok], 0),
        ("backwards", [p(5), p(4)], [.ok, .discontinuity(expected: 6, received: 4)], 1),
    ]

    @Test(arguments: continuityCases())
    func continuity(name: String, packets: [P], outcomes: [O], discontinuities: Int) throws {
        var tracker = ContinuityTracker()
        var got: [O] = []
        for p in packets {
            guard case .success(let packet) = TSPacket.parse(Self.packet(pid: p.pid, cc: p.cc, shape: p.shape, discontinuity: p.discontinuity)[...])
            else { Issue.record("\(name): fixture packet refused"); return }
            got.append(tracker.record(packet))
        }
        #expect(got == outcomes, "\(name)")
        #expect(tracker.discontinuities == discontinuities, "\(name)")
    }
}
