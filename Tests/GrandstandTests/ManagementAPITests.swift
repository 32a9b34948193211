import Foundation
import GrandstandCore
import HTTPClient
import TestSupport
import Testing
@testable import GrandstandDaemon
@testable import GrandstandIngest
@testable import GrandstandOperations

/// The management routes of an in-process daemon: auth, /metrics, log level, logs, config.
struct ManagementAPITests {
    static let token = "api-test-token"

    /// A daemon on kernel-picked ports with its config written to a scratch file.
    final class Running {
        let directory: String
        let configPath: String
        let daemon: Daemon
        let client: HTTPClient

        init(extra: String = "", ingest: Bool = false) throws {
            directory = try ManagementTokenTests.scratch("api")
            configPath = directory + "/config.json"
            let text = """
            {"license":{"venueName":"V","contentOwner":"O","appDeveloper":"D"},
             "listeners":{"fan":"127.0.0.1:0","management":"127.0.0.1:0"},"management":{"token":"\(ManagementAPITests.token)"},
             "stateDirectory":"\(directory)"\(extra)}
            """
            try text.write(toFile: configPath, atomically: true, encoding: .utf8)
            let config = try GatewayConfig.decode(Array(text.utf8))
            // A capture on an interface that does not exist: it retries, the pipeline still ticks.
            let settings = ingest ? LiveIngest.Settings(interface: "gs-none0", configuration: IngestConfiguration.product(config)) : nil
            daemon = Daemon(config: config, board: nil, events: EventLog(), ingest: settings, configPath: configPath)
            try daemon.start()
            let port = try #require(daemon.status?.management.port)
            // Under qemu-user a journal query (libsystemd emulated, over the journal the whole
            // suite wrote) took more than 5 s on a loaded CI run; natively it takes milliseconds.
            client = HTTPClient(HTTPEndpoint(host: "127.0.0.1", port: port), timeoutSeconds: TestEnvironment.isQEMUUser ? 30 : 5)
        }

        func call(_ method: String, _ target: String, body: String = "", token: String? = ManagementAPITests.token) throws -> HTTPClientResponse {
            try client.request(method, target, headers: token.map { [("Authorization", "Bearer \($0)")] } ?? [], body: Array(body.utf8))
        }

        deinit {
            daemon.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    @Test func everyRouteNeedsTheToken() throws {
        let running = try Running()
        for target in ["/metrics", "/api/v1/status", "/api/v1/logs", "/api/v1/config", "/api/v1/log-level", "/nope"] {
            #expect(try running.call("GET", target, token: nil).status == 401, "\(target)")
            #expect(try running.call("GET", target, token: "wrong").status == 401, "\(target)")
        }
        #expect(try running.call("GET", "/nope").status == 404)
        let wrongMethod = try running.call("DELETE", "/api/v1/config")
        #expect(wrongMethod.status == 405)
        // HEAD with GET and OPTIONS are served on every route (one router).
        #expect(wrongMethod.headers["allow"] == "GET, HEAD, PUT, OPTIONS")
    }

    @Test func metricsArePrometheusText() throws {
        let running = try Running()
        let response = try running.call("GET", "/metrics")
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
        let lines = response.text.split(separator: "\n").map(String.init)
        #expect(lines.contains("grandstand_up 1"))
        #expect(lines.contains("# TYPE grandstand_uptime_seconds gauge"))
        #expect(lines.contains { $0.hasPrefix("grandstand_build_info{version=\"\(BuildInfo.current.version)\"") })
        // Every sample line is `name{labels} value` with a family declared before it.
        var declared: Set<String> = []
        for line in lines {
            if line.hasPrefix("# TYPE ") { declared.insert(String(line.split(separator: " ")[2])) }
            if line.hasPrefix("#") { continue }
            let name = String(line.prefix { $0 != "{" && $0 != " " })
            #expect(declared.contains(name), "\(line)")
            #expect(Double(line.split(separator: " ").last ?? "") != nil, "\(line)")
        }
    }

    @Test func logLevelChangesAtRunTimeAndFiltersEvents() throws {
        let running = try Running(extra: #","logLevel":"notice""#)
        #expect(try running.call("GET", "/api/v1/log-level").text == #"{"level":"notice"}"# + "\n")
        #expect(running.daemon.events.level == .notice)
        let set = try running.call("PUT", "/api/v1/log-level", body: #"{"level":"warning"}"#)
        #expect(set.status == 200 && set.text == #"{"level":"warning"}"# + "\n")
        #expect(running.daemon.events.level == .warning)
        #expect(try running.call("PUT", "/api/v1/log-level", body: #"{"level":"loud"}"#).status == 400)
        #expect(try running.call("PUT", "/api/v1/log-level", body: "nope").status == 400)
        #expect(running.daemon.events.level == .warning)
        let status = try JSONParser.parse(try running.call("GET", "/api/v1/status").body)
        #expect(status["logLevel"] == .string("warning"))
    }

    @Test func logsAreReadFromTheJournalWithFilters() throws {
        try #require(FileManager.default.fileExists(atPath: "/run/systemd/journal/socket"),
                     "no journald; run `make test` (it starts one)")
        let running = try Running()
        let channel = "api-test-\(UUID().uuidString.prefix(8))"
        running.daemon.events.record(GatewayEvent(.channelAdded, "channel \(channel) added", fields: [("CHANNEL", channel)]))
        running.daemon.events.record(GatewayEvent(.captureDown, "capture down for \(channel)", fields: [("CHANNEL", channel)]))
        running.daemon.events.level = .warning
        running.daemon.events.record(GatewayEvent(.channelUpdated, "filtered out \(channel)", fields: [("CHANNEL", channel)]))

        // A marker at a level that passes, written after the filtered entry: once it is in the
        // journal, the filtered one would be too.
        running.daemon.events.record(GatewayEvent(.captureDown, "marker", fields: [("CHANNEL", channel + "-end")]))
        try waitFor("the marker entry in the journal") {
            !(try running.call("GET", "/api/v1/logs?channel=\(channel)-end&since=-5m").text.isEmpty)
        }
        let lines = try running.call("GET", "/api/v1/logs?channel=\(channel)&since=-5m").text.split(separator: "\n").map(String.init)
        let records = try lines.map { try #require(LogRecord(json: try JSONParser.parse(Array($0.utf8)))) }
        #expect(records.map { $0.fields["GRANDSTAND_EVENT"] } == ["channel-added", "capture-down"])
        #expect(records.allSatisfy { $0.fields["_PID"] == String(getpid()) && $0.fields["SYSLOG_IDENTIFIER"] == "grandstand" })
        #expect(records[0].fields["MESSAGE_ID"] == GatewayEvent.Kind.channelAdded.messageID)

        let warnings = try running.call("GET", "/api/v1/logs?channel=\(channel)&priority=warning").text
        #expect(warnings.split(separator: "\n").count == 1 && warnings.contains("capture-down"))
        let byID = try running.call("GET", "/api/v1/logs?channel=\(channel)&messageId=\(GatewayEvent.Kind.channelAdded.messageID)").text
        #expect(byID.split(separator: "\n").count == 1 && byID.contains("channel-added"))
        let newest = try running.call("GET", "/api/v1/logs?channel=\(channel)&limit=1").text
        #expect(newest.split(separator: "\n").count == 1 && newest.contains("capture-down"))
        let future = try running.call("GET", "/api/v1/logs?channel=\(channel)&since=-1s&until=-1s")
        #expect(future.status == 200)
        let bad = try running.call("GET", "/api/v1/logs?since=whenever&limit=0")
        #expect(bad.status == 400)
        #expect(bad.text.contains("since: \"whenever\" is not a time") && bad.text.contains("limit: \"0\""))
    }

    @Test func logsFollowStreamsNewEntriesAsServerSentEvents() throws {
        try #require(FileManager.default.fileExists(atPath: "/run/systemd/journal/socket"), "no journald; run `make test`")
        let running = try Running()
        let channel = "follow-\(UUID().uuidString.prefix(8))"
        running.daemon.events.record(GatewayEvent(.channelAdded, "before \(channel)", fields: [("CHANNEL", channel)]))
        let received = ReceivedEvents()
        let token = Self.token
        let client = running.client
        let thread = Thread {
            var parser = ServerSentEventParser()
            let response = try? client.stream("/api/v1/logs?follow=1&since=-1m&channel=\(channel)",
                                              headers: [("Authorization", "Bearer \(token)")]) { bytes in
                received.append(parser.feed(bytes))
                return received.count < 2
            }
            received.finish(status: response?.status)
        }
        thread.start()
        try waitFor("the entry written before following") { received.count >= 1 }
        running.daemon.events.record(GatewayEvent(.channelRemoved, "after \(channel)", fields: [("CHANNEL", channel)]))
        try waitFor("the entry written while following") { received.count >= 2 }
        let events = received.events
        let records = events.compactMap { event in (try? JSONParser.parse(Array(event.data.utf8))).flatMap { LogRecord(json: $0) } }
        #expect(records.map { $0.fields["MESSAGE"] } == ["before \(channel)", "after \(channel)"])
        #expect(events.allSatisfy { $0.id?.hasPrefix("s=") == true })
        #expect(events.map(\.id) == records.map(\.cursor))
        try waitFor("the client to hang up") { received.status == 200 }

        // Resuming after the first entry's cursor sends only the second.
        let resumed = ReceivedEvents()
        let first = try #require(events.first?.id)
        let again = Thread {
            var parser = ServerSentEventParser()
            let response = try? client.stream("/api/v1/logs?follow=1&channel=\(channel)",
                                              headers: [("Authorization", "Bearer \(token)"), ("Last-Event-ID", first)]) { bytes in
                resumed.append(parser.feed(bytes))
                return resumed.count < 1
            }
            resumed.finish(status: response?.status)
        }
        again.start()
        try waitFor("the resumed entry") { resumed.count >= 1 }
        #expect(resumed.events.first?.data.contains("after \(channel)") == true)
    }

    @Test func configIsShownRedactedAndReplacedWithValidation() throws {
        let running = try Running()
        let shown = try running.call("GET", "/api/v1/config")
        #expect(shown.status == 200)
        let document = try JSONParser.parse(shown.body)
        #expect(document["management"]?["token"] == .string("<redacted>"))
        #expect(!shown.text.contains(Self.token))

        // Invalid: 400 with every issue and its path; the file is untouched.
        let before = try String(contentsOfFile: running.configPath, encoding: .utf8)
        let rejected = try running.call("PUT", "/api/v1/config", body: #"{"license":{"venueName":7},"colour":"red"}"#)
        #expect(rejected.status == 400)
        let errors = try JSONParser.parse(rejected.body)["errors"]
        guard case .array(let items)? = errors else {
            Issue.record("no errors array: \(rejected.text)")
            return
        }
        #expect(items.compactMap { $0["path"] } == [.string("$.colour"), .string("$.license.venueName"),
                                                    .string("$.license.contentOwner"), .string("$.license.appDeveloper")])
        #expect(try String(contentsOfFile: running.configPath, encoding: .utf8) == before)

        // Valid: the shown document with a new level and fan port; the token marker is kept.
        let edited = shown.text.replacingOccurrences(of: #""stateDirectory""#, with: #""logLevel":"debug","stateDirectory""#)
            .replacingOccurrences(of: #""fan":"127.0.0.1:0""#, with: #""fan":"127.0.0.1:1""#)
        let accepted = try running.call("PUT", "/api/v1/config", body: edited)
        #expect(accepted.status == 200, "\(accepted.text)")
        let outcome = try JSONParser.parse(accepted.body)
        #expect(outcome["applied"] == .array([.string("$.logLevel")]))
        #expect(outcome["restartRequired"] == .array([.string("$.listeners")]))
        #expect(running.daemon.events.level == .debug)
        let written = try GatewayConfig.decode(Array(try Data(contentsOf: URL(fileURLWithPath: running.configPath))))
        #expect(written.managementToken == Self.token)
        #expect(written.logLevel == .debug && written.listeners.fan.port == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: running.directory).sorted() == ["config.json"])

        // A new token applies at once: the old one stops working.
        let newToken = edited.replacingOccurrences(of: "<redacted>", with: "rotated-token")
        #expect(try running.call("PUT", "/api/v1/config", body: newToken).status == 200)
        #expect(try running.call("GET", "/api/v1/status").status == 401)
        #expect(try running.call("GET", "/api/v1/status", token: "rotated-token").status == 200)
    }

    @Test func sighupReloadAppliesTheFile() throws {
        let running = try Running()
        let runtime = try #require(running.daemon.runtime)
        let text = try String(contentsOfFile: running.configPath, encoding: .utf8)
        try text.replacingOccurrences(of: #""stateDirectory""#, with: #""logLevel":"err","stateDirectory""#)
            .write(toFile: running.configPath, atomically: true, encoding: .utf8)
        let outcome = try runtime.reload().get()
        #expect(outcome.applied == ["$.logLevel"] && outcome.restartRequired.isEmpty)
        #expect(running.daemon.events.level == .error)
        // A broken file changes nothing.
        try "{".write(toFile: running.configPath, atomically: true, encoding: .utf8)
        guard case .failure(.invalid(let issues)) = runtime.reload() else {
            Issue.record("broken file accepted")
            return
        }
        #expect(issues.first?.path == .root)
        #expect(runtime.config.logLevel == .error)
    }

    @Test func ingestSettingsApplyLiveAndRetireOnlyRefusedChannels() throws {
        let channels = #","channels":[{"name":"Bowl","kind":"video","group":"239.255.90.1","port":5000},"#
            + #"{"name":"Gate","kind":"video","group":"239.255.90.2","port":5002}]"#
        let running = try Running(extra: channels, ingest: true)
        try waitFor("the static channels", timeout: 20) { running.daemon.gateway.channels.map(\.id).sorted() == ["bowl", "gate"] }
        let bowl = try #require(running.daemon.gateway.videoChannel("bowl"))
        let firstIngest = try #require(running.daemon.ingest)

        let shown = try running.call("GET", "/api/v1/config").text
        let edited = shown.replacingOccurrences(of: #",{"name":"Gate","kind":"video","group":"239.255.90.2","port":5002}"#, with: "")
            .replacingOccurrences(of: #""venueName":"V""#, with: #""venueName":"Other Venue""#)
        #expect(edited != shown)
        let response = try running.call("PUT", "/api/v1/config", body: edited)
        #expect(response.status == 200, "\(response.text)")
        let outcome = try JSONParser.parse(response.body)
        #expect(outcome["applied"] == .array([.string("$.license"), .string("$.channels")]))
        #expect(outcome["restartRequired"] == .array([]))
        // The removed channel is retired at once; the kept one keeps its HLS window (same object).
        #expect(running.daemon.gateway.channels.map(\.id) == ["bowl"])
        #expect(running.daemon.gateway.videoChannel("bowl") === bowl)
        #expect(running.daemon.ingest !== firstIngest)
        try waitFor("the new pipeline's snapshot") {
            let status = try JSONParser.parse(try running.call("GET", "/api/v1/status").body)
            return status["ingest"]?["channels"] == .number(1)
        }
    }
}

/// What a following client received, shared between its thread and the test.
final class ReceivedEvents: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [ServerSentEvent] = []
    private var finalStatus: Int?

    func append(_ new: [ServerSentEvent]) { lock.lock(); list += new; lock.unlock() }
    func finish(status: Int?) { lock.lock(); finalStatus = status; lock.unlock() }
    var count: Int { lock.lock(); defer { lock.unlock() }; return list.count }
    var events: [ServerSentEvent] { lock.lock(); defer { lock.unlock() }; return list }
    var status: Int? { lock.lock(); defer { lock.unlock() }; return finalStatus }
}
