import Foundation
import GrandstandCore
import HTTPClient
import TestSupport
import Testing

/// End to end: `grandstand run` as a child with a generated token, and the management clients
/// (`status`, `channels`, `stats`, `logs`, curl on /metrics) against it.
struct ManagementCLITests {

    /// Distinct loopback ports that were free a moment ago (bound together, read back, closed).
    static func freePorts(_ count: Int) throws -> [UInt16] {
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        return try (0..<count).map { _ in
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            sockets.append(fd)
            return try boundPort(fd)
        }
    }

    private static func boundPort(_ fd: Int32) throws -> UInt16 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        try #require(bound, "bind: errno \(errno)")
        return UInt16(bigEndian: address.sin_port)
    }

    /// The command line of `grandstand ARGS` (through qemu-user's runner under `make test-arm64`).
    static func command(_ arguments: [String]) -> [String] { builtProgram("grandstand") + arguments }

    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let child = try Child(command(arguments))
        let output = child.finish()
        return (child.status, output)
    }

    @Test func clientsTalkToARunningDaemon() throws {
        let directory = try ManagementTokenTests.scratch("cli")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var ports = try Self.freePorts(2)
        let configPath = directory + "/config.json"
        func writeConfig() throws {
            try """
            {"license":{"venueName":"V","contentOwner":"O","appDeveloper":"D"},
             "network":{"interface":"lo","wifiInterface":null},
             "listeners":{"fan":"127.0.0.1:\(ports[0])","management":"0.0.0.0:\(ports[1])"},
             "stateDirectory":"\(directory)/state"}
            """.write(toFile: configPath, atomically: true, encoding: .utf8)
        }
        try writeConfig()
        try FileManager.default.createDirectory(atPath: directory + "/state", withIntermediateDirectories: false)

        // Before the daemon runs: a clear "not running", exit 69 — after a token exists.
        try "0123456789abcdef\n".write(toFile: directory + "/state/management-token", atomically: true, encoding: .utf8)
        let early = try Self.run(["status", "--config", configPath])
        #expect(early.status == 69, "\(early.output)")
        #expect(early.output.contains("the daemon is not running at http://127.0.0.1:\(ports[1])"), "\(early.output)")
        try FileManager.default.removeItem(atPath: directory + "/state/management-token")

        // The ports were free a moment ago; another test may take one meanwhile: then try new ones.
        var started: Child?
        for attempt in 1...3 {
            let daemon = try Child(Self.command(["run", "--config", configPath]))
            let client = HTTPClient(HTTPEndpoint(host: "127.0.0.1", port: ports[1]), timeoutSeconds: 2)
            var exited: String?
            try waitFor("the management listener", timeout: 30) {
                if !daemon.isRunning { exited = daemon.finish(); return true }
                return (try? client.get("/api/v1/status"))?.status == 401
            }
            guard let output = exited else { started = daemon; break }
            try #require(output.contains("Address already in use") && attempt < 3, "daemon exited: \(output)")
            ports = try Self.freePorts(2)
            try writeConfig()
        }
        let daemon = try #require(started)
        defer { daemon.kill() }
        let managementPort = ports[1]
        let token = try String(contentsOfFile: directory + "/state/management-token", encoding: .utf8)
        #expect(token.count == 65 && token.hasSuffix("\n"))

        let status = try Self.run(["status", "--config", configPath])
        #expect(status.status == 0, "\(status.output)")
        // `FIELD  VALUE` rows, the value column aligned after the longest field name.
        let rows = status.output.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
        #expect(rows.first == ["FIELD", "VALUE"])
        #expect(rows.contains(["status", "up"]))
        #expect(rows.contains(["listeners.management", "0.0.0.0:\(managementPort)"]))
        let lines = status.output.split(separator: "\n").map(String.init)
        let widest = lines.map { $0.prefix { $0 != " " }.count }.max() ?? 0
        #expect(lines.first == "FIELD" + String(repeating: " ", count: widest - 3) + "VALUE")

        let statusJSON = try Self.run(["status", "--config", configPath, "--json"])
        #expect(try JSONParser.parse(Array(statusJSON.output.utf8))["status"] == .string("up"))

        let channels = try Self.run(["channels", "--config", configPath])
        #expect(channels.status == 0 && channels.output == "no channels\n", "\(channels.output)")

        let stats = try Self.run(["stats", "--config", configPath])
        #expect(stats.status == 0, "\(stats.output)")
        #expect(stats.output.hasPrefix("TOTAL "))
        #expect(stats.output.split(separator: "\n").contains { $0.hasPrefix("frames_received ") })
        let missing = try Self.run(["stats", "--config", configPath, "--channel", "nope"])
        #expect(missing.status == 1 && missing.output.contains("no channel \"nope\""), "\(missing.output)")

        // The ready entry of this daemon, through the API (journald writes asynchronously).
        if FileManager.default.fileExists(atPath: "/run/systemd/journal/socket") {
            var logs = (status: Int32(0), output: "")
            try waitFor("the ready entry", timeout: 10) {
                logs = try Self.run(["logs", "--config", configPath, "--message-id", GatewayEvent.Kind.ready.messageID,
                                     "--since", "-10m", "-n", "1000"])
                return logs.output.contains("management on 0.0.0.0:\(managementPort)")
            }
            #expect(logs.status == 0)
            let line = logs.output.split(separator: "\n").last { $0.contains("management on 0.0.0.0:\(managementPort)") }
            #expect(line?.contains(" notice ready: Grandstand ") == true, "\(String(describing: line))")
            // Following: the ready entry arrives as a Server-Sent Event and the client keeps waiting.
            let follow = try Child(Self.command(["logs", "--config", configPath, "--follow", "--message-id",
                                            GatewayEvent.Kind.ready.messageID, "--since", "-10m"]))
            let followed = follow.output(containing: "management on 0.0.0.0:\(managementPort)")
            #expect(follow.isRunning)
            follow.kill()
            _ = follow.finish()
            #expect(followed.contains("management on 0.0.0.0:\(managementPort)"), "\(followed)")
            let bad = try Self.run(["logs", "--config", configPath, "--priority", "loud"])
            #expect(bad.status == 1 && bad.output.contains("HTTP 400: priority: \"loud\" is not a level"), "\(bad.output)")
        }

        let wrong = try Self.run(["status", "--url", "http://127.0.0.1:\(managementPort)", "--token", "wrong-token"])
        #expect(wrong.status == 77 && wrong.output.contains("refused the management token (HTTP 401)"), "\(wrong.output)")

        // curl, the operator's own client, gets Prometheus text with the token and 401 without.
        let trimmed = token.trimmingCharacters(in: .whitespacesAndNewlines)
        let metrics = try Child(["curl", "-sS", "-H", "Authorization: Bearer \(trimmed)", "-w", "\n%{http_code}",
                                 "http://127.0.0.1:\(managementPort)/metrics"])
        let metricsOutput = metrics.finish()
        #expect(metricsOutput.hasSuffix("\n200"), "\(metricsOutput.suffix(200))")
        #expect(metricsOutput.contains("\ngrandstand_up 1\n") && metricsOutput.contains("# TYPE grandstand_frames_received counter"))
        let anonymous = try Child(["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(managementPort)/metrics"])
        #expect(anonymous.finish() == "401")

        daemon.kill()
        let after = try Self.run(["channels", "--config", configPath, "--timeout", "2"])
        #expect(after.status == 69 && after.output.contains("is not running"), "\(after.output)")
    }

    @Test func aBadConfigOrMissingTokenIsExplained() throws {
        let directory = try ManagementTokenTests.scratch("cli-bad")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let missing = try Self.run(["status", "--config", directory + "/none.json"])
        #expect(missing.status == 1 && missing.output.contains("cannot read \(directory)/none.json: no such file"), "\(missing.output)")
        try #"{"license":{"venueName":"V","contentOwner":"O","appDeveloper":"D"},"stateDirectory":"\#(directory)"}"#
            .write(toFile: directory + "/config.json", atomically: true, encoding: .utf8)
        let noToken = try Self.run(["stats", "--config", directory + "/config.json"])
        #expect(noToken.status == 1 && noToken.output.contains("no management token"), "\(noToken.output)")
        let badURL = try Self.run(["status", "--url", "ftp://x", "--token", "t"])
        #expect(badURL.status != 0 && badURL.output.contains("is not http://HOST:PORT"), "\(badURL.output)")
    }
}
