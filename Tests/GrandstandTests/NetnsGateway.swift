import Foundation
#if canImport(Glibc)
import Glibc
#endif
import GrandstandCore
import TestSupport
import Testing
@testable import GrandstandDaemon
@testable import GrandstandIngest
@testable import GrandstandOperations

/// The live end-to-end bed of the file-channel tests: a private network namespace with a veth
/// pair, the daemon capturing on `gsv1` inside it, and `grandstand send` on `gsv0`. Needs root
/// and packet sockets (not qemu-user); `expectNoLiveCaptureHere` covers the other machines.
struct NetnsGateway {
    static let license = "Test Arena/Test Owner/Test App"

    let namespace: NetworkNamespace
    let daemon: Daemon
    let status: StatusReport

    init(prefix: String, config: GatewayConfig, before: (NetworkNamespace) throws -> Void = { _ in }) throws {
        namespace = try NetworkNamespace(prefix: prefix)
        try namespace.addVethPair()
        try before(namespace)
        var settings = LiveIngest.Settings(interface: "gsv1", configuration: .product(config))
        // No silence re-join while a loaded, emulated machine is still starting the sender.
        settings.silenceNanoseconds = 60_000_000_000
        let daemon = Daemon(config: config, board: nil, ingest: settings)
        try namespace.enter { try daemon.start() }
        self.daemon = daemon
        guard let status = daemon.status else {
            daemon.stop()
            throw NetnsGatewayError.notStarted
        }
        self.status = status
    }

    func stop() { daemon.stop() }

    /// The headend tests' bed: a work directory, `config(stateDirectory)` decoded and, as root
    /// outside qemu-user, a gateway in its namespace for `body(gateway, work)`; elsewhere the
    /// configuration is only checked to refuse live capture (`expectNoLiveCaptureHere`).
    /// `before` shapes the namespace (more links) before the daemon starts.
    static func run(prefix: String, config: (String) -> String, before: (NetworkNamespace) throws -> Void = { _ in },
                    _ body: (NetnsGateway, String) throws -> Void) throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(getpid())").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let decoded = try GatewayConfig.decode(Array(config(work + "/state").utf8))
        guard TestEnvironment.isRoot, !TestEnvironment.isQEMUUser else {
            try expectNoLiveCaptureHere(decoded)
            return
        }
        let gateway = try NetnsGateway(prefix: prefix, config: decoded, before: before)
        defer { gateway.stop() }
        try body(gateway, work)
    }

    /// The frames FFmpeg decodes from `seconds` of channel `id`'s live playlist, read from the fan
    /// listener inside the namespace (ffprobe lists a stream once per program and once alone: the
    /// first count), and ffprobe's output for the message.
    func decodedFrames(_ id: String, seconds: Int = 3) throws -> (frames: Int, output: String) {
        let url = "http://127.0.0.1:\(status.fan.port)/channels/\(id)/live.m3u8"
        let output = try runCommand(["ip", "netns", "exec", namespace.name, "ffprobe", "-v", "error", "-select_streams", "v:0",
                                     "-read_intervals", "%+\(seconds)", "-count_frames", "-show_entries", "stream=nb_read_frames",
                                     "-of", "csv=p=0", url])
        return (output.split(whereSeparator: \.isNewline).compactMap { Int($0) }.first ?? 0, output)
    }

    /// Waits until every channel of `ids` has a live playlist with `segments` segments.
    func waitForSegments(_ ids: [String], segments: Int = 2, timeout: Double = 120) throws {
        try waitFor("\(ids.joined(separator: ", ")) with \(segments) segments", timeout: timeout) {
            for id in ids {
                let reply = try get("/channels/\(id)/live.m3u8")
                guard reply.status == 200, reply.text.components(separatedBy: "#EXTINF").count > segments else { return false }
            }
            return true
        }
    }

    /// A GET from inside the namespace, to the fan listener or (with the test token) the management one.
    func get(_ path: String, management: Bool = false, headers: [String] = []) throws -> RawHTTPClient.Reply {
        try namespace.enter {
            try RawHTTPClient(port: management ? status.management.port : status.fan.port)
                .get(path, headers: management ? headers + ["Authorization: Bearer secret"] : headers)
        }
    }

    /// `grandstand send` on the namespace's other veth end, announcing with the test license.
    func send(_ arguments: [String]) throws -> Child {
        try Child(["ip", "netns", "exec", namespace.name, SendEndToEndTests.binary, "send", "--interface", "gsv0",
                   "--sap-interval", "0.5", "--license", Self.license, "--lead-in", "2"] + arguments)
    }

    /// Each file written aside and renamed into `directory`: the sender never reads a half-written file.
    static func write(_ files: [String: [UInt8]], into directory: String) throws {
        for (name, bytes) in files {
            let path = directory + "/" + name
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
        }
    }
}

enum NetnsGatewayError: Error { case notStarted }
