import Foundation
import GrandstandCore
import TestSupport
import Testing
@testable import GrandstandDaemon
@testable import GrandstandServing

/// The fan listener against hostile requests (issue 10, HTTP abuse): traversal attempts in every
/// spelling get 4xx and no file is ever read; the limits come from `listeners.fanLimits` with
/// JSON-path errors; after each, the listener still serves.
struct FanAbuseTests {
    static let traversals = [
        "/channels/../..", "/channels/../../etc/passwd", "/channels/%2e%2e/%2e%2e/etc/passwd", "/channels/cam/..%2f..%2fetc%2fpasswd",
        "/channels/cam/../../../etc/passwd", "//etc/passwd", "/../../etc/passwd", "/channels/cam/seg0.ts/../../../etc/passwd",
        "/channels/cam/%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/channels/%2fetc%2fpasswd/live.m3u8", "/channels/cam/live.m3u8%00.jpg",
        "/channels/cam/..\\..\\etc\\passwd", "/channels//live.m3u8", "/channels/cam/seg0.ts%2f..%2f..%2fx", "/etc/passwd",
        "/channels/cam/%252e%252e/%252e%252e/etc/passwd", "/channels/cam/seg-1.ts", "/channels/cam/seg99999999999999999999.ts",
        "/channels/cam/seg0.99999999999999999999.ts", "/channels/cam/live.m3u8/", "/channels/cam/.ts",
    ]

    @Test func traversalAttemptsGet4xxAndServingGoesOn() throws {
        let fed = try ServingTests.Fed()
        defer { fed.daemon.stop() }
        fed.feed { fed.playlist("live-ts.m3u8").contains("seg1.ts") }
        for path in Self.traversals {
            // --path-as-is: curl sends the dots as written instead of resolving them.
            let status = try runCommand(["curl", "-s", "--path-as-is", "-o", "/dev/null", "-w", "%{http_code}",
                                         "http://127.0.0.1:\(fed.port)\(path)"])
            #expect(Int(status).map { (400..<500).contains($0) } == true, "\(path) → \(status)")
            let raw = try RawHTTPClient(port: fed.port).get(path)
            #expect((400..<500).contains(raw.status), "\(path) → \(raw.status)")
            #expect(!raw.text.contains("root:"), "\(path)")
        }
        #expect(fed.get("/channels/cam/seg0.ts")?.status == 200)
        #expect(fed.get("/channels/cam/live.m3u8")?.status == 200)
    }

    @Test func fanLimitsComeFromTheConfig() throws {
        let config = try GatewayConfig.decode(Array("""
        {"license":{"venueName":"V","contentOwner":"O","appDeveloper":"D"},"management":{"token":"t"},
         "listeners":{"fan":"127.0.0.1:0","management":"127.0.0.1:0",
                      "fanLimits":{"connections":300,"perClient":3,"idleTimeoutSeconds":20,"headerTimeoutSeconds":1,
                                   "headerBytes":8192,"threads":2}}}
        """.utf8))
        let limits = config.listeners.fanLimits
        #expect(limits.connections == 300 && limits.perClient == 3 && limits.idleTimeoutSeconds == 20)
        #expect(limits.headerTimeoutSeconds == 1 && limits.headerBytes == 8192 && limits.threads == 2)
        let server = FanRoutes.serverConfiguration(config.listeners.fan, limits)
        #expect(server.connectionLimit == 300 && server.perClientLimit == 3 && server.idleTimeoutSeconds == 20)
        #expect(server.headerTimeoutSeconds == 1 && server.connectionMemoryLimit == 8192 && server.maxBodyBytes == FanRoutes.maxRequestBodyBytes)

        // Applied by the daemon: a silent connection is cut after 1 s, headers over 8 kB get 431.
        let daemon = Daemon(config: config, board: nil)
        try daemon.start()
        defer { daemon.stop() }
        let port = try #require(daemon.status?.fan.port)
        let started = Date()
        let silent = TestSupport.thrownError(RawHTTPClient.Failure.self) { try RawHTTPClient(port: port).send([]) }
        #expect(silent?.description == "no header end in 0 bytes")
        #expect(Date().timeIntervalSince(started) < 2.5)
        let big = try RawHTTPClient(port: port).get("/health", headers: ["X-Big: " + String(repeating: "a", count: 10_000)])
        #expect(big.status == 431)
        #expect(try RawHTTPClient(port: port).get("/health").status == 200)
    }

    @Test func badFanLimitsAreReportedWithTheirPath() throws {
        let error = TestSupport.thrownError(ConfigError.self) {
            _ = try GatewayConfig.decode(Array("""
            {"license":{"venueName":"V","contentOwner":"O","appDeveloper":"D"},"management":{"token":"t"},
             "listeners":{"fanLimits":{"connections":0,"perClient":"many","headerBytes":100,"threads":1,"speed":3}}}
            """.utf8))
        }
        let text = error?.description ?? ""
        #expect(text.contains("listeners.fanLimits.connections"), "\(text)")
        #expect(text.contains("listeners.fanLimits.perClient"), "\(text)")
        #expect(text.contains("listeners.fanLimits.headerBytes"), "\(text)")
        #expect(text.contains("listeners.fanLimits.speed"), "\(text)")
        let tooMany = TestSupport.thrownError(ConfigError.self) {
            _ = try GatewayConfig.decode(Array("""
            {"license":{"venueName":"V","contentOwner":"O","appDeveloper":"D"},"management":{"token":"t"},
             "listeners":{"fanLimits":{"connections":10,"perClient":20}}}
            """.utf8))
        }
        #expect(tooMany?.description.contains("listeners.fanLimits.perClient: 20 is more than connections (10)") == true,
                "\(tooMany?.description ?? "")")
    }
}
