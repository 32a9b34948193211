import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport
@testable import Capture

/// A UDP socket that sends to multicast groups out of one interface; create it inside the
/// namespace (NetworkNamespace.enter) whose interface it names.
final class MulticastSender {
    private let fd: Int32
    private let ipv6: Bool

    init(interface: String, ipv6: Bool = false) throws {
        self.ipv6 = ipv6
        fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw CaptureError("sender socket", errno: errno) }
        let index = if_nametoindex(interface)
        guard index != 0 else { throw CaptureError("sender interface \(interface)", errno: errno) }
        if ipv6 {
            var value = UInt32(index)
            guard setsockopt(fd, Int32(IPPROTO_IPV6), Int32(IPV6_MULTICAST_IF), &value, 4) == 0 else {
                throw CaptureError("IPV6_MULTICAST_IF", errno: errno)
            }
        } else {
            var request = ip_mreqn(imr_multiaddr: in_addr(), imr_address: in_addr(), imr_ifindex: Int32(index))
            guard setsockopt(fd, Int32(IPPROTO_IP), Int32(IP_MULTICAST_IF), &request,
                             socklen_t(MemoryLayout<ip_mreqn>.size)) == 0 else {
                throw CaptureError("IP_MULTICAST_IF", errno: errno)
            }
        }
    }

    deinit { close(fd) }

    func send(_ payload: [UInt8], to group: String, port: UInt16) throws {
        let sent: Int
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            _ = inet_pton(AF_INET6, group, &address.sin6_addr)
            sent = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, payload, payload.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            _ = inet_pton(AF_INET, group, &address.sin_addr)
            sent = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, payload, payload.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard sent == payload.count else { throw CaptureError("sendto \(group):\(port)", errno: errno) }
    }
}

enum LiveTestSupport {
    /// Namespaces, live capture and joins need root on a real kernel (the host, the booted VM).
    static var canUseKernel: Bool { !TestEnvironment.isQEMUUser && TestEnvironment.isRoot }

    /// Where the kernel facilities are missing, the clear error a live capture gives instead.
    static func expectCaptureUnavailable() {
        let error = thrownError(CaptureError.self) { try LiveCapture(interface: "lo").open() }
        if TestEnvironment.isQEMUUser {
            // qemu-user answers SIOCETHTOOL with ENOSYS, so pcap_create itself fails.
            #expect(error?.operation == "create lo")
        } else {
            #expect(error?.reason == .permissionDenied)
        }
    }

    /// Waits and reads until `count` packets matched `keep` or `milliseconds` passed.
    static func collect(_ capture: LiveCapture, count: Int, milliseconds: Int = 2000,
                        keep: (CapturedPacket) -> Bool = { _ in true }) throws -> [CapturedPacket] {
        var packets: [CapturedPacket] = []
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(milliseconds) * 1_000_000
        while packets.count < count, DispatchTime.now().uptimeNanoseconds < deadline {
            if try capture.wait(timeoutMilliseconds: 50) == .readable {
                try capture.readAvailable { if keep($0) { packets.append($0) } }
            }
        }
        return packets
    }

    /// Whether a frame's UDP payload ends with `marker`.
    static func carries(_ marker: [UInt8]) -> (CapturedPacket) -> Bool {
        { $0.bytes.count >= marker.count && Array($0.bytes.suffix(marker.count)) == marker }
    }
}
