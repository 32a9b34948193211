import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport
@testable import Capture

/// IGMP/MLD joins against the real kernel, in a private network namespace with a veth pair.
/// Nested in LiveCaptureTests so the booted VM's kernel suite runs them too.
extension LiveCaptureTests {
    struct Membership {
        func has(_ table: [(device: String, group: String)], _ device: String, _ group: String) -> Bool {
            table.contains { $0.device == device && $0.group == group }
        }

        @Test func ipv4JoinLeaveAndRejoinShowInProcNetIGMP() throws {
            guard LiveTestSupport.canUseKernel else { return LiveTestSupport.expectCaptureUnavailable() }
            let ns = try NetworkNamespace(prefix: "gs-join4")
            try ns.addVethPair()
            let membership = try ns.enter { try MulticastMembership(group: "239.255.42.1", interface: "gsv1") }
            #expect(membership.isJoined && membership.interfaceIndex != 0)
            #expect(has(try ns.igmpMemberships(), "gsv1", "239.255.42.1"))

            // Traffic to the group does not queue on the membership socket: it has no port.
            try ns.enter {
                let sender = try MulticastSender(interface: "gsv0")
                for _ in 0..<20 { try sender.send(Array(repeating: 7, count: 1000), to: "239.255.42.1", port: 5004) }
            }
            usleep(100_000)
            #expect(membership.queuedBytes == 0)

            try ns.enter { try membership.leave() }
            #expect(!membership.isJoined)
            #expect(!has(try ns.igmpMemberships(), "gsv1", "239.255.42.1"))
            try ns.enter { try membership.join() }
            #expect(has(try ns.igmpMemberships(), "gsv1", "239.255.42.1"))
            try ns.enter { try membership.rejoin() }
            #expect(has(try ns.igmpMemberships(), "gsv1", "239.255.42.1"))
        }

        @Test func closingTheMembershipLeavesTheGroup() throws {
            guard LiveTestSupport.canUseKernel else { return LiveTestSupport.expectCaptureUnavailable() }
            let ns = try NetworkNamespace(prefix: "gs-close")
            try ns.addVethPair()
            var membership: MulticastMembership? = try ns.enter { try MulticastMembership(group: "239.255.42.9", interface: "gsv1") }
            #expect(membership?.isJoined == true)
            #expect(has(try ns.igmpMemberships(), "gsv1", "239.255.42.9"))
            membership = nil
            #expect(!has(try ns.igmpMemberships(), "gsv1", "239.255.42.9"))
        }

        @Test func rejoinSendsAFreshIGMPReport() throws {
            guard LiveTestSupport.canUseKernel else { return LiveTestSupport.expectCaptureUnavailable() }
            let ns = try NetworkNamespace(prefix: "gs-report")
            try ns.addVethPair()
            let (capture, membership) = try ns.enter {
                let capture = LiveCapture(interface: "gsv1", filter: "igmp")
                try capture.open()
                return (capture, try MulticastMembership(group: "239.255.42.3", interface: "gsv1"))
            }
            let group: [UInt8] = [239, 255, 42, 3]
            func mentionsGroup(_ packet: CapturedPacket) -> Bool {
                packet.bytes.count >= 4 && (0...(packet.bytes.count - 4)).contains { Array(packet.bytes[$0..<$0 + 4]) == group }
            }
            // The join's unsolicited report (IGMPv3, to 224.0.0.22), then its retransmissions
            // (RFC 3376 §5.1: robustness 2, within the 1 s unsolicited report interval) drained
            // until the link has been quiet for 1.5 s. The bounds are for an emulated guest under
            // load: each wait ends at its first packet.
            #expect(try LiveTestSupport.collect(capture, count: 1, milliseconds: 15_000, keep: mentionsGroup).count == 1)
            var retransmissions = 0
            while retransmissions < 20, try !LiveTestSupport.collect(capture, count: 1, milliseconds: 1500).isEmpty {
                retransmissions += 1
            }
            try ns.enter { try membership.rejoin() }
            let reports = try LiveTestSupport.collect(capture, count: 1, milliseconds: 15_000, keep: mentionsGroup)
            // A leave (or change-to-include) record and a new join record for the group.
            #expect(reports.count >= 1)
        }

        @Test func sourceSpecificJoinShowsInMcfilter() throws {
            guard LiveTestSupport.canUseKernel else { return LiveTestSupport.expectCaptureUnavailable() }
            let ns = try NetworkNamespace(prefix: "gs-ssm")
            try ns.addVethPair()
            let membership = try ns.enter { try MulticastMembership(group: "232.1.1.1", source: "10.200.0.1", interface: "gsv1") }
            #expect(has(try ns.igmpMemberships(), "gsv1", "232.1.1.1"))
            let filters = try ns.igmpSourceFilters()
            #expect(filters.contains { $0.device == "gsv1" && $0.group == "232.1.1.1" && $0.source == "10.200.0.1" })
            try ns.enter { try membership.leave() }
            #expect(try ns.igmpSourceFilters().isEmpty)
        }

        @Test func ipv6AnySourceAndSourceSpecificShowInProcNetIGMP6() throws {
            guard LiveTestSupport.canUseKernel else { return LiveTestSupport.expectCaptureUnavailable() }
            let ns = try NetworkNamespace(prefix: "gs-join6")
            try ns.addVethPair()
            let sap = try ns.enter { try MulticastMembership(group: "ff0e::2:7ffe", interface: "gsv1") }
            let ssm = try ns.enter { try MulticastMembership(group: "ff3e::8000:1", source: "fd00:200::1", interface: "gsv1") }
            let table = try ns.mldMemberships()
            #expect(has(table, "gsv1", "ff0e::2:7ffe") && has(table, "gsv1", "ff3e::8000:1"))
            try ns.enter { try sap.leave(); try ssm.leave() }
            let after = try ns.mldMemberships()
            #expect(!has(after, "gsv1", "ff0e::2:7ffe") && !has(after, "gsv1", "ff3e::8000:1"))
        }

        @Test func errorsNameTheOperationAndErrno() throws {
            guard LiveTestSupport.canUseKernel else { return LiveTestSupport.expectCaptureUnavailable() }
            let ns = try NetworkNamespace(prefix: "gs-joinerr")
            try ns.addVethPair()
            try ns.enter {
                let missing = thrownError(CaptureError.self) { try MulticastMembership(group: "239.255.42.1", interface: "nosuchif0") }
                #expect(missing?.operation == "find interface nosuchif0 to join 239.255.42.1")
                #expect(missing?.reason == .noSuchDevice && missing?.isSystemError == true)
                let bad = thrownError(CaptureError.self) { try MulticastMembership(group: "239.255.42", interface: "gsv1") }
                #expect(bad?.operation == "parse group address \"239.255.42\"" && bad?.code == EINVAL)
                let mixed = thrownError(CaptureError.self) { try MulticastMembership(group: "232.1.1.1", source: "fd00::1", interface: "gsv1") }
                #expect(mixed?.code == EAFNOSUPPORT)
                let unicast = thrownError(CaptureError.self) { try MulticastMembership(group: "10.1.2.3", interface: "gsv1") }
                #expect(unicast?.operation == "IP_ADD_MEMBERSHIP 10.1.2.3 on gsv1" && unicast?.code == EINVAL)
                let membership = try MulticastMembership(group: "239.255.42.5", interface: "gsv1")
                let twice = thrownError(CaptureError.self) { try membership.join() }
                #expect(twice?.code == EADDRINUSE)
                #expect(twice?.description == "IP_ADD_MEMBERSHIP 239.255.42.5 on gsv1: Address already in use (errno \(EADDRINUSE))")
            }
        }
    }
}
