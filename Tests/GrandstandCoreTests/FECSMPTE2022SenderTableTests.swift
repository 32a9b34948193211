import Foundation
import Testing
import TestSupport
@testable import GrandstandCore

/// One row of the real-sender table: a sender at L×D, a bitrate, a loss.
struct SenderCase: Sendable, CustomTestStringConvertible {
    /// Which FEC the sender sends: both (2D), column only (1D), or row only (GStreamer).
    enum Flows: String, Sendable {
        case both = "", column = "1d", row
    }

    enum Loss: String, Sendable {
        /// min(L, 4) consecutive packets ending row 0 of the matrix: one per column, whose FEC
        /// comes last ((L − 1)·D packets into the next matrix). Recoverable.
        case burst
        /// Three packets in different rows and columns: each row FEC (or column, in 1D) repairs one.
        case isolated
        /// A 2×2 square (1D: two packets of one column; row only: two of one row): no row or
        /// column has one loss. Not recoverable.
        case square
    }

    var sender: String
    var columns: Int
    var rows: Int
    var flows = Flows.both
    var megabits: Double
    var loss: Loss
    /// `fec.timeoutMilliseconds` (the bound), nil for the default.
    var boundMilliseconds: Int? = nil

    var spec: String { "\(sender):\(columns):\(rows)" + (flows == .both ? "" : ":\(flows.rawValue)") }
    var recoverable: Bool { loss != .square && boundMilliseconds == nil }
    var testDescription: String {
        let kind = [Flows.both: "", .column: " 1D", .row: " row only"][flows] ?? ""
        return "\(sender) \(columns)×\(rows)\(kind) \(megabits) Mbit/s \(loss.rawValue)" + (boundMilliseconds.map { " bound \($0) ms" } ?? "")
    }

    /// Media indices dropped, all in matrix 4 (the sender's matrices start at its first packet;
    /// the rate is known after four; its column FEC still comes before the 668-packet source ends).
    var dropped: [Int] {
        let base = 4 * columns * rows
        func at(_ row: Int, _ column: Int) -> Int { base + row * columns + column }
        switch loss {
        case .burst: return (columns - min(4, columns)..<columns).map { at(0, $0) }
        case .isolated: return [at(1, 0), at(2, columns / 2), at(3, columns - 1)]
        case .square:
            switch flows {
            case .both: return [at(1, 1), at(1, 2), at(2, 1), at(2, 2)]
            case .column: return [at(1, 1), at(2, 1)]
            case .row: return [at(1, 1), at(1, 2)]
            }
        }
    }
}

/// The matrix × bitrate × loss table against the real senders (docs/headends.md, "SMPTE 2022-1
/// FEC"): GStreamer rtpst2022-1-fecenc and FFmpeg prompeg captured once per run by
/// tools/fixtures/fec-matrix.py (root: a private network namespace), each case's flows re-timed
/// as a constant-bit-rate sender at its bitrate (the senders' own interleaving of FEC and media
/// kept) with chosen media packets dropped, replayed through IngestPipeline (the pcap's times
/// drive the clock, ticked every 10 ms as live ingest does) with the channel's static 2022-1
/// config. Recoverable: the TS is what was sent, byte for byte, and decodes to the source's
/// frames (ffmpeg framemd5). Not recoverable: exactly the dropped packets' TS is missing.
@Suite(.enabled(if: SenderTable.available, "needs root, python3 and the fixture tools (tools/fixtures/fec-matrix.py)"))
struct FECSMPTE2022SenderTableTests {
    static let cases: [SenderCase] = [
        SenderCase(sender: "gst", columns: 4, rows: 4, megabits: 20, loss: .burst),
        SenderCase(sender: "ffmpeg", columns: 4, rows: 4, megabits: 1, loss: .isolated),
        SenderCase(sender: "gst", columns: 10, rows: 5, megabits: 1.5, loss: .burst),
        SenderCase(sender: "ffmpeg", columns: 10, rows: 5, megabits: 1.5, loss: .burst),
        SenderCase(sender: "ffmpeg", columns: 10, rows: 5, megabits: 1.5, loss: .burst, boundMilliseconds: 200),
        SenderCase(sender: "ffmpeg", columns: 10, rows: 10, megabits: 5, loss: .isolated),
        SenderCase(sender: "gst", columns: 10, rows: 10, megabits: 20, loss: .square),
        SenderCase(sender: "gst", columns: 20, rows: 5, megabits: 1, loss: .burst),
        SenderCase(sender: "ffmpeg", columns: 20, rows: 5, megabits: 2, loss: .square),
        SenderCase(sender: "gst", columns: 5, rows: 20, megabits: 10, loss: .isolated),
        SenderCase(sender: "ffmpeg", columns: 4, rows: 20, megabits: 8, loss: .burst),
        SenderCase(sender: "gst", columns: 20, rows: 4, megabits: 15, loss: .isolated),
        SenderCase(sender: "gst", columns: 8, rows: 8, flows: .column, megabits: 3, loss: .burst),
        SenderCase(sender: "gst", columns: 8, rows: 8, flows: .column, megabits: 3, loss: .square),
        SenderCase(sender: "gst", columns: 10, rows: 5, flows: .row, megabits: 4, loss: .isolated),
        SenderCase(sender: "gst", columns: 10, rows: 5, flows: .row, megabits: 4, loss: .square),
        SenderCase(sender: "ffmpeg", columns: 6, rows: 6, megabits: 12, loss: .square),
    ]

    @Test(arguments: cases)
    func senderMatrix(_ c: SenderCase) throws {
        let table = try SenderTable.shared.get()
        let sender = try #require(table.senders[c.spec], "no capture of \(c.spec)")
        let name = "\(c.spec.replacingOccurrences(of: ":", with: "-"))-\(c.megabits)M-\(c.loss)-\(c.boundMilliseconds ?? 0)"
        let pcap = table.directory.appendingPathComponent("\(name).pcap").path
        let impaired = try SenderTable.python(["impair", table.directory.appendingPathComponent("senders.pcap").path, pcap,
                                               "--port", "\(sender.port)", "--megabits", "\(c.megabits)",
                                               "--drop", c.dropped.map(String.init).joined(separator: ",")])
        #expect(impaired.hasPrefix("dropped "))
        let run = try SenderReplay(pcap: pcap, port: sender.port, c: c)
        let stat = { (name: String) in run.stats.channel("table", name) ?? -1 }
        let lost = c.dropped.count
        // The TS the sender sent, less what could not be recovered.
        let expected = sender.payloads.enumerated().filter { c.recoverable || !c.dropped.contains($0.offset) }.flatMap(\.element)
        #expect(run.transportStream.count == expected.count)
        #expect(run.transportStream == expected, "TS differs from what \(c.sender) sent")
        #expect(stat("window_recovery_successes") == (c.recoverable ? 1 : 0))
        #expect(stat("window_recovery_failures") == (c.recoverable ? 0 : 1))
        #expect(stat("recovered_packets") == (c.recoverable ? lost : 0))
        #expect(stat("gap_packets") == (c.recoverable ? 0 : lost))
        #expect(stat("window_error") == 0 && stat("fec_repair_packets_malformed") == 0 && stat("fec_recoveries_rejected") == 0)
        #expect(stat("window_wait_capped") == (c.boundMilliseconds == nil ? 0 : 1))
        if let bound = c.boundMilliseconds { #expect(stat("fec_wait_ms_current") == bound) }
        if c.recoverable {
            let ts = table.directory.appendingPathComponent("\(name).ts")
            try Data(run.transportStream).write(to: ts)
            let hashes = try SenderTable.python(["hashes", ts.path]).split(separator: "\n").map(String.init)
            #expect(hashes == table.sourceHashes, "decoded frames differ from the source")
        }
    }
}

/// The senders' captures, made once per test run into a temporary directory.
struct SenderTable: Sendable {
    struct Sender: Sendable {
        var port: UInt16
        /// Each media packet's RTP payload (TS), in sending order.
        var payloads: [[UInt8]]
    }

    var directory: URL
    var senders: [String: Sender]
    var sourceHashes: [String]

    static let script = Fixtures.directory.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("tools/fixtures/fec-matrix.py").path
    static var available: Bool {
        TestEnvironment.isRoot && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
            && FileManager.default.fileExists(atPath: script)
    }

    static func python(_ arguments: [String]) throws -> String {
        let result = try runTool("/usr/bin/python3", [script] + arguments, timeout: 120)
        guard result.status == 0 else { throw ScriptFailed(arguments: arguments, status: result.status, stderr: result.stderr) }
        return result.stdout
    }

    struct ScriptFailed: Error, CustomStringConvertible {
        var arguments: [String], status: Int32, stderr: String
        var description: String { "fec-matrix.py \(arguments.joined(separator: " ")) exited \(status): \(stderr)" }
    }

    static let shared: Result<SenderTable, any Error> = Result { try SenderTable() }

    init() throws {
        let temporary = FileManager.default.temporaryDirectory
        // Captures of earlier runs whose process is gone (a run keeps its own for inspection).
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? [] where name.hasPrefix("gs-fec-table-") {
            if let pid = Int32(name.dropFirst("gs-fec-table-".count)), kill(pid, 0) != 0 {
                try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name))
            }
        }
        directory = temporary.appendingPathComponent("gs-fec-table-\(getpid())")
        try? FileManager.default.removeItem(at: directory)
        let specs = Set(FECSMPTE2022SenderTableTests.cases.map(\.spec)).sorted()
        let listing = try Self.python(["capture", directory.path] + specs)
        sourceHashes = try String(contentsOf: directory.appendingPathComponent("src.hashes"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        let capture = try PcapFile(path: directory.appendingPathComponent("senders.pcap").path)
        var byPort: [UInt16: [[UInt8]]] = [:]
        for (time, frame) in capture.frames {
            guard case let .success(datagram) = FrameDecoder.decode(frame, link: capture.link, timestampNanoseconds: time),
                  case let .success(rtp) = RTPPacket.parse(datagram.payload) else { continue }
            byPort[datagram.destination.port, default: []].append(Array(rtp.payload))
        }
        senders = [:]
        for line in listing.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 4, let port = UInt16(fields[1]) else { continue }
            senders[String(fields[0])] = Sender(port: port, payloads: byPort[port] ?? [])
        }
    }
}

/// A classic pcap read whole (the fixture script writes microsecond pcaps).
struct PcapFile {
    var link: LinkLayer
    var frames: [(Int64, [UInt8])]

    struct Unreadable: Error {}

    init(path: String) throws {
        let data = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        func le32(_ at: Int) -> UInt32 { (0..<4).reduce(UInt32(0)) { $0 | UInt32(data[at + $1]) << (8 * UInt32($1)) } }
        guard data.count >= 24, le32(0) == 0xA1B2_C3D4, let link = LinkLayer(linkType: Int32(bitPattern: le32(20))) else { throw Unreadable() }
        self.link = link
        frames = []
        var offset = 24
        while offset + 16 <= data.count {
            let time = Int64(le32(offset)) * 1_000_000_000 + Int64(le32(offset + 4)) * 1000
            let length = Int(le32(offset + 8))
            guard offset + 16 + length <= data.count else { throw Unreadable() }
            frames.append((time, Array(data[(offset + 16)..<(offset + 16 + length)])))
            offset += 16 + length
        }
    }
}

/// One case's capture through IngestPipeline with a static 2022-1 channel, ticked every 10 ms.
struct SenderReplay {
    var transportStream: [UInt8] = []
    var stats: IngestStats

    init(pcap: String, port: UInt16, c: SenderCase) throws {
        let fec = #"{"scheme":"smpte2022-1","L":\#(c.columns),"D":\#(c.rows)}"#
        let bound = c.boundMilliseconds.map { #","fec":{"timeoutMilliseconds":\#($0)}"# } ?? ""
        let config = #"""
        {"license":{"venueName":"Demo Stadium","contentOwner":"Grandstand","appDeveloper":"Grandstand"},
         "management":{"token":"t"},"streamers":{"allow":["10.200.42.0/24"]},
         "channels":[{"name":"Table","kind":"video","group":"239.255.42.1","port":\#(port),"fec":\#(fec)}]\#(bound)}
        """#
        let gateway = try GatewayConfig.decode(Array(config.utf8))
        // What the product wires (ISA-L for Reed-Solomon, unused here).
        let configuration = IngestConfiguration(config: gateway,
                                                recovery: FECRecovery.factory(configuration: gateway.fec, math: { ReferenceReedSolomon() }))
        var pipeline = IngestPipeline(configuration: configuration)
        let capture = try PcapFile(path: pcap)
        var stream: [UInt8] = []
        func take(_ actions: [IngestAction]) {
            for case let .transportStream(_, packets, _) in actions { stream += packets }
        }
        var nextTick: Int64? = nil
        for (time, frame) in capture.frames {
            while let tick = nextTick, tick <= time {
                take(pipeline.tick(nowNanoseconds: tick))
                nextTick = tick + 10_000_000
            }
            if nextTick == nil { nextTick = time + 10_000_000 }
            take(pipeline.ingest(frame: frame[...], link: capture.link, timestampNanoseconds: time))
        }
        // Time runs on past the last packet: every wait ends.
        let end = (capture.frames.last?.0 ?? 0) + 2_000_000_000
        take(pipeline.tick(nowNanoseconds: end))
        transportStream = stream
        stats = pipeline.stats
    }
}
