import Foundation
import TestSupport
import Testing

/// The `grandstand` command line as an operator meets it: the binary run as a process (help,
/// version, exit codes, argument validation). The commands' logic is tested in the libraries.
struct CommandLineTests {
    static func run(_ arguments: [String]) throws -> ToolResult { try runGrandstand(arguments) }

    @Test func helpListsTheSubcommands() throws {
        let help = try Self.run(["--help"])
        #expect(help.status == 0)
        for command in ["run", "demo", "send", "replay", "listen", "status", "channels", "stats", "logs", "leds", "record", "version"] {
            #expect(help.stdout.contains("  \(command)"), "\(command) missing from:\n\(help.stdout)")
        }
    }

    @Test func unknownSubcommandIsRejected() throws {
        let result = try Self.run(["frobnicate"])
        #expect(result.status == 64)   // EX_USAGE, ArgumentParser's validation exit
        #expect(result.stderr.contains("frobnicate"))
    }

    /// `run --config` reads the path it is given: a missing or bad file exits 78 (EX_CONFIG),
    /// naming the file and, for a bad one, the JSON path and the reason.
    @Test func runRejectsABadConfigWithExitCode78() throws {
        let missing = try Self.run(["run", "--config", "/nonexistent/gs-\(getpid()).json"])
        #expect(missing.status == 78)
        #expect(missing.stderr.contains("cannot read configuration /nonexistent/gs-\(getpid()).json"), "\(missing.stderr)")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gs-bad-\(getpid()).json").path
        try Data(#"{"license":{"venueName":1}}"#.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let bad = try Self.run(["run", "--config", path])
        #expect(bad.status == 78)
        #expect(bad.stderr.contains("configuration \(path) rejected") && bad.stderr.contains("$.license.venueName"), "\(bad.stderr)")
    }

    /// `grandstand --version` (the packaged binary's smoke test runs it): the VERSION file's
    /// version and the commit; `version --json` adds every linked library.
    @Test func versionPrintsTheVersionFileTheCommitAndTheLibraries() throws {
        let versionFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("VERSION")
        let version = try String(contentsOf: versionFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let flag = try Self.run(["--version"])
        #expect(flag.status == 0)
        #expect(flag.stdout.hasPrefix("grandstand \(version) (commit "), "\(flag.stdout)")
        let json = try Self.run(["version", "--json"])
        #expect(json.status == 0)
        for library in ["\"libpcap\":\"libpcap version 1.", "\"libsystemd\":\"libsystemd.so.0", "\"ffmpeg\":\"FFmpeg ", "\"isa-l\":", "\"libsrt\":\"1.5.", "\"libgpiod\":\"", "\"libcurl\":\""] {
            #expect(json.stdout.contains(library), "\(library) missing from \(json.stdout)")
        }
        // libmicrohttpd left the package: both listeners run our own engine.
        #expect(!json.stdout.contains("libmicrohttpd"))
    }
}

/// `grandstand send` argument validation (no packets sent: every case fails before sending).
struct SendCommandLineTests {
    @Test(arguments: [
        (["send"], "nothing to send"),
        (["send", "--video", "A=a.ts@239.255.20.1:5000", "--loop", "--count", "2"], "--loop and --count exclude each other"),
        (["send", "--video", "A=a.ts@239.255.20.1:5000", "--drop-rate", "1.5"], "--drop-rate must be within 0-1"),
        (["send", "--video", "A=a.ts@239.255.20.1:5000", "--drop-rate", "0.1", "--drop-pattern", "every:3"], "exclude each other"),
        (["send", "--video", "A=a.ts@239.255.20.1:5000", "--ttl", "300"], "--ttl must be 0-255"),
        (["send", "--video", "A=a.ts@239.255.20.1:5000", "--count", "0"], "--count must be ≥ 1"),
    ])
    func contradictoryOptionsAreRejected(arguments: [String], reason: String) throws {
        let result = try CommandLineTests.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains(reason), "\(result.stderr)")
    }

    /// Every option parses and validates; the plan then fails on the missing file, exit 64.
    @Test func optionsParseAndValidateUpToTheMissingFile() throws {
        let result = try CommandLineTests.run([
            "send", "--interface", "lo", "--video", "A=/nonexistent/a.ts@239.255.20.1:5000", "--video", "B=/nonexistent/a.ts@239.255.20.3:5000",
            "--data", "S@239.255.20.2:5002", "--compress", "--drop-rate", "0.02", "--seed", "9", "--count", "2",
            "--sap-interval", "0.5", "--duration", "3", "--ttl", "1",
        ])
        #expect(result.status == 64)
        #expect(result.stderr.contains("grandstand send: ") && result.stderr.contains("/nonexistent/a.ts"), "\(result.stderr)")
    }
}

/// `grandstand replay` end to end through the command line (the library's replay is tested in
/// GrandstandTests' ReplayTests).
struct ReplayCommandLineTests {
    @Test func replaysIntoTheOutputDirectory() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("gs-replay-cli-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try CommandLineTests.run(["replay", "--pcap", Fixtures.path("ingest/venue.pcap"),
                                               "--config", Fixtures.path("ingest/config.json"), "--out", out, "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: out + "/stats.json"))
        let bad = FileManager.default.temporaryDirectory.appendingPathComponent("gs-replay-bad-\(getpid()).json").path
        try Data(#"{"license":{}}"#.utf8).write(to: URL(fileURLWithPath: bad))
        defer { try? FileManager.default.removeItem(atPath: bad) }
        let rejected = try CommandLineTests.run(["replay", "--pcap", Fixtures.path("ingest/venue.pcap"), "--config", bad, "--out", out])
        #expect(rejected.status == 78)
        #expect(rejected.stderr.contains("grandstand replay: configuration \(bad) rejected"), "\(rejected.stderr)")
    }
}
