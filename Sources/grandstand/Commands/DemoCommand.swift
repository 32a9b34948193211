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
import GrandstandRuntime
import GrandstandDaemon
import GrandstandOperations
import GrandstandStreamer
import HTTPClient
import Synchronization

/// `grandstand demo`: the venue streamer and the gateway in one process. The embedded streamer
/// (the `send` code) loops a sample file as several channels on loopback multicast, with
/// Reed-Solomon FEC and a little induced loss (0.2 %); the gateway captures them on `lo` and serves the fan page, HLS and the
/// management API. Prints the URLs; runs until Ctrl-C or --duration.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo", abstract: "Stream sample channels on loopback and serve them (fan page + management API).")

    @Option(help: "MPEG-TS sample to loop on every channel.")
    var sample: String = "tools/samples/clean.ts"

    @Option(help: "Number of video channels (1-6).")
    var channels: Int = 3

    @Option(help: "Fan listener address.")
    var fan: String = "127.0.0.1:8080"

    @Option(help: "Management listener address.")
    var management: String = "127.0.0.1:8081"

    @Option(help: "Management API token.")
    var token: String = "demo"

    @Option(help: "Interface the streamer sends on and the gateway captures on.")
    var interface: String = "lo"

    @Option(help: ArgumentHelp("Fraction of packets the streamer drops (induced loss, repaired by FEC).", valueName: "P"))
    var dropRate: Double = 0.002

    @Option(help: ArgumentHelp("FEC the streamer adds to every video channel (`send --fec`; \"none\" for none).", valueName: "SPEC"))
    var fec: String = "reed-solomon"

    @Option(help: ArgumentHelp("LL-HLS part duration in seconds (config hls.partSeconds, 0.1-2).", valueName: "SECONDS"))
    var partSeconds: Double = 0.2

    @Option(help: ArgumentHelp("Directory sent as the \"Match Day\" file channel (a catalog feed and downloads; \"none\" for none).", valueName: "DIR"))
    var matchday: String = "tools/samples/matchday"

    @Option(help: ArgumentHelp("Seconds of the first channel the demo records once it is live (0: none).", valueName: "SECONDS"))
    var record: Double = 20

    @Option(help: "Stop after this many seconds (default: until Ctrl-C).")
    var duration: Double?

    static let names = ["Main Camera", "Goal Cam", "Sideline", "Skycam", "Bench", "Replay"]

    func validate() throws {
        guard (1...Self.names.count).contains(channels) else { throw ValidationError("--channels must be 1-\(Self.names.count)") }
        guard ListenAddress(parsing: fan) != nil, ListenAddress(parsing: management) != nil else {
            throw ValidationError("--fan and --management must be numeric HOST:PORT")
        }
        guard (0...1).contains(dropRate) else { throw ValidationError("--drop-rate must be within 0-1") }
        if let duration, duration <= 0 { throw ValidationError("--duration must be > 0") }
        guard record >= 0 else { throw ValidationError("--record must be >= 0") }
        guard (0.1...2).contains(partSeconds) else { throw ValidationError("--part-seconds must be within 0.1-2") }
    }

    /// The `send` options of the embedded streamer.
    var sendArguments: [String] {
        var arguments = ["--interface", interface, "--loop", "--sap-interval", "1"]
        for index in 0..<channels {
            arguments += ["--video", "\(Self.names[index])=\(sample)@239.255.20.\(index + 1):\(5000 + 10 * index)"]
        }
        arguments += ["--data", "Scores@239.255.21.1:5100"]
        if matchday != "none" { arguments += ["--files", "Match Day@239.255.22.1:5200=\(matchday)"] }
        if dropRate > 0 { arguments += ["--drop-rate", String(dropRate)] }
        if fec != "none" { arguments += ["--fec", fec] }
        return arguments
    }

    /// The gateway's configuration: the streamer's license, capture on the demo interface, its
    /// state (recordings, the download cache) in `state`.
    func gatewayConfig(state: String) -> String {
        """
        {"license":{"venueName":"Demo Stadium","contentOwner":"Grandstand","appDeveloper":"Grandstand"},
         "stateDirectory":"\(state)","cache":{},
         "network":{"interface":"\(interface)","wifiInterface":null},
         "listeners":{"fan":"\(fan)","management":"\(management)"},
         "management":{"token":"\(token)"},
         "discovery":{"sapGroups":["239.255.255.255"]},
         "hls":{"partSeconds":\(partSeconds)}}
        """
    }

    func run() throws {
        var signals = SignalLoop()
        guard access(sample, R_OK) == 0 else {
            printError("grandstand demo: cannot read the sample \(sample) (run from the repository, or give --sample)")
            throw ExitCode(66)   // EX_NOINPUT
        }
        if matchday != "none", access(matchday, R_OK | X_OK) != 0 {
            printError("grandstand demo: cannot read --matchday \(matchday) (run from the repository, or give --matchday none)")
            throw ExitCode(66)
        }
        // A fresh state directory per run: the demo's recordings and cache go away with /tmp.
        var template = Array("/tmp/grandstand-demo-XXXXXX".utf8CString)
        guard let state = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }).map({ String(cString: $0) }) else {
            printError("grandstand demo: cannot make a state directory in /tmp: errno \(errno)")
            throw ExitCode(73)   // EX_CANTCREAT
        }
        let config = try GatewayConfig.decode(Array(gatewayConfig(state: state).utf8))
        let daemon = Daemon(config: config, board: nil, events: EventLog(stderrOnly: true), ingest: Daemon.productIngest(config))
        do {
            try daemon.start()
        } catch {
            printError("grandstand demo: \(error)")
            throw ExitCode(1)
        }
        let streamer: DemoStreamer
        do {
            streamer = try DemoStreamer(arguments: sendArguments)
        } catch {
            daemon.stop()
            printError("grandstand demo: streamer: \(error)")
            throw ExitCode(1)
        }
        do {
            try streamer.start()
        } catch {
            daemon.stop()
            printError("grandstand demo: streamer: \(error)")
            throw ExitCode(1)
        }
        guard let status = daemon.status else { throw ExitCode(1) }
        print("""
            Grandstand demo: \(channels) video channel(s) from \(sample) on \(interface) multicast, captured and served.
              fan page:       http://\(status.fan)/
              channel list:   http://\(status.fan)/channels.json
              live playlist:  http://\(status.fan)/channels/\(ChannelSlug.make(Self.names[0]))/live.m3u8   (LL-HLS over CMAF)
              DASH manifest:  http://\(status.fan)/channels/\(ChannelSlug.make(Self.names[0]))/live.mpd
              management:     curl -H 'Authorization: Bearer \(token)' http://\(status.management)/api/v1/stats
              state:          \(state)   (recordings, download cache)
            Channels appear within a few seconds (first SAP announcement, first 2 s segment)\(record > 0 ? "; the first is recorded for \(Int(record)) s as \"kick-off\"" : ""). Ctrl-C stops.
            """)
        fflush(nil)
        let end = duration.map { SystemClock().monotonicNanoseconds() + Int64($0 * 1e9) }
        // The first channel recorded as an operator would, so the fan page's "Recordings" has one.
        let client = ManagementClient(endpoint: HTTPEndpoint(host: status.management.host, port: status.management.port), token: token)
        var recording = record > 0 ? TimedRecording(name: "kick-off", channel: ChannelSlug.make(Self.names[0]), seconds: record) : nil
        while !streamer.signalled {
            if signals.wait(milliseconds: 250) == .terminate { break }
            recording?.step(now: SystemClock().monotonicNanoseconds(), call: client.post)
            if case .abandoned(let why)? = recording?.phase {
                print("demo: the kick-off recording did not stop: \(why)")
                recording = nil
            }
            if let end, SystemClock().monotonicNanoseconds() >= end { break }
        }
        streamer.stop()
        daemon.stop()
        print("demo stopped")
    }
}

/// `grandstand send` on a worker thread, run in short slices so it can be stopped.
final class DemoStreamer: Sendable {
    /// The session (sockets; not Sendable) is opened here and handed to the thread, its only
    /// user from then on.
    private let handover: Mutex<SendSession?>
    private let gotSignal = Mutex(false)
    private let thread = Mutex<ServiceThread?>(nil)

    init(arguments: [String]) throws {
        let command = try SendCommand.parse(arguments)
        let plan = try SendPlan(command)
        let clock = SendClock()
        let session = plan.session(start: clock.now + 20_000_000)
        try session.openSockets()
        handover = Mutex(session)
    }

    /// True when the streamer's thread took a SIGINT/SIGTERM (either thread may receive it).
    var signalled: Bool { gotSignal.withLock { $0 } }

    /// Starts the streamer's thread (`demo-streamer`).
    func start() throws(RuntimeError) {
        try thread.withLock { (thread: inout ServiceThread?) throws(RuntimeError) in
            thread = try ServiceThread(name: "demo-streamer") { [self] stop in
                guard let session = handover.withLock({ session in let taken = session; session = nil; return taken }) else { return }
                var clock = SendClock()
                while !stop.isRaised {
                    do {
                        if try session.run(clock: &clock, stopAt: clock.now + 250_000_000, untilSignal: true) {
                            gotSignal.withLock { $0 = true }
                            break
                        }
                    } catch {
                        printError("grandstand demo: streamer: \(error)")
                        break
                    }
                }
                session.sendDeletions(now: clock.now)
            }
        }
    }

    func stop() {
        thread.withLock { thread in defer { thread = nil }; return thread }?.stop()
    }
}
