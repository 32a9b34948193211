import Foundation
#if canImport(Glibc)
import Glibc
#endif
import GrandstandCore
import TestSupport
import Testing

/// Recordings as an operator meets them, on the built binary (docs/records.md "Crash safety"):
/// `grandstand send` and `grandstand run` in a private network namespace, a live channel
/// recorded by request and by `records.autoRecord`, the daemon killed with SIGKILL mid-recording
/// and started again: `grandstand record ls` lists both `failed: interrupted` with their
/// playable part, which ffmpeg decodes; the stream's end completes the new automatic recording;
/// a name is not reused. Disk full: the records directory on a 512 KiB tmpfs (its own mount
/// namespace, so only that daemon sees it) stops the recording `failed: disk-full`, logged.
/// Needs root (namespaces, mounts); under qemu-user there is no live capture: skipped there
/// (the in-process RecordRecoveryTests cover the logic).
@Suite(.serialized) struct RecordCrashEndToEndTests {
    static let token = "t"

    struct DaemonExited: Error, CustomStringConvertible {
        let output: String
        var description: String { "the daemon exited: \(output)" }
    }

    final class Bed {
        let namespace: NetworkNamespace
        let work: String
        let fan: Int, management: Int

        init(_ prefix: String, fan: Int, management: Int) throws {
            namespace = try NetworkNamespace(prefix: prefix)
            work = NSTemporaryDirectory() + "\(prefix)-\(getpid())-\(UUID().uuidString.prefix(8))"
            self.fan = fan
            self.management = management
            try FileManager.default.createDirectory(atPath: work + "/state/records", withIntermediateDirectories: true)
        }

        deinit { try? FileManager.default.removeItem(atPath: work) }

        var configPath: String { work + "/config.json" }
        var recordsDirectory: String { work + "/state/records" }

        func writeConfig(autoRecord: [String]) throws {
            let auto = autoRecord.map { "\"\($0)\"" }.joined(separator: ",")
            try """
            {"license":{"venueName":"Rec Arena","contentOwner":"Grandstand","appDeveloper":"Tests"},
             "network":{"interface":"lo","wifiInterface":null},
             "listeners":{"fan":"127.0.0.1:\(fan)","management":"127.0.0.1:\(management)"},
             "management":{"token":"\(RecordCrashEndToEndTests.token)"},"discovery":{"sapGroups":["239.255.255.255"]},
             "stateDirectory":"\(work)/state","records":{"autoRecord":[\(auto)]}}
            """.write(toFile: configPath, atomically: true, encoding: .utf8)
        }

        /// `grandstand run` in the namespace; `mount` first mounts a tmpfs of that size on the
        /// records directory, in the daemon's own mount namespace (`ip netns exec` makes one).
        func daemon(tmpfsBytes: Int? = nil) throws -> Child {
            var command = [SendEndToEndTests.binary, "run", "--config", configPath]
            if let size = tmpfsBytes {
                command = ["sh", "-c", "mount -t tmpfs -o size=\(size) tmpfs \(recordsDirectory) && exec \(command.joined(separator: " "))"]
            }
            let daemon = try Child(["ip", "netns", "exec", namespace.name] + command)
            try waitFor("the management listener", timeout: 30) {
                guard daemon.isRunning else { throw DaemonExited(output: daemon.finish()) }
                return (try? api("/api/v1/status")).map { $0.contains("\"status\"") } == true
            }
            return daemon
        }

        /// The 20 s sample once (`passes` 1; more loop it, which restarts its timestamps), then
        /// the SAP deletion: the stream's end.
        func sender(passes: Int = 1) throws -> Child {
            try Child(["ip", "netns", "exec", namespace.name, SendEndToEndTests.binary, "send", "--interface", "lo",
                       "--sap-interval", "0.5", "--license", "Rec Arena/Grandstand/Tests",
                       "--video", "Bowl Cam=\(SendEndToEndTests.sample)@239.255.47.1:47000", "--count", String(passes)])
        }

        func api(_ path: String) throws -> String {
            try namespace.exec(["curl", "-sS", "--max-time", "5", "-H", "Authorization: Bearer \(RecordCrashEndToEndTests.token)",
                                "http://127.0.0.1:\(management)\(path)"])
        }

        /// `grandstand ARGS --url … --token …` in the namespace: exit status and output.
        func cli(_ arguments: [String]) throws -> (status: Int32, output: String) {
            let child = try Child(["ip", "netns", "exec", namespace.name, SendEndToEndTests.binary] + arguments
                                  + ["--url", "http://127.0.0.1:\(management)", "--token", RecordCrashEndToEndTests.token])
            let output = child.finish()
            return (child.status, output)
        }

        func records() throws -> [JSONValue] {
            let text = try api("/api/v1/records")
            let document = try JSONParser.parse(Array(text.utf8))
            guard case .array(let list)? = document["records"] else { return [] }
            return list
        }

        func record(_ name: String) throws -> JSONValue? { try records().first { $0["name"] == .string(name) } }

        /// The `record ls` row of `name`, split on runs of spaces.
        func listed(_ name: String) throws -> [String]? {
            let ls = try cli(["record", "ls"])
            return ls.output.split(separator: "\n").first { $0.hasPrefix(name + " ") }.map { String($0) }
                .map { $0.components(separatedBy: "  ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
        }
    }

    static func number(_ value: JSONValue?) -> Double { if case .number(let n)? = value { n } else { -1 } }
    static func string(_ value: JSONValue?) -> String { if case .string(let s)? = value { s } else { "" } }

    /// ffprobe's duration of a file, and whether ffmpeg decodes it without an error.
    static func probe(_ path: String) throws -> (seconds: Double, clean: Bool, errors: String) {
        let probe = try runTool("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path])
        let decode = try runTool("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-f", "null", "-"])
        let seconds = Double(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        return (seconds, probe.status == 0 && decode.status == 0 && decode.stderr.isEmpty, probe.stderr + decode.stderr)
    }

    static func fileSize(_ path: String) -> Int { ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? -1 }

    @Test(.timeLimit(.minutes(5)))
    func killedMidRecordingThenRestartedListsItInterruptedAndTheStreamsEndCompletes() throws {
        guard TestEnvironment.isRoot, !TestEnvironment.isQEMUUser else { return }
        let bed = try Bed("gs-rec", fan: 18_690, management: 18_691)
        try bed.writeConfig(autoRecord: ["bowl-cam"])
        var daemon = try bed.daemon()
        defer { daemon.kill() }
        let sender = try bed.sender()
        defer { sender.kill() }

        // The channel appears: the automatic recording starts; the operator starts one too.
        var auto = ""
        try waitFor("the automatic recording", timeout: 30) {
            auto = Self.string(try bed.records().first { $0["automatic"] == .bool(true) }?["name"])
            return !auto.isEmpty
        }
        #expect(auto.hasPrefix("bowl-cam-"), "\(auto)")
        var start = (status: Int32(0), output: "")
        try waitFor("the channel to be live for record start", timeout: 30) {
            start = try bed.cli(["record", "start", "crashme", "--channel", "bowl-cam"])
            return start.status == 0
        }
        #expect(start.output.contains("crashme") && start.output.contains("recording"), "\(start.output)")
        #expect(try JSONParser.parse(Array(try String(contentsOfFile: bed.recordsDirectory + "/crashme.json", encoding: .utf8).utf8))["state"]
                == .string("recording"))

        // Several segments in (the recorder journals each after syncing it), then SIGKILL.
        try waitFor("three segments of crashme", timeout: 60) { Self.number(try bed.record("crashme")?["segments"]) >= 3 }
        daemon.kill()
        let onDisk = Self.fileSize(bed.recordsDirectory + "/crashme.ts")
        #expect(onDisk > 0)

        // Restarted: both cut recordings are listed failed: interrupted with their playable part.
        let restartedAt = Int(Date().timeIntervalSince1970) - 1
        daemon = try bed.daemon()
        let crashme = try #require(try bed.record("crashme"))
        #expect(crashme["state"] == .string("failed") && crashme["reason"] == .string("interrupted"), "\(crashme)")
        let bytes = Int(Self.number(crashme["bytes"]))
        let seconds = Self.number(crashme["durationSeconds"])
        #expect(bytes > 0 && bytes % 188 == 0 && bytes <= onDisk && bytes >= onDisk - onDisk % 188, "\(bytes) of \(onDisk)")
        #expect(Self.fileSize(bed.recordsDirectory + "/crashme.ts") == bytes)
        let row = try #require(try bed.listed("crashme"))
        #expect(row.count >= 3 && row[1] == "bowl-cam" && row[2] == "failed: interrupted", "\(row)")
        let autoRow = try #require(try bed.listed(auto))
        #expect(autoRow.count >= 3 && autoRow[2] == "failed: interrupted", "\(autoRow)")
        let kept = try Self.probe(bed.recordsDirectory + "/crashme.ts")
        #expect(kept.clean, "\(kept.errors)")
        #expect(abs(kept.seconds - seconds) < 1.5, "ffprobe \(kept.seconds) s, listed \(seconds) s")
        let served = try bed.namespace.exec(["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code} %{size_download}",
                                             "http://127.0.0.1:\(bed.fan)/records/crashme.ts"])
        #expect(served == "200 \(bytes)")
        print("record crash: killed at \(onDisk) bytes on disk; kept \(bytes) bytes, \(seconds) s listed, \(kept.seconds) s by ffprobe")

        // Logged once by the new daemon (this run's name: the journal keeps earlier runs' entries).
        if FileManager.default.fileExists(atPath: "/run/systemd/journal/socket") {
            var logs = (status: Int32(0), output: "")
            try waitFor("the record-interrupted entry", timeout: 20) {
                logs = try bed.cli(["logs", "--message-id", GatewayEvent.Kind.recordInterrupted.messageID, "--since", String(restartedAt), "-n", "1000"])
                return logs.output.contains("recording crashme of channel bowl-cam was interrupted")
            }
            let entries = logs.output.split(separator: "\n").filter { $0.contains("recording crashme of channel bowl-cam was interrupted") }
            #expect(entries.count == 1 && entries.first?.contains("\(bytes) bytes") == true, "\(logs.output)")
            #expect(logs.output.contains("recording \(auto) of channel bowl-cam was interrupted"), "\(logs.output)")
        }

        // The name stays taken.
        let again = try bed.cli(["record", "start", "crashme", "--channel", "bowl-cam"])
        #expect(again.status != 0 && again.output.contains("exists"), "\(again.output)")

        // The channel appears again to the new daemon: a new automatic recording, new name;
        // the sender's end (SAP deletion) completes it.
        var second = ""
        try waitFor("the second automatic recording", timeout: 30) {
            second = Self.string(try bed.records().first { $0["automatic"] == .bool(true) && $0["state"] == .string("recording") }?["name"])
            return !second.isEmpty
        }
        #expect(second != auto)
        let sent = sender.finish()
        #expect(sender.status == 0, "\(sent)")
        try waitFor("the stream's end to complete \(second)", timeout: 30) { try bed.record(second)?["state"] != .string("recording") }
        let completed = try #require(try bed.record(second))
        #expect(completed["state"] == .string("completed"), "\(completed)")
        let completedBytes = Int(Self.number(completed["bytes"]))
        #expect(completedBytes > 0 && Self.fileSize(bed.recordsDirectory + "/\(second).ts") == completedBytes)
        let whole = try Self.probe(bed.recordsDirectory + "/\(second).ts")
        #expect(whole.clean, "\(whole.errors)")
        #expect(abs(whole.seconds - Self.number(completed["durationSeconds"])) < 1.5, "\(whole.seconds) vs \(completed)")
        let playlist = try bed.namespace.exec(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0",
                                               "http://127.0.0.1:\(bed.fan)/records/\(second).m3u8"])
        let listedSeconds = Self.number(completed["durationSeconds"])
        #expect(abs((Double(playlist.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1) - listedSeconds) < 1.5, "\(playlist) vs \(listedSeconds)")
        print("record completed: \(completedBytes) bytes, \(listedSeconds) s listed, \(whole.seconds) s by ffprobe")
    }

    @Test(.timeLimit(.minutes(3)))
    func aFullDiskStopsTheRecordingWithItsReason() throws {
        guard TestEnvironment.isRoot, !TestEnvironment.isQEMUUser else { return }
        let bed = try Bed("gs-recfull", fan: 18_692, management: 18_693)
        try bed.writeConfig(autoRecord: [])
        let daemon = try bed.daemon(tmpfsBytes: 512 * 1024)
        defer { daemon.kill() }
        let sender = try bed.sender(passes: 3)
        defer { sender.kill() }
        let journal = FileManager.default.fileExists(atPath: "/run/systemd/journal/socket")
        let follow = journal ? try Child(["ip", "netns", "exec", bed.namespace.name, SendEndToEndTests.binary, "logs", "--follow",
                                          "--message-id", GatewayEvent.Kind.recordFailed.messageID, "--since", "-1m",
                                          "--url", "http://127.0.0.1:\(bed.management)", "--token", Self.token]) : nil
        defer { follow?.kill() }
        try waitFor("the channel to be live for record start", timeout: 30) {
            try bed.cli(["record", "start", "full", "--channel", "bowl-cam"]).status == 0
        }
        // The event is the wait: record-failed for this recording (or, without journald, its state).
        if let follow {
            let text = follow.output(containing: "recording full of channel bowl-cam failed", timeout: 60)
            #expect(text.contains("failed: disk-full"), "\(text)")
        }
        try waitFor("the disk to fill", timeout: 60) { try bed.record("full")?["state"] != .string("recording") }
        let record = try #require(try bed.record("full"))
        #expect(record["state"] == .string("failed") && record["reason"] == .string("disk-full"), "\(record)")
        let row = try #require(try bed.listed("full"))
        #expect(row.count >= 3 && row[2] == "failed: disk-full", "\(row)")
        let bytes = Int(Self.number(record["bytes"]))
        #expect(bytes > 0 && bytes % 188 == 0 && bytes < 512 * 1024, "\(bytes)")
        // What was kept plays: fetched over the fan listener (the tmpfs is only in the daemon's
        // mount namespace) and decoded.
        let copy = bed.work + "/full.ts"
        let fetched = try bed.namespace.exec(["curl", "-sS", "-o", copy, "-w", "%{http_code}", "http://127.0.0.1:\(bed.fan)/records/full.ts"])
        #expect(fetched == "200" && Self.fileSize(copy) == bytes)
        let kept = try Self.probe(copy)
        #expect(kept.clean, "\(kept.errors)")
        #expect(abs(kept.seconds - Self.number(record["durationSeconds"])) < 1.5, "\(kept.seconds) vs \(record)")
        // The recording's metadata and playlist were finalized on the full disk (the daemon's view).
        let stored = try String(contentsOfFile: "/proc/\(daemon.process.processIdentifier)/root\(bed.recordsDirectory)/full.json", encoding: .utf8)
        #expect(stored.contains("\"disk-full\""), "\(stored)")
        print("record disk full: 512 KiB tmpfs, kept \(bytes) bytes, \(Self.number(record["durationSeconds"])) s")
    }
}
