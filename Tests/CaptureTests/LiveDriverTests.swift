import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport
@testable import Capture

/// The live driver pieces against the real kernel in a private namespace: filter replacement,
/// pcap_stats, wake-ups, and the interface going down or away and coming back.
extension LiveCaptureTests {
    struct Driver {
        @Test func filterChangesTakeEffectAndStatsCount() throws {
            guard LiveTestSupport.canUseKernel else { return LiveTestSupport.expectCaptureUnavailable() }
            let ns = try NetworkNamespace(prefix: "gs-filter")
            try ns.addVethPair()
            let (capture, sender) = try ns.enter { () throws -> (LiveCapture, MulticastSender) in
                let capture = LiveCapture(interface: "gsv1", filter: "udp and dst host 239.255.43.1 and dst port 5004")
                #expect(try capture.open().rawValue == LinkType.ethernet)
                return (capture, try MulticastSender(interface: "gsv0"))
            }
            #expect(capture.isOpen && capture.fileDescriptor != nil && capture.openCount == 1)
            // The kernel counts what reached the socket before libpcap attached the filter too (a
            // new veth's IPv6 router solicitations and MLD reports, when the machine is slow
            // enough for them to arrive then): the counts below are from here on.
            let before = capture.statistics().received
            for i in 0..<10 { try sender.send(Array("a-\(i)".utf8), to: "239.255.43.1", port: 5004) }
            for i in 0..<5 { try sender.send(Array("b-\(i)".utf8), to: "239.255.43.1", port: 5006) }
            let first = try LiveTestSupport.collect(capture, count: 15, milliseconds: 1000)
            #expect(first.count == 10)
            #expect(first.allSatisfy { $0.bytes.count == 14 + 20 + 8 + 3 && $0.bytes[$0.bytes.count - 3] == UInt8(ascii: "a") })

            #expect(try capture.setFilter("udp and dst host 239.255.43.1 and dst port 5006"))
            #expect(try !capture.setFilter("udp and dst host 239.255.43.1 and dst port 5006"))
            for i in 0..<10 { try sender.send(Array("a-\(i)".utf8), to: "239.255.43.1", port: 5004) }
            for i in 0..<5 { try sender.send(Array("b-\(i)".utf8), to: "239.255.43.1", port: 5006) }
            let second = try LiveTestSupport.collect(capture, count: 15, milliseconds: 1000)
            #expect(second.count == 5)
            #expect(second.allSatisfy { $0.bytes[$0.bytes.count - 3] == UInt8(ascii: "b") })

            // A bad expression is refused and the one in force stays.
            let bad = thrownError(CaptureError.self) { try capture.setFilter("udp and and") }
            #expect(bad?.operation.hasPrefix("compile filter") == true && capture.filter.hasSuffix("5006"))
            let stats = capture.statistics()
            #expect(stats.received - before == 15, "received \(stats.received) (\(before) before the sends), dropped \(stats.droppedByKernel)")
            #expect(stats.droppedByKernel == 0)
        }

        @Test func ipv6GroupsAreCaptured() throws {
            guard LiveTestSupport.canUseKernel else { return LiveTestSupport.expectCaptureUnavailable() }
            let ns = try NetworkNamespace(prefix: "gs-cap6")
            try ns.addVethPair()
            let (capture, sender) = try ns.enter { () throws -> (LiveCapture, MulticastSender) in
                let capture = LiveCapture(interface: "gsv1", filter: "udp and dst host ff0e::2:7ffe and dst port 9875")
                try capture.open()
                return (capture, try MulticastSender(interface: "gsv0", ipv6: true))
            }
            let marker = Array("sap-over-ipv6".utf8)
            try sender.send(marker, to: "ff0e::2:7ffe", port: 9875)
            try sender.send(marker, to: "ff0e::2:7ffe", port: 9876)
            let packets = try LiveTestSupport.collect(capture, count: 2, milliseconds: 1000, keep: LiveTestSupport.carries(marker))
            #expect(packets.count == 1)
            #expect(packets.first?.originalLength == 14 + 40 + 8 + marker.count)
        }

        @Test func wakeupEndsAWaitAtOnce() throws {
            guard LiveTestSupport.canUseKernel else { return LiveTestSupport.expectCaptureUnavailable() }
            let ns = try NetworkNamespace(prefix: "gs-wake")
            try ns.addVethPair()
            let capture = try ns.enter { () throws -> LiveCapture in
                let capture = LiveCapture(interface: "gsv1", filter: "udp port 1")
                try capture.open()
                return capture
            }
            let wakeup = try CaptureWakeup()
            #expect(try capture.wait(timeoutMilliseconds: 20, wakeup: wakeup) == .timedOut)
            wakeup.signal()
            wakeup.signal()
            let start = DispatchTime.now().uptimeNanoseconds
            #expect(try capture.wait(timeoutMilliseconds: 5000, wakeup: wakeup) == .woken)
            #expect(DispatchTime.now().uptimeNanoseconds - start < 1_000_000_000)
            // Drained: the next wait times out again.
            #expect(try capture.wait(timeoutMilliseconds: 20, wakeup: wakeup) == .timedOut)
            capture.close()
            #expect(try capture.wait(timeoutMilliseconds: 10, wakeup: wakeup) == .closed)
        }

        @Test func interfaceDownIsReportedThenReopenAndRejoinWork() throws {
            guard LiveTestSupport.canUseKernel else { return LiveTestSupport.expectCaptureUnavailable() }
            let ns = try NetworkNamespace(prefix: "gs-down")
            try ns.addVethPair()
            let filter = "udp and dst host 239.255.44.1"
            let (capture, membership, sender) = try ns.enter { () throws -> (LiveCapture, MulticastMembership, MulticastSender) in
                let capture = LiveCapture(interface: "gsv1", filter: filter)
                try capture.open()
                return (capture, try MulticastMembership(group: "239.255.44.1", interface: "gsv1"), try MulticastSender(interface: "gsv0"))
            }
            try sender.send(Array("before".utf8), to: "239.255.44.1", port: 5000)
            #expect(try LiveTestSupport.collect(capture, count: 1).count == 1)

            try ns.ip("link", "set", "gsv1", "down")
            let readError = try readUntilError(capture)
            #expect(readError?.reason == .interfaceDown && readError?.code == ENETDOWN, "\(String(describing: readError))")
            #expect(readError?.operation == "capture on gsv1")
            #expect(!capture.isOpen)
            // The kernel keeps memberships of a downed link (and reports them again when it is up).
            #expect((try ns.igmpMemberships()).contains { $0.group == "239.255.44.1" })
            let whileDown = thrownError(CaptureError.self) { try ns.enter { try capture.open() } }
            #expect(whileDown?.reason == .interfaceDown, "\(String(describing: whileDown))")

            try ns.ip("link", "set", "gsv1", "up")
            try ns.enter { try capture.open(); try membership.rejoin() }
            #expect(capture.openCount == 2 && capture.filter == filter)
            #expect((try ns.igmpMemberships()).contains { $0.device == "gsv1" && $0.group == "239.255.44.1" })
            try sender.send(Array("after!".utf8), to: "239.255.44.1", port: 5000)
            let after = try LiveTestSupport.collect(capture, count: 1, keep: LiveTestSupport.carries(Array("after!".utf8)))
            #expect(after.count == 1)
            // Counters carry over the re-open.
            #expect(capture.statistics().received >= 2)
        }

        @Test func interfaceRemovedIsReportedThenRecreatedWorks() throws {
            guard LiveTestSupport.canUseKernel else { return LiveTestSupport.expectCaptureUnavailable() }
            let ns = try NetworkNamespace(prefix: "gs-gone")
            try ns.addVethPair()
            let (capture, membership) = try ns.enter { () throws -> (LiveCapture, MulticastMembership) in
                let capture = LiveCapture(interface: "gsv1", filter: "udp and dst host 239.255.45.1")
                try capture.open()
                return (capture, try MulticastMembership(group: "239.255.45.1", interface: "gsv1"))
            }
            let oldIndex = membership.interfaceIndex
            try ns.ip("link", "del", "gsv0")
            let readError = try readUntilError(capture)
            #expect(readError?.isInterfaceUnavailable == true, "\(String(describing: readError))")
            #expect(!(try ns.igmpMemberships()).contains { $0.group == "239.255.45.1" })
            let whileGone = thrownError(CaptureError.self) { try ns.enter { try capture.open() } }
            #expect(whileGone?.reason == .noSuchDevice, "\(String(describing: whileGone))")
            let rejoinGone = thrownError(CaptureError.self) { try ns.enter { try membership.rejoin() } }
            #expect(rejoinGone?.reason == .noSuchDevice)

            try ns.addVethPair()
            let sender = try ns.enter { () throws -> MulticastSender in
                try capture.open()
                try membership.rejoin()
                return try MulticastSender(interface: "gsv0")
            }
            #expect(membership.interfaceIndex != oldIndex && membership.isJoined)
            #expect((try ns.igmpMemberships()).contains { $0.device == "gsv1" && $0.group == "239.255.45.1" })
            try sender.send(Array("again".utf8), to: "239.255.45.1", port: 5000)
            #expect(try LiveTestSupport.collect(capture, count: 1).count == 1)
        }

        /// Polls and reads for up to 2 s until a read fails; the error, or nil if none came.
        func readUntilError(_ capture: LiveCapture) throws -> CaptureError? {
            for _ in 0..<40 {
                do {
                    _ = try capture.wait(timeoutMilliseconds: 50)
                    try capture.readAvailable { _ in }
                } catch {
                    return error
                }
            }
            return nil
        }
    }
}
