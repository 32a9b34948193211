import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import GrandstandCore
import Multicast
import GrandstandOperations
import GrandstandStreamer

/// `grandstand send`: the venue streamer for tests and demos. Announces channels with SAP,
/// sends MPEG-TS files as RTP paced by their PCRs, sends data-channel messages, and can drop
/// packets on purpose. See docs/streamer.md.
struct SendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Send venue channels (SAP + RTP/MPEG-TS + data) to multicast groups.",
        discussion: """
            Example: grandstand send --interface lo --video "Bowl=tools/samples/clean.ts@239.255.20.1:5000" \\
                     --data "Scores@239.255.20.2:5002" --loop
            Exits on SIGINT/SIGTERM (sending SAP deletions) or when the files are sent.
            """)

    @Option(help: "Outgoing interface (IP_MULTICAST_IF); its address is the SAP origin.")
    var interface: String?

    @Option(help: ArgumentHelp("Source address to bind and announce as origin.", valueName: "ADDR"))
    var source: String?

    @Option(help: ArgumentHelp("A video channel: MPEG-TS FILE sent as RTP/AVP 33 (repeatable).", valueName: "NAME=FILE@GROUP:PORT"))
    var video: [String] = []

    @Option(help: ArgumentHelp("A data channel: lines of a JSON-lines FILE, or a counter (repeatable).", valueName: "NAME@GROUP:PORT[=FILE]"))
    var data: [String] = []

    @Option(help: ArgumentHelp("Channels as JSON: {\"channels\":[{\"name\",\"kind\":\"video|data\",\"file\",\"group\",\"port\",\"fec\"}]}.", valueName: "FILE"))
    var config: String?

    @Option(help: ArgumentHelp("A file channel: a FLUTE carousel of DIR's files, re-read every round (repeatable).", valueName: "[NAME@GROUP:PORT=]DIR"))
    var files: [String] = []

    @Option(help: "FLUTE encoding symbol bytes per packet (--files).")
    var fileSymbolSize: Int = 1024

    @Option(help: "FLUTE source symbols per block (--files; with --file-repair, block + repair ≤ 255).")
    var fileBlock: Int = 64

    @Option(help: "FLUTE Reed-Solomon repair symbols per block (--files; 0 = Compact No-Code).")
    var fileRepair: Int = 0

    @Option(help: "FLUTE source blocks sent interleaved (--files; 1-256): a burst of lost packets is spread over them.")
    var fileInterleave: Int = 1

    @Option(help: "Seconds between FLUTE packets (--files).")
    var fileInterval: Double = 0.0005

    @Option(help: "FLUTE Transport Session Identifier (--files), announced as a=flute-tsi.")
    var fileTSI: UInt64 = 1

    @Option(help: "Content-Encoding of every FLUTE file (--files): gzip or identity.")
    var fileEncoding: String = "identity"

    @Option(help: "Seconds between data-channel messages.")
    var dataInterval: Double = 1

    @Flag(help: "Send data channels as raw UDP (m=application PORT udp data) instead of RTP.")
    var dataUDP = false

    @Option(help: ArgumentHelp("SAP group (IPv4 or IPv6).", valueName: "ADDR"))
    var sapGroup: String = "239.255.255.255"

    @Option(help: "Seconds between announcements of each channel.")
    var sapInterval: Double = 5

    @Flag(help: "zlib-compress SAP payloads (C bit).")
    var compress = false

    @Option(help: ArgumentHelp("License triplet announced with every channel.", valueName: "VENUE/OWNER/APP"))
    var license: String = "Demo Stadium/Grandstand/Grandstand"

    @Flag(help: "Announce channels without a license attribute.")
    var noLicense = false

    @Flag(help: "Loop the files (and data messages) forever.")
    var loop = false

    @Option(help: "Passes over each file (default 1; --loop for endless).")
    var count: Int?

    @Option(help: ArgumentHelp("Drop this fraction (0-1) of each channel's packets, seeded.", valueName: "P"))
    var dropRate: Double?

    @Option(help: "Seed for --drop-rate and the RTP identities.")
    var seed: UInt64 = 1

    @Option(help: ArgumentHelp("Drop exactly these packets of each channel: every:N or 0,5,10-12.", valueName: "PATTERN"))
    var dropPattern: String?

    @Option(help: ArgumentHelp("FEC for every --video channel: smpte2022-1[:L=5,D=4[,row=no]] (column FEC on port+2, row on port+4) or reed-solomon[:k=20,m=4[,port=P]] (repairs on P, default port+2).", valueName: "SPEC"))
    var fec: String?

    @Option(help: ArgumentHelp("Drop exactly these packets of each FEC repair flow: every:N or 0,5,10-12.", valueName: "PATTERN"))
    var dropRepair: String?

    @Option(help: ArgumentHelp("Network faults on media/repair flows: duplicate=P,reorder=P,jitter=MS,burst=N/M (seeded; docs/reliability.md).", valueName: "SPEC"))
    var impair: String?

    @Option(help: "Multicast TTL / hop limit.")
    var ttl: Int = 16

    @Flag(help: "Do not loop multicast back to this host (IP_MULTICAST_LOOP off).")
    var noLoopback = false

    @Option(help: "Stop after this many seconds.")
    var duration: Double?

    @Flag(help: "Only announce (SAP); send no media. Runs until a signal or --duration.")
    var announceOnly = false

    @Option(help: ArgumentHelp("Seconds from the first announcement to the first media packet, so receivers know the channels first (default: one SAP interval, at most 0.5).", valueName: "SECONDS"))
    var leadIn: Double?

    @Option(help: ArgumentHelp("Seconds between the last media/repair packet and the SAP deletions when a channel sends FEC, so receivers decide the last window at their repair timeout first.", valueName: "SECONDS"))
    var fecDrain: Double = 0.5

    @Option(help: "Bit rate for pacing TS files that carry no PCR.")
    var fallbackBitrate: Int = 1_000_000

    func validate() throws {
        guard !video.isEmpty || !data.isEmpty || !files.isEmpty || config != nil else {
            throw ValidationError("nothing to send: give --video, --data, --files or --config")
        }
        guard sapInterval > 0, dataInterval > 0 else { throw ValidationError("--sap-interval and --data-interval must be > 0") }
        guard (0...255).contains(ttl) else { throw ValidationError("--ttl must be 0-255") }
        guard fileInterval > 0, fileSymbolSize > 0, fileBlock > 0, fileRepair >= 0 else { throw ValidationError("--file-interval, --file-symbol-size and --file-block must be > 0, --file-repair ≥ 0") }
        if let count, count < 1 { throw ValidationError("--count must be ≥ 1") }
        if loop && count != nil { throw ValidationError("--loop and --count exclude each other") }
        if let dropRate, !(0...1).contains(dropRate) { throw ValidationError("--drop-rate must be within 0-1") }
        if dropRate != nil && dropPattern != nil { throw ValidationError("--drop-rate and --drop-pattern exclude each other") }
        if let duration, duration <= 0 { throw ValidationError("--duration must be > 0") }
        if let leadIn, !(0...3600).contains(leadIn) { throw ValidationError("--lead-in must be within 0-3600") }
        guard (0...3600).contains(fecDrain) else { throw ValidationError("--fec-drain must be within 0-3600") }
        if let impair, case .failure(let failure) = SendImpairment.parse(impair, seed: seed) { throw ValidationError(failure.description) }
    }

    func run() throws {
        let plan: SendPlan
        do {
            plan = try SendPlan(self)
        } catch let error as SendSpec.Failure {
            printError("grandstand send: \(error)")
            throw ExitCode(64)   // EX_USAGE
        } catch let error as MulticastError {
            printError("grandstand send: \(error)")
            throw ExitCode(1)
        }
        var clock = SendClock()
        let start = clock.now + 20_000_000
        let session = plan.session(start: start)
        if let impair { session.impairment = try SendImpairment.parse(impair, seed: seed).get() }
        do {
            try session.openSockets()
        } catch {
            printError("grandstand send: \(error)")
            throw ExitCode(1)
        }
        for line in plan.banner { print(line) }
        fflush(nil)
        let stopAt = duration.map { start + Int64($0 * 1e9) }
        var signalled = false
        do {
            signalled = try session.run(clock: &clock, stopAt: stopAt, untilSignal: announceOnly)
        } catch {
            printError("grandstand send: \(error)")
            session.sendDeletions(now: clock.now)
            for line in session.summary() { print(line) }
            throw ExitCode(1)
        }
        if !signalled, plan.videos.contains(where: { $0.fec != nil }) {
            // Receivers decide a stream's last FEC window only at their repair timeout (200 ms by
            // default; its last source may be merely late until then), and a deletion retires the
            // channel: let that timeout pass first.
            signalled = clock.wait(until: clock.now + Int64(fecDrain * 1e9))
        }
        session.sendDeletions(now: clock.now)
        if signalled { print("stopped on signal; SAP deletions sent") }
        for line in session.summary() { print(line) }
        if let impairment = session.impairment { print(impairment.summary) }
    }
}
extension SendCommand: SendOptions {}
