import Foundation
#if canImport(Glibc)
import Glibc
#endif
import GrandstandCore
import HTTPServer
import TestSupport
import Testing
@testable import GrandstandServing

/// The fan app (web/fan/, docs/fan-app.md): its embedded files, their encodings, and the app in a
/// real browser, headless Debian Chromium (/usr/bin/chromium) driven by Playwright
/// (tools/browser/fan_app.py, from the venv of tools/pydeps.sh) against `grandstand demo` in a
/// private network namespace. The browser tests need root (namespace, capture on its lo) and run
/// on the host only (not qemu-user; the VM's suite does not list them).
@Suite(.serialized) struct FanAppBrowserTests {
    static let repository = Fixtures.directory.deletingLastPathComponent().deletingLastPathComponent()
    static let fan = "127.0.0.1:18496"
    static let management = "127.0.0.1:18497"

    static var python: String {
        let cache = ProcessInfo.processInfo.environment["GRANDSTAND_CACHE"] ?? repository.appendingPathComponent(".cache").path
        return cache + "/venv/bin/python3"
    }

    /// Screenshots at phone size (390×844), kept after the run for a person to look at.
    static func shots(_ name: String) -> String { FileManager.default.temporaryDirectory.appendingPathComponent("grandstand-fan-app/" + name).path }

    // MARK: the embedded files

    /// The binary serves web/fan/ as it is now: tools/fan-assets.py was run after the last edit.
    @Test func embeddedAssetsMatchWebFan() throws {
        let directory = Self.repository.appendingPathComponent("web/fan")
        guard FileManager.default.fileExists(atPath: directory.path) else { return }   // a tree without web/ (the VM's copy)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") }.sorted()
        #expect(FanAssets.files.map(\.name) == names, "run tools/fan-assets.py")
        for file in FanAssets.files {
            let onDisk = try String(contentsOf: directory.appendingPathComponent(file.name), encoding: .utf8)
            #expect(file.text == onDisk, "\(file.name) differs from web/fan: run tools/fan-assets.py")
        }
    }

    /// Page weight within the issue's budget (100 KB uncompressed), nothing loaded from elsewhere.
    @Test func pageWeightAndNoExternalAssets() {
        let raw = FanAssets.files.reduce(0) { $0 + $1.text.utf8.count }
        let compressed = FanApp.assets.values.reduce(0) { $0 + $1.gzip.count }
        #expect(raw <= 100_000, "\(raw) bytes")
        #expect(compressed < raw / 2, "\(compressed) of \(raw) bytes")
        for file in FanAssets.files {
            #expect(!file.text.contains("http://") && !file.text.contains("https://"), "\(file.name) names an external URL")
        }
    }

    /// gzip when Accept-Encoding takes it (and the bytes inflate to the file), identity otherwise;
    /// `Vary: Accept-Encoding` either way; the routes `/`, `/index.html`, `/player.js`, `/app.js`, `/app.css`.
    @Test(arguments: [("gzip, deflate, br", true), ("br;q=1.0, gzip;q=0.8", true), ("*", true), ("identity", false),
                      ("gzip;q=0", false), ("*, gzip;q=0", false), ("x-gzip", true), ("", false)])
    func contentEncodingFollowsAcceptEncoding(_ accept: String, _ gzipped: Bool) throws {
        #expect(FanApp.acceptsGzip(accept) == gzipped)
        #expect(Set(FanApp.routes.map(\.pattern)) == ["/", "/index.html", "/player.js", "/app.js", "/app.css"])
        for name in ["index.html", "player.js", "app.js", "app.css"] {
            let request = HTTPRequest(method: "GET", path: "/" + name, headers: accept.isEmpty ? [:] : ["accept-encoding": accept])
            let response = FanApp.response(name, for: request)
            #expect(response.status == 200)
            #expect(response.header("Vary") == "Accept-Encoding")
            let plain = Array(try #require(FanAssets.files.first { $0.name == name }).text.utf8)
            if gzipped {
                #expect(response.header("Content-Encoding") == "gzip")
                #expect(try ContentCoding.decode(response.body, encoding: "gzip", limit: 1 << 20).get() == plain)
            } else {
                #expect(response.header("Content-Encoding") == nil)
                #expect(response.body == plain)
            }
        }
    }

    // MARK: the browser

    /// The default suite's run (about 2 minutes): every demo channel plays 20 s in Chromium at
    /// phone size with currentTime advancing and ≤ 1 % dropped frames; latency holds under the
    /// target (PART-HOLD-BACK) at the median; "Back 10 seconds" puts it at ≥ 8 s and "Go live" brings it back
    /// under the target; eight channel switches are timed; no page error, at most two short stalls.
    /// The rest of the page is reached too: the scores ticker, the "Match Day" file channel's
    /// downloads, the catalog it carries (its live fixture marked), the demo's recording.
    @Test func fanAppPlaysRewindsAndSwitchesInChromium() throws {
        // 0.4 s parts here: beside the whole suite on a 2-core runner, 0.2 s parts (the default,
        // five appends a second per channel) cost headless Chromium enough that it dropped 6–11
        // of 500 frames; the default is played by the soak and measured in docs/fan-app.md.
        guard let result = try Self.drive(name: "tour", demo: ["--channels", "2", "--drop-rate", "0", "--record", "4", "--part-seconds", "0.4"],
                                          driver: ["--scenario", "tour"],
                                         timeout: 300) else { return }
        let target = result["target_ms"]?.number ?? 0
        #expect(target == 1200, "PART-HOLD-BACK of 0.4 s parts: \(target)")
        let played = result["played"]?.array ?? []
        #expect(played.count == 2, "\(result.encoded)")
        for channel in played {
            let advanced = channel["advanced"]?.number ?? 0, frames = channel["frames"]?.number ?? 0, dropped = channel["dropped"]?.number ?? 0
            #expect(advanced >= 20 && frames >= 20 * 20, "\(channel)")
            #expect(dropped <= frames / 100, "dropped \(dropped) of \(frames): \(channel)")
        }
        #expect((result["back_latency_ms"]?.number ?? 0) >= 8000, "\(result.encoded)")
        // Under the player's target at that moment: PART-HOLD-BACK (the floor) plus 250 ms per stall so far.
        #expect((result["live_latency_ms"]?.number ?? .infinity) < (result["live_target_ms"]?.number ?? 0), "\(result.encoded)")
        let latency = result["latency_ms"]
        #expect((latency?["n"]?.number ?? 0) >= 100, "\(result.encoded)")
        // Steady latency under the target at the median; p95 within a second of it (this runs
        // beside the other suites on a loaded 2-core machine: the tour's own numbers, quiet, are
        // p95 1.05 s, docs/performance.md).
        #expect((latency?["p50"]?.number ?? .infinity) < target, "\(result.encoded)")
        #expect((latency?["p95"]?.number ?? .infinity) < target + 1000, "\(result.encoded)")
        let switches = result["switch_ms"]
        #expect((switches?["n"]?.number ?? 0) >= 9, "\(result.encoded)")
        #expect((switches?["p95"]?.number ?? .infinity) < 2000, "\(result.encoded)")
        #expect(result["page_errors"]?.array?.isEmpty == true, "\(result.encoded)")
        // At most two short stalls (the soak below asks for none over 5 minutes; see docs/fan-app.md).
        #expect((result["stalls"]?.number ?? .infinity) <= 2, "\(result.encoded)")
        let library = result["library"]
        let hrefs = { (key: String) in library?[key]?.array?.compactMap { item -> String? in if case .string(let text) = item { text } else { nil } } ?? [] }
        var ticker = ""
        if case .string(let text)? = library?["ticker"] { ticker = text }
        #expect(ticker.hasPrefix("Scores"), "ticker: \(library?.encoded ?? "-")")
        #expect(hrefs("downloads").contains("/files/match-day/programme.txt"), "downloads: \(library?.encoded ?? "-")")
        #expect(hrefs("recordings").contains("/records/kick-off.m3u8") && hrefs("recordings").contains("/records/kick-off.ts"),
                "recordings: \(library?.encoded ?? "-")")
        let catalog = library?["catalog"]?.array ?? []
        #expect(catalog.count == 4 && catalog.filter { $0.array?.last == .bool(true) }.count == 1, "catalog: \(library?.encoded ?? "-")")
        for fetched in library?["fetched"]?.array ?? [] {
            #expect(fetched.array?[1].number == 200 && (fetched.array?[2].number ?? 0) > 0, "fetched: \(fetched.encoded)")
        }
        print("FanAppBrowserTests tour: stalls \(result["stalls"]?.number ?? -1) latency \(latency.map(\.encoded) ?? "-") switch \(switches.map(\.encoded) ?? "-") shots in \(Self.shots("tour"))")
    }

    /// A live break in Chromium (docs/inserts.md "Live channels on CMAF"): the demo's recording
    /// scheduled as a wall-clock insert on the channel being watched. The player fetches the
    /// break's header and chunks, plays through the insert and on into the channel's own media
    /// with the latency it had (the break replaces the live media in place), no page error.
    @Test func fanAppPlaysThroughALiveBreakInChromium() throws {
        guard let result = try Self.drive(name: "break", demo: ["--channels", "1", "--drop-rate", "0", "--record", "7", "--part-seconds", "0.4"],
                                          driver: ["--scenario", "break", "--management", "http://\(Self.management)"], timeout: 180) else { return }
        let found = result["break"]
        #expect(found?["insert_status"]?.number == 201, "\(result.encoded)")
        let seconds = found?["seconds"]?.number ?? 4
        #expect((found?["break_init"]?.number ?? 0) >= 1, "\(result.encoded)")
        // About one chunk per 0.4 s part of the insert.
        #expect((found?["break_chunks"]?.number ?? 0) >= seconds / 0.4 - 2, "\(result.encoded)")
        // Each chunk once: a hinted part is held until it exists, never answered 404 and re-fetched.
        #expect(found?["break_chunks"]?.number == found?["break_unique"]?.number, "\(result.encoded)")
        #expect((found?["live_after"]?.number ?? 0) >= 5, "\(result.encoded)")
        #expect((found?["played"]?["advanced"]?.number ?? 0) >= seconds + 10, "\(result.encoded)")
        #expect(found?["state"] == .string("playing"), "\(result.encoded)")
        // Latency holds through the break: it replaces the live media, it does not push it back.
        #expect((found?["latency_ms"]?["p95"]?.number ?? .infinity) < (result["target_ms"]?.number ?? 0) + 1000, "\(result.encoded)")
        #expect(result["page_errors"]?.array?.isEmpty == true, "\(result.encoded)")
        #expect((result["stalls"]?.number ?? .infinity) <= 1, "\(result.encoded)")
        // Rewound to before the play-once break it showed, the player plays the channel's own
        // media there: those segments fetched in the break's place, no break chunk again.
        let rewind = found?["rewind"]
        let known = rewind?["breaks"]?.array?.first
        #expect(known?["playOnce"] == .bool(true) && known?["shown"] == .bool(true), "\(result.encoded)")
        let covered = Double(known?["segments"]?.array?.count ?? 0)
        #expect(covered >= 2 && rewind?["own_fetched"]?.number == covered, "\(result.encoded)")
        #expect(rewind?["break_fetched"]?.number == 0, "\(result.encoded)")
        #expect((rewind?["played"]?["advanced"]?.number ?? 0) >= 6 && rewind?["state"] == .string("playing"), "\(result.encoded)")
        print("FanAppBrowserTests break: \(found.map(\.encoded) ?? "-") stalls \(result["stalls"]?.number ?? -1)")
    }

    /// Five minutes of one channel with 1 % packet loss repaired by Reed-Solomon FEC: no stall.
    /// Long (about 6 minutes): runs when GRANDSTAND_FAN_SOAK=1 (`make fan-soak`).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["GRANDSTAND_FAN_SOAK"] == "1"))
    func fanAppDoesNotStallWithLossAndFEC() throws {
        guard let result = try Self.drive(name: "soak", demo: ["--channels", "1", "--drop-rate", "0.01", "--fec", "reed-solomon"],
                                         driver: ["--scenario", "soak", "--seconds", "300"], timeout: 480) else { return }
        let played = result["played"]?.array?.first
        #expect((played?["advanced"]?.number ?? 0) >= 300, "\(result.encoded)")
        #expect(result["stalls"]?.number == 0, "\(result.encoded)")
        #expect(result["stalled_samples"]?.number == 0, "\(result.encoded)")
        print("FanAppBrowserTests soak: latency \(result["latency_ms"].map(\.encoded) ?? "-")")
    }

    /// Runs `grandstand demo` (`demo` arguments) in a fresh namespace, waits for its channels, runs
    /// the driver with `driver` arguments inside it and returns its JSON; nil where the browser
    /// tests do not run (not root, qemu-user).
    static func drive(name: String, demo: [String], driver: [String], timeout: Double) throws -> JSONValue? {
        guard TestEnvironment.isRoot, !TestEnvironment.isQEMUUser else { return nil }
        #expect(FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"), "no /usr/bin/chromium: run make deps")
        #expect(FileManager.default.isExecutableFile(atPath: python), "no \(python): run make deps (tools/pydeps.sh)")
        let namespace = try NetworkNamespace(prefix: "gs-fanapp")
        let process = try Child(["ip", "netns", "exec", namespace.name, SendEndToEndTests.binary, "demo", "--sample", SendEndToEndTests.sample,
                                 "--duration", String(Int(timeout) + 60), "--fan", fan, "--management", management] + demo)
        defer { process.kill() }
        try waitFor("the demo's channels live with a few segments", timeout: 60) {
            let list = try? runTool("/usr/sbin/ip", ["netns", "exec", namespace.name, "curl", "-s", "http://\(fan)/channels/main-camera/live.m3u8"])
            return (list?.stdout.components(separatedBy: "#EXTINF").count ?? 0) > 3
        }
        let shots = shots(name)
        try? FileManager.default.removeItem(atPath: shots)
        let run = try runTool("/usr/sbin/ip", ["netns", "exec", namespace.name, python, repository.appendingPathComponent("tools/browser/fan_app.py").path,
                                               "--url", "http://\(fan)/", "--shots", shots] + driver, timeout: timeout)
        let line = run.stdout.split(separator: "\n").last.map(String.init) ?? ""
        let result = try? JSONParser.parse(Array(line.utf8))
        let diagnostics = run.status == 0 ? "" : "\n" + demoDiagnostics(process)
        #expect(run.status == 0 && result != nil, "driver exit \(run.status): \(run.stdout.suffix(3000)) \(run.stderr.suffix(3000))\(diagnostics)")
        return result
    }
}

/// What the demo said and journaled about its recording, for a failed tour's message.
private func demoDiagnostics(_ demo: Child) -> String {
    let said = demo.output(containing: "\u{0}", timeout: 0.5)
    let journal = (try? runTool("/usr/bin/journalctl", ["--no-pager", "-o", "short-monotonic", "_PID=\(demo.process.processIdentifier)"]))?.stdout ?? ""
    let recording = journal.split(separator: "\n").filter { $0.contains("record") || $0.contains("kick-off") }.suffix(20)
    return "demo output: \(said.suffix(1500))\ndemo journal (recording): \(recording.joined(separator: "\n"))"
}

private extension JSONValue {
    var number: Double? { if case .number(let value) = self { value } else { nil } }
    var array: [JSONValue]? { if case .array(let items) = self { items } else { nil } }
}
