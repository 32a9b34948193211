#if canImport(Glibc)
import Glibc
#endif
import GrandstandCore
import Multicast
import TestSupport
import Testing

/// Sends to multicast groups on `lo` and receives with a joined socket. `lo` lacks the
/// MULTICAST flag and a multicast route by default, so the sender names the interface
/// (IP_MULTICAST_IF) and the receiver joins on it; loopback delivery does the rest.
struct MulticastLoopbackTests {
    /// A sender on `lo`, or nil under qemu-user after checking its documented refusal: qemu-user
    /// 7.2 does not translate IP_MULTICAST_IF / IPV6_MULTICAST_IF (ENOPROTOOPT). The booted VM
    /// and the host run these tests for real.
    static func sender(ipv6: Bool = false, ttl: Int = 1, loopback: Bool = true, source: IPAddress? = nil) throws -> MulticastSender? {
        let options = MulticastSender.Options(interface: "lo", ttl: ttl, loopback: loopback, source: source)
        guard TestEnvironment.isQEMUUser else { return try MulticastSender(ipv6: ipv6, options: options) }
        let error = thrownError(MulticastError.self) { try MulticastSender(ipv6: ipv6, options: options) }
        #expect(error?.operation == (ipv6 ? "setsockopt(IPV6_MULTICAST_IF)" : "setsockopt(IP_MULTICAST_IF)"))
        #expect(error?.code == ENOPROTOOPT)
        return nil
    }

    @Test func ipv4DatagramArrivesAtAJoinedSocket() throws {
        let group = try #require(IPAddress(parsing: "239.255.42.1"))
        let port: UInt16 = 46001
        guard let sender = try Self.sender() else { return }
        let receiver = try MulticastReceiver(port: port, interface: "lo")
        try receiver.join(group)
        var got: (payload: [UInt8], source: Endpoint?)? = nil
        for attempt in 0..<5 where got == nil {
            try sender.send(Array("hello \(attempt)".utf8), to: Endpoint(address: group, port: port))
            got = try receiver.receive(timeoutMilliseconds: 200)
        }
        let received = try #require(got)
        #expect(String(decoding: received.payload, as: UTF8.self).hasPrefix("hello "))
        // Unbound, the kernel picks the source address (the host's primary one, not 127.0.0.1).
        let local = try sender.localEndpoint()
        #expect(received.source?.port == local?.port)
    }

    @Test func boundSourceAddressIsTheSender() throws {
        let group = try #require(IPAddress(parsing: "239.255.42.2"))
        let port: UInt16 = 46002
        let source = try #require(IPAddress(parsing: "127.0.0.1"))
        guard let sender = try Self.sender(source: source) else { return }
        let receiver = try MulticastReceiver(port: port, interface: "lo")
        try receiver.join(group)
        try sender.send([1, 2, 3], to: Endpoint(address: group, port: port))
        let maybe = try receiver.receive(timeoutMilliseconds: 1000)
        let received = try #require(maybe)
        #expect(received.payload == [1, 2, 3])
        #expect(received.source?.address == source)
    }

    @Test(arguments: [false, true], [1, 32])
    func loopbackAndTTLReachTheKernel(loopback: Bool, ttl: Int) throws {
        for ipv6 in [false, true] {
            guard let sender = try Self.sender(ipv6: ipv6, ttl: ttl, loopback: loopback) else { continue }
            let settings = try sender.kernelSettings()
            #expect(settings.loopback == loopback)
            #expect(settings.ttl == ttl)
        }
    }

    /// IPv6 multicast on `lo` needs a route (`ip -6 route add multicast ff00::/8 dev lo table
    /// local`, as the private namespace of the end-to-end test has); without one the kernel
    /// refuses the send with ENETUNREACH, which must surface as that errno on `sendto`.
    @Test func ipv6DatagramArrivesAtAJoinedSocketOrUnreachableIsReported() throws {
        let group = try #require(IPAddress(parsing: "ff15::4242"))
        let port: UInt16 = 46004
        guard let sender = try Self.sender(ipv6: true) else { return }
        let receiver = try MulticastReceiver(port: port, ipv6: true, interface: "lo")
        try receiver.join(group)
        let failure = thrownError(MulticastError.self) { try sender.send([6, 6], to: Endpoint(address: group, port: port)) }
        if let failure {
            #expect(failure.code == ENETUNREACH)
            #expect(failure.operation == "sendto([ff15::4242]:46004)")
            return
        }
        let maybe = try receiver.receive(timeoutMilliseconds: 1000)
        let received = try #require(maybe)
        #expect(received.payload == [6, 6])
    }

    @Test func unknownInterfaceIsAClearError() {
        let error = thrownError(MulticastError.self) {
            try MulticastSender(ipv6: false, options: .init(interface: "nosuchif0"))
        }
        #expect(error?.operation == "if_nametoindex(nosuchif0)")
        #expect(error?.description.contains("errno") == true)
    }

    @Test func familyMismatchIsRefused() throws {
        let sender = try MulticastSender(ipv6: false, options: .init(interface: nil))
        let v6 = try #require(IPAddress(parsing: "ff15::1"))
        let error = thrownError(MulticastError.self) { try sender.send([0], to: Endpoint(address: v6, port: 1)) }
        #expect(error?.code == EAFNOSUPPORT)
    }
}

struct NetworkInterfaceTests {
    @Test func loopbackHasIndexAndAddress() throws {
        let index = try NetworkInterface.index(named: "lo")
        let address = try NetworkInterface.address(named: "lo", ipv6: false)
        let none = try NetworkInterface.address(named: "nosuchif0", ipv6: false)
        #expect(index > 0)
        #expect(address == IPAddress(parsing: "127.0.0.1"))
        #expect(none == nil)
    }

    @Test func sourceTowardALoopbackAddressIsLoopback() throws {
        let destination = Endpoint(address: try #require(IPAddress(parsing: "127.0.0.2")), port: 9)
        let source = try NetworkInterface.sourceAddress(toward: destination)
        #expect(source == IPAddress(parsing: "127.0.0.1"))
    }
}
