#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport
@testable import Capture

/// Live capture needs CAP_NET_RAW and a real kernel packet socket: it runs on the host and in
/// the booted VM. qemu-user lacks the ioctls libpcap needs, so there it must fail clearly.
struct LiveCaptureTests {
    @Test func capturesADatagramSentOverLoopback() throws {
        guard !TestEnvironment.isQEMUUser, TestEnvironment.isRoot else {
            let error = thrownError(CaptureError.self) { _ = try PacketCapture.open(interface: "lo") }
            // qemu-user answers SIOCETHTOOL with ENOSYS, so there pcap_create itself fails.
            #expect(error?.operation == (TestEnvironment.isQEMUUser ? "create lo" : "activate lo"))
            return
        }
        let capture = try PacketCapture.open(interface: "lo")
        let port = UInt16(40_000 + getpid() % 20_000)
        try capture.setFilter("udp dst port \(port)")
        let marker = Array("grandstand-live-\(port)".utf8)
        try sendUDP(marker, toLoopbackPort: port)

        var found: CapturedPacket?
        for _ in 0..<50 where found == nil {
            while found == nil, let packet = try capture.next() {
                if packet.bytes.suffix(marker.count) == marker[...] { found = packet }
            }
        }
        let packet = try #require(found)
        #expect(packet.originalLength == 14 + 20 + 8 + marker.count)
        let stats = try capture.statistics()
        #expect(stats.received >= 1)
    }

    @Test func missingInterfaceIsAClearError() {
        #expect(throws: CaptureError.self) { try PacketCapture.open(interface: "nosuchif0") }
    }

    private func sendUDP(_ payload: [UInt8], toLoopbackPort port: UInt16) throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let sent = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(fd, payload, payload.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        #expect(sent == payload.count)
    }
}
