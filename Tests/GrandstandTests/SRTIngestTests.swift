import Foundation
import GrandstandCore
import SRT
import Synchronization
import TestSupport
import Testing
@testable import GrandstandIngest
@testable import GrandstandOperations

/// Live ingest with SRT channels and no capture (the interface is missing, so only SRT feeds the
/// pipeline): a peer's TS reaches the sink as the channel's transport stream, in both modes; a
/// peer that goes quiet with its link up is a stall;
/// stop is prompt while connected and while a caller backs off; a replacement ingest (a live
/// config change) takes the listener's port back. Loopback only, so it runs under qemu-user too.
@Suite(.serialized) struct SRTIngestTests {
    /// The TS bytes the sink got, per channel id.
    final class Received: Sendable {
        let bytes = Mutex<[String: Int]>([:])
        func count(_ id: String) -> Int { bytes.withLock { $0[id] ?? 0 } }
        var sink: LiveIngest.Sink {
            { [self] actions in
                for case .transportStream(let id, let packets, _) in actions { bytes.withLock { $0[id, default: 0] += packets.count } }
            }
        }
    }

    static func ingest(_ channel: String, into received: Received) throws -> LiveIngest {
        let text = #"{"license":{"venueName":"V","contentOwner":"O","appDeveloper":"D"},"management":{"token":"t"},"channels":[\#(channel)]}"#
        let config = try GatewayConfig.decode(Array(text.utf8))
        let settings = LiveIngest.Settings(interface: "gs-no-such-if0", configuration: .product(config))
        return try LiveIngest(settings: settings, events: EventLog(stderrOnly: true), sink: received.sink)
    }

    /// 7 TS packets on PID 0x100 with continuity counters from `7 × index`.
    static func tsBlock(_ index: Int) -> [UInt8] {
        (0..<7).flatMap { j -> [UInt8] in
            [0x47, 0x01, 0x00, 0x10 | UInt8((index * 7 + j) & 0x0F)] + [UInt8](repeating: UInt8(truncatingIfNeeded: j), count: 184)
        }
    }

    static func stat(_ ingest: LiveIngest, _ id: String, _ name: String) -> Int {
        IngestStats.int(ingest.snapshot.stats.channels[id]?[name]) ?? 0
    }

    /// Connects an adapter caller to the ingest's listener on `port` (retrying while it binds).
    static func caller(port: UInt16) throws -> SRTSocket {
        var connected: SRTSocket?
        try waitFor("a caller connected to :\(port)", timeout: 60) {
            let socket = try SRTSocket(settings: SRTSettings())
            try socket.connect(try SRTAddress.resolve(host: "127.0.0.1", port: port))
            for _ in 0..<40 {
                if (try? socket.waitConnected(timeoutMilliseconds: 50)) == true { connected = socket; return true }
                if !socket.isConnecting { return false }
            }
            return false
        }
        return try #require(connected)
    }

    static func send(_ socket: SRTSocket, blocks: Range<Int>) throws {
        for index in blocks { _ = try socket.send(tsBlock(index)[...]) }
    }

    @Test func aCallersTSReachesTheSinkAndAReplacementTakesThePortBack() throws {
        let received = Received()
        let channel = #"{"name":"Backup","kind":"video","srt":{"url":"srt://127.0.0.1:9141","mode":"listener"}}"#
        let first = try Self.ingest(channel, into: received)
        try first.start()
        let peer = try Self.caller(port: 9141)
        try Self.send(peer, blocks: 0..<100)
        try waitFor("100 messages as TS", timeout: 60) { received.count("backup") == 100 * 7 * 188 }
        #expect(Self.stat(first, "backup", "srt_connected_current") == 1)
        // The pipeline's counters are published on the loop's next tick.
        try waitFor("the TS counted", timeout: 30) { Self.stat(first, "backup", "ts_packets") == 700 }
        #expect(Self.stat(first, "backup", "gaps") == 0 && Self.stat(first, "backup", "packets_received") == 100)
        // The peer goes quiet but its SRT link stays up (keepalives): a stall, counted once.
        try waitFor("a stall counted", timeout: 30) { Self.stat(first, "backup", "srt_stalls") == 1 }
        #expect(Self.stat(first, "backup", "srt_connected_current") == 1)
        try Self.send(peer, blocks: 100..<101)
        try waitFor("the stalled peer's TS", timeout: 30) { received.count("backup") == 101 * 7 * 188 }
        // Stop while connected: within a wait slice or two, not a libsrt timeout.
        let stopping = Date()
        first.stop()
        #expect(Date().timeIntervalSince(stopping) < 2)
        #expect(Self.stat(first, "backup", "srt_connected_current") == 0)
        // A live config change: a new ingest listens on the same port again.
        let second = try Self.ingest(channel, into: received)
        try second.start()
        defer { second.stop() }
        let again = try Self.caller(port: 9141)
        try Self.send(again, blocks: 0..<10)
        try waitFor("TS through the replacement", timeout: 60) { received.count("backup") == 111 * 7 * 188 }
        #expect(Self.stat(second, "backup", "srt_connections") == 1)
    }

    @Test func aCallerBacksOffWhileNothingListensThenReceivesAndStopsPromptly() throws {
        let received = Received()
        let ingest = try Self.ingest(#"{"name":"Uplink","kind":"video","srt":{"url":"srt://127.0.0.1:9142","mode":"caller"}}"#, into: received)
        try ingest.start()
        defer { ingest.stop() }
        try waitFor("a failed connection attempt", timeout: 60) { Self.stat(ingest, "uplink", "srt_connect_failures") >= 1 }
        let listener = try SRTSocket(settings: SRTSettings())
        try listener.listen(try SRTAddress.resolve(host: "127.0.0.1", port: 9142))
        var accepted: SRTSocket?
        try waitFor("the gateway's caller accepted", timeout: 60) {
            if try listener.wait(timeoutMilliseconds: 50) { accepted = try listener.accept()?.socket }
            return accepted != nil
        }
        let peer = try #require(accepted)
        try waitFor("connected as seen by the ingest", timeout: 30) { Self.stat(ingest, "uplink", "srt_connected_current") == 1 }
        try Self.send(peer, blocks: 0..<20)
        try waitFor("20 messages as TS", timeout: 60) { received.count("uplink") == 20 * 7 * 188 }
        let stopping = Date()
        ingest.stop()
        #expect(Date().timeIntervalSince(stopping) < 2)
    }
}
