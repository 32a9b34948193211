import Testing
@testable import GrandstandCore

struct ConfigReportingTests {
    static func config(_ extra: String) -> String {
        #"{"license":{"venueName":"V","contentOwner":"O","appDeveloper":"D"},"management":{"token":"t"}"# + extra + "}"
    }

    @Test func reportingIsOffByDefaultUnderTheDefaultStateDirectory() throws {
        let config = try GatewayConfig.decode(Array(Self.config("").utf8))
        #expect(config.reporting.url == nil)
        #expect(config.stateDirectory == "/var/lib/grandstand")
        #expect(config.reporting.queuePath(stateDirectory: config.stateDirectory) == "/var/lib/grandstand/reports")
    }

    @Test func decodesTheReportingSection() throws {
        let text = Self.config(#","stateDirectory":"/data/gs/","reporting":{"url":"http://10.0.0.9:8088/r","intervalSeconds":30,"queueLimit":50,"retryInitialSeconds":2,"retryMaxSeconds":60,"timeoutSeconds":5}"#)
        let config = try GatewayConfig.decode(Array(text.utf8))
        #expect(config.reporting.url == UploadTarget(host: "10.0.0.9", port: 8088, target: "/r"))
        #expect(config.reporting.intervalSeconds == 30)
        #expect(config.reporting.queueLimit == 50)
        #expect(config.reporting.timeoutSeconds == 5)
        #expect(config.reporting.backoff == UploadBackoff(initialMilliseconds: 2_000, maxMilliseconds: 60_000, jitter: 0.2))
        #expect(config.reporting.queuePath(stateDirectory: config.stateDirectory) == "/data/gs/reports")
    }

    @Test(arguments: [
        (#","reporting":{"url":"https://x/","intervalSeconds":0,"queueLimit":"5","spool":1}"#,
         ["$.reporting.spool: unknown key (expected one of: intervalSeconds, queueDirectory, queueLimit, retryInitialSeconds, retryMaxSeconds, timeoutSeconds, url)",
          "$.reporting.url: \"https://x/\": https is not supported (no TLS in the gateway); use an http:// collector or relay",
          "$.reporting.intervalSeconds: 0 is out of range 1...86400",
          "$.reporting.queueLimit: expected an integer, got a string"]),
        (#","reporting":{"retryInitialSeconds":60,"retryMaxSeconds":10,"queueDirectory":"spool"}"#,
         ["$.reporting.retryMaxSeconds: 10 is less than retryInitialSeconds (60)",
          "$.reporting.queueDirectory: \"spool\" is not an absolute path"]),
        (#","stateDirectory":"var/lib","reporting":[]"#,
         ["$.stateDirectory: \"var/lib\" is not an absolute path", "$.reporting: expected an object, got an array"]),
    ])
    func rejectsWithPathAndReason(extra: String, messages: [String]) {
        do {
            _ = try GatewayConfig.decode(Array(Self.config(extra).utf8))
            Issue.record("accepted: \(extra)")
        } catch {
            #expect(error.issues.map(\.description) == messages)
        }
    }
}
