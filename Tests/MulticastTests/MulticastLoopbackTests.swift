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
    @Test func ipv4DatagramArrivesAtAJoinedSocket() throws {
        let group = try #require(IPAddress(parsing: "239.255.42.1"))
        let port: UInt16 = 46001
        let receiver = try MulticastReceiver(port: port, interface: "lo")
        try receiver.join(group)
        let sender = try MulticastSender(ipv6: false, options: .init(interface: "lo", ttl: 1, loopback: true))
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
        let receiver = try MulticastReceiver(port: port, interface: "lo")
        try receiver.join(group)
        let source = try #require(IPAddress(parsing: "127.0.0.1"))
        let sender = try MulticastSender(ipv6: false, options: .init(interface: "lo", ttl: 1, loopback: true, source: source))
        try sender.send([1, 2, 3], to: Endpoint(address: group, port: port))
        let maybe = try receiver.receive(timeoutMilliseconds: 1000)
        let received = try #require(maybe)
        #expect(received.payload == [1, 2, 3])
        #expect(received.source?.address == source)
    }

    @Test(arguments: [false, true], [1, 32])
    func loopbackAndTTLReachTheKernel(loopback: Bool, ttl: Int) throws {
        for ipv6 in [false, true] {
            let sender = try MulticastSender(ipv6: ipv6, options: .init(interface: "lo", ttl: ttl, loopback: loopback))
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
        let receiver = try MulticastReceiver(port: port, ipv6: true, interface: "lo")
        try receiver.join(group)
        let sender = try MulticastSender(ipv6: true, options: .init(interface: "lo", ttl: 1, loopback: true))
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
        let sender = try MulticastSender(ipv6: false, options: .init(interface: "lo"))
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
