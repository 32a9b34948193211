import Foundation
#if canImport(Glibc)
import Glibc
#endif
import GrandstandCore
import TestSupport
import Testing
@testable import GrandstandIngest
@testable import GrandstandOperations

/// The bench of the network fault tests (docs/reliability.md, "Faults"): a private network
/// namespace with a veth pair, `grandstand run` capturing on gsv1 (fan and management listeners
/// on the namespace's loopback), and streamers (`grandstand send`) on gsv0. Root only.
final class FaultBed {
    static let license = "Fault Arena/Grandstand/Faults"
    static let fan = "127.0.0.1:18880", management = "127.0.0.1:18881"

    let namespace: NetworkNamespace
    let work: URL
    private(set) var daemon: Child?
    private var children: [Child] = []

    /// `discovery` is the config's discovery section (retirement timing).
    init(_ prefix: String, discovery: String = #"{"sapGroups":["239.255.255.255"]}"#) throws {
        namespace = try NetworkNamespace(prefix: prefix)
        try namespace.addVethPair()
        work = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let config = """
            {"license":{"venueName":"Fault Arena","contentOwner":"Grandstand","appDeveloper":"Faults"},
             "network":{"interface":"gsv1","wifiInterface":null},
             "listeners":{"fan":"\(Self.fan)","management":"\(Self.management)"},
             "management":{"token":"t"},"discovery":\(discovery)}
            """
        try config.write(to: work.appendingPathComponent("config.json"), atomically: true, encoding: .utf8)
    }

    deinit {
        for child in children.reversed() { child.kill() }
        daemon?.kill()
        try? FileManager.default.removeItem(at: work)
    }

    /// Starts the daemon; its output goes to daemon.log (a pipe nobody reads would fill and stall it).
    func startDaemon() throws {
        let log = work.appendingPathComponent("daemon.log").path
        let config = work.appendingPathComponent("config.json").path
        daemon = try Child(["sh", "-c", "exec ip netns exec \(namespace.name) '\(SendEndToEndTests.binary)' run --config '\(config)' >'\(log)' 2>&1"])
        try waitFor("the management listener") { (try? stats()) != nil }
    }

    var daemonLog: String { (try? String(contentsOf: work.appendingPathComponent("daemon.log"), encoding: .utf8)) ?? "" }

    /// `grandstand send` on gsv0 with the bench's license; output to send-NAME.log.
    @discardableResult
    func send(_ name: String, _ arguments: [String]) throws -> Child {
        let log = work.appendingPathComponent("send-\(name).log").path
        let quoted = ([SendEndToEndTests.binary, "send", "--interface", "gsv0", "--license", Self.license] + arguments)
            .map { "'\($0)'" }.joined(separator: " ")
        let child = try Child(["sh", "-c", "exec ip netns exec \(namespace.name) \(quoted) >'\(log)' 2>&1"])
        children.append(child)
        return child
    }

    func sendLog(_ name: String) -> String {
        (try? String(contentsOf: work.appendingPathComponent("send-\(name).log"), encoding: .utf8)) ?? ""
    }

    /// Any other process in the namespace (tcpdump, a flood), killed with the bench.
    @discardableResult
    func spawn(_ command: [String]) throws -> Child {
        let child = try Child(["ip", "netns", "exec", namespace.name] + command)
        children.append(child)
        return child
    }

    /// GET on a listener from inside the namespace: (status, body).
    func get(_ path: String, management: Bool = false) throws -> (status: Int, body: String) {
        var command = ["curl", "-s", "-m", "5", "-w", "\n%{http_code}"]
        if management { command += ["-H", "Authorization: Bearer t"] }
        command.append("http://\(management ? Self.management : Self.fan)\(path)")
        let output = try namespace.exec(command)
        let status = Int(output.split(separator: "\n").last ?? "") ?? 0
        return (status, String(output.dropLast(output.split(separator: "\n").last?.count ?? 0)))
    }

    /// `/api/v1/stats` parsed.
    func stats() throws -> JSONValue {
        let answer = try get("/api/v1/stats", management: true)
        guard answer.status == 200 else { throw WaitTimeout(what: "stats (HTTP \(answer.status))", seconds: 0) }
        return try JSONParser.parse(Array(answer.body.utf8))
    }

    /// One channel's counter (nil while the channel is unknown).
    func counter(_ channel: String, _ key: String) throws -> Int? {
        IngestStats.int(try stats()["channels"]?[channel]?[key])
    }

    func total(_ key: String) throws -> Int? { IngestStats.int(try stats()["total"]?[key]) }

    /// A channel's counters once they stop changing (the streamer is done; the last FEC window
    /// is decided at the repair timeout): polled until two reads 1.5 s apart agree.
    func settledCounters(_ channel: String) throws -> [String: Int] {
        var last: [String: Int] = [:]
        var result: [String: Int] = [:]
        try waitFor("\(channel)'s counters to settle") {
            Thread.sleep(forTimeInterval: 1.5)
            guard case .object(let fields)? = try stats()["channels"]?[channel] else { return false }
            let pairs = fields.compactMap { field in IngestStats.int(field.value).map { (field.key, $0) } }
            let now = Dictionary(pairs, uniquingKeysWith: { first, _ in first })
            defer { last = now }
            result = now
            return !now.isEmpty && now == last
        }
        return result
    }
}

/// Where the fault tests cannot run (not root, or qemu-user without packet sockets), what they
/// rely on must fail clearly: the daemon's live capture reports why it is not capturing.
func expectNoLiveCaptureHere(_ config: GatewayConfig? = nil, timeout: Double = 120) throws {
    let gatewayConfig = try config ?? GatewayConfig.decode(Array(LiveIngestEndToEndTests.config.utf8))
    let settings = LiveIngest.Settings(interface: "gs-no-such-if0", configuration: .product(gatewayConfig))
    let ingest = try LiveIngest(settings: settings, events: EventLog(stderrOnly: true)) { _ in }
    try ingest.start()
    defer { ingest.stop() }
    // Polled: under qemu-user the capture thread takes a while to report.
    try waitFor("a capture error", timeout: timeout) { ingest.snapshot.lastError != nil }
    #expect(!ingest.snapshot.capturing)
}
