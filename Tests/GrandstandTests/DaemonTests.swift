import Foundation
import GrandstandCore
import TestSupport
import Testing
@testable import GrandstandDaemon
@testable import GrandstandOperations

struct DaemonTests {
    static func config(_ token: String = "secret") throws -> GatewayConfig {
        try GatewayConfig.decode(Array("""
        {"license":{"venueName":"V","contentOwner":"O","appDeveloper":"D"},
         "listeners":{"fan":"127.0.0.1:0","management":"127.0.0.1:0"},"management":{"token":"\(token)"}}
        """.utf8))
    }

    @Test func servesHealthAndGuardsManagement() throws {
        let daemon = Daemon(config: try Self.config(), board: nil)
        try daemon.start()
        defer { daemon.stop() }
        let status = try #require(daemon.status)

        let health = try RawHTTPClient(port: status.fan.port).get("/health")
        #expect(health.status == 200)
        #expect(health.headers["content-type"] == "application/json")
        let document = try JSONParser.parse(health.body)
        #expect(document["status"] == .string("up"))
        #expect(document["listeners"]?["fan"] == .string(status.fan.description))

        #expect(try RawHTTPClient(port: status.fan.port).get("/nope").status == 404)
        let post = try RawHTTPClient(port: status.fan.port).post("/health", body: [])
        #expect(post.status == 405)
        #expect(post.headers["allow"] == "GET, HEAD, OPTIONS")
        #expect(try RawHTTPClient(port: status.management.port).get("/api/v1/status").status == 401)
        #expect(try RawHTTPClient(port: status.management.port).get("/api/v1/status", headers: ["Authorization: Bearer wrong"]).status == 401)
        let authorized = try RawHTTPClient(port: status.management.port).get("/api/v1/status", headers: ["Authorization: Bearer secret"])
        #expect(authorized.status == 200)
        #expect(try JSONParser.parse(authorized.body)["version"] == .string(BuildInfo.current.version))
    }

    @Test func busyPortIsAStartError() throws {
        let first = Daemon(config: try Self.config(), board: nil)
        try first.start()
        defer { first.stop() }
        var config = try Self.config()
        config.listeners.fan.port = try #require(first.status?.fan.port)
        #expect(throws: (any Error).self) { try Daemon(config: config, board: nil).start() }
    }

    /// The command exits 78 on it (GrandstandCommandTests' runRejectsABadConfigWithExitCode78).
    @Test func loadRejectsBadConfigWithItsPath() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gs-bad-\(getpid()).json").path
        try Data(#"{"license":{"venueName":1}}"#.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let rejection = thrownError(ConfigFiles.Rejection.self) { _ = try ConfigFiles.gatewayAndBoard(path) }
        #expect(rejection?.description.hasPrefix("configuration \(path) rejected:\n") == true)
        #expect(rejection?.description.contains("$.license.venueName") == true, "\(String(describing: rejection))")
    }

    @Test func loadReadsTheBoardItNames() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gs-board-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let boardPath = directory.appendingPathComponent("board.json").path
        try Data(#"{"name":"test-board","leds":{"service":{"chip":"gpiochip9","line":2}},"interfaces":{}}"#.utf8)
            .write(to: URL(fileURLWithPath: boardPath))
        let configPath = directory.appendingPathComponent("config.json").path
        try Data(#"{"license":{"venueName":"V","contentOwner":"O","appDeveloper":"D"},"management":{"token":"t"},"board":"\#(boardPath)"}"#.utf8)
            .write(to: URL(fileURLWithPath: configPath))
        let (config, board) = try ConfigFiles.gatewayAndBoard(configPath)
        #expect(config.boardPath == boardPath)
        #expect(board?.leds["service"]?.line == 2)
    }
}

struct DaemonLEDTests {
    /// The host has no GPIO chips: the daemon must report that and keep serving.
    @Test func missingChipIsReportedAndTheDaemonStillServes() throws {
        guard !FileManager.default.fileExists(atPath: "/dev/gpiochip9") else { return }
        let board = try BoardDescription.decode(Array(#"{"name":"t","leds":{"service":{"chip":"gpiochip9","line":0}}}"#.utf8))
        let daemon = Daemon(config: try DaemonTests.config(), board: board)
        try daemon.start()
        defer { daemon.stop() }
        #expect(daemon.leds?.unavailable.map(\.chip) == ["gpiochip9"])
        #expect(daemon.status?.leds == [])
        let port = try #require(daemon.status?.fan.port)
        #expect(try RawHTTPClient(port: port).get("/health").status == 200)
    }
}
