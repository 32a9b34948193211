import Testing
import TestSupport
@testable import Capture

/// The fixture holds 12 frames (see tools/fixtures/capture_fixture.py): 5 RTP to
/// 239.255.1.1:5000 with sequence numbers 100..104, 3 UDP to :5002, 2 SAP, 1 TCP, 1 ARP.
struct OfflineCaptureTests {
    static let files = ["capture/mixed.pcap", "capture/mixed.pcapng"]

    func readAll(_ capture: PacketCapture) throws -> [CapturedPacket] {
        var packets: [CapturedPacket] = []
        while let packet = try capture.next() { packets.append(packet) }
        return packets
    }

    @Test(arguments: files)
    func readsEveryFrame(file: String) throws {
        let capture = try PacketCapture.open(file: Fixtures.path(file))
        #expect(capture.linkType.rawValue == LinkType.ethernet)
        #expect(capture.linkType.name == "EN10MB")
        let packets = try readAll(capture)
        #expect(packets.count == 12)
        #expect(packets.map(\.originalLength) == packets.map(\.bytes.count))
    }

    @Test(arguments: zip(files, [Int64(1_700_000_000_000_123_000), 1_700_000_000_000_123_457]))
    func timestampsKeepTheFilesPrecision(file: String, first: Int64) throws {
        let packets = try readAll(try PacketCapture.open(file: Fixtures.path(file)))
        #expect(packets.first?.timestampNanoseconds == first)
        #expect(packets[1].timestampNanoseconds - packets[0].timestampNanoseconds == 20_000_000)
    }

    @Test(arguments: files)
    func bpfFilterKeepsOneChannel(file: String) throws {
        let capture = try PacketCapture.open(file: Fixtures.path(file))
        try capture.setFilter("udp and dst host 239.255.1.1 and dst port 5000")
        let packets = try readAll(capture)
        // RTP sequence number: Ethernet 14 + IPv4 20 + UDP 8, then bytes 2...3 of the RTP header.
        let sequences = packets.map { UInt16($0.bytes[44]) << 8 | UInt16($0.bytes[45]) }
        #expect(sequences == [100, 101, 102, 103, 104])
    }

    @Test(arguments: [("udp port 9875", 2), ("tcp", 1), ("arp", 1), ("udp", 10), ("ip multicast", 10), ("", 12)])
    func filterCounts(expression: String, count: Int) throws {
        let capture = try PacketCapture.open(file: Fixtures.path("capture/mixed.pcap"))
        try capture.setFilter(expression)
        #expect(try readAll(capture).count == count)
    }

    @Test func badFilterIsAClearError() throws {
        let capture = try PacketCapture.open(file: Fixtures.path("capture/mixed.pcap"))
        let error = try #require(thrownError(CaptureError.self) { try capture.setFilter("udp and and port") })
        #expect(error.operation.hasPrefix("compile filter \"udp and and port\""))
        #expect(error.message.contains("syntax error"))
    }

    @Test func missingFileIsAClearError() {
        let error = thrownError(CaptureError.self) { _ = try PacketCapture.open(file: "/nonexistent/x.pcap") }
        #expect(error?.message.contains("No such file") == true)
    }

    @Test func notACaptureFileIsAClearError() {
        #expect(throws: CaptureError.self) { try PacketCapture.open(file: Fixtures.directory.path + "/../Support/Fixtures.swift") }
    }

    @Test func libraryVersionIsReported() {
        #expect(PacketCapture.libraryVersion.hasPrefix("libpcap version 1."))
    }
}
