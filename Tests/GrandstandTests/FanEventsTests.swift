import Foundation
import GrandstandCore
import HTTPServer
import TestSupport
import Testing
@testable import GrandstandDaemon
@testable import GrandstandIngest
@testable import GrandstandOperations
@testable import GrandstandServices
@testable import GrandstandServing
@testable import GrandstandStreamer

/// `/channels/ID/events`: data-channel messages as Server-Sent Events, read with `curl -N`.
/// In-process (a daemon fed as the ingest would feed it) and end to end (`grandstand send` →
/// `grandstand run` in a private network namespace → curl).
struct FanEventsTests {
    /// `curl -N` on the events URL for `seconds`; its output when it ends.
    final class Listener: @unchecked Sendable {
        let process = Process()
        let pipe = Pipe()
        init(_ url: String, headers: [String] = [], seconds: Double, namespace: String? = nil) throws {
            var command = ["curl", "-s", "-N", "--max-time", String(seconds)] + headers.flatMap { ["-H", $0] } + [url]
            if let namespace { command = ["ip", "netns", "exec", namespace] + command }
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = command
            process.standardOutput = pipe
            try process.run()
        }
        func output() -> String {
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: data, as: UTF8.self)
        }
    }

    static func publish(_ fed: ServingTests.Fed, _ text: String) {
        fed.daemon.gateway.handle([.dataMessage(channelID: "scores", payload: Array(text.utf8)[...], timestampNanoseconds: 1_700_000_000_000_000_000)])
    }

    /// The `id:` values and data lines of an SSE body.
    static func events(_ body: String) -> [(id: Int, data: String)] {
        body.components(separatedBy: "\n\n").compactMap { block in
            let lines = block.split(separator: "\n")
            guard let id = lines.first(where: { $0.hasPrefix("id: ") }).flatMap({ Int($0.dropFirst(4)) }),
                  let data = lines.first(where: { $0.hasPrefix("data: ") }) else { return nil }
            return (id, String(data.dropFirst(6)))
        }
    }

    @Test func newMessagesArriveAsEventsAndLastEventIDReplaysTheRing() throws {
        let fed = try ServingTests.Fed()
        defer { fed.daemon.stop() }
        let url = "http://127.0.0.1:\(fed.port)/channels/scores/events"
        Self.publish(fed, "before anyone listened")
        let live = try Listener(url, seconds: 2)
        try waitFor("the subscription") { fed.daemon.gateway.dataEvents.count == 1 }
        Self.publish(fed, "goal 1-0")
        Self.publish(fed, "line one\nline two")
        Self.publish(fed, "{\"json\":true}")
        let body = live.output()
        #expect(body.hasPrefix("retry: 2000\n\n"), "\(body)")
        let events = Self.events(body)
        #expect(events.map(\.id) == [2, 3, 4], "\(body)")
        let second = try JSONParser.parse(Array((events.count > 1 ? events[1].data : "").utf8))
        #expect(second["text"] == .string("line one\nline two"))
        #expect(second["sequence"] == .number(3))

        // Reconnecting with the last id seen: the newer messages from the ring first.
        let resumed = try Listener(url, headers: ["Last-Event-ID: 2"], seconds: 1)
        #expect(Self.events(resumed.output()).map(\.id) == [3, 4])
        // An id the ring cannot place (older than the ring, or from before a restart): the whole ring.
        let unknown = try Listener(url, headers: ["Last-Event-ID: 999"], seconds: 1)
        #expect(Self.events(unknown.output()).map(\.id) == [1, 2, 3, 4])
        let upToDate = try Listener(url, headers: ["Last-Event-ID: 4"], seconds: 1)
        #expect(Self.events(upToDate.output()).isEmpty)

        let missing = try RawHTTPClient(port: fed.port).get("/channels/nope/events")
        #expect(missing.status == 404)
        #expect(try RawHTTPClient(port: fed.port).get("/channels/cam/events").status == 404)
    }

    /// The per-client bound itself, without sockets: a subscriber nobody reads keeps the newest
    /// 256 events and counts the rest as dropped.
    @Test func anUnreadSubscriptionKeepsOnlyTheNewestEvents() throws {
        let fed = try ServingTests.Fed()
        defer { fed.daemon.stop() }
        let stream = HTTPStream(limits: FanEvents.limits)
        fed.daemon.gateway.dataEvents.subscribe("scores", stream)
        for index in 0..<1000 { Self.publish(fed, "event \(index)") }
        #expect(stream.droppedChunks == 1000 - FanEvents.limits.maxQueuedChunks)
        #expect(stream.isOpen)
    }

    /// A real client that connects and never reads: old events are dropped, the listener serves
    /// others. On the host 23 MB of events are sent; under qemu-user (about 100 times slower to
    /// encode them) 1 MB, which may all fit the kernel's socket buffers: there only the serving
    /// of others is checked, and the bound itself by the test above.
    @Test func aSlowEventClientDropsOldEventsInsteadOfGrowing() throws {
        let fed = try ServingTests.Fed()
        defer { fed.daemon.stop() }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var small = Int32(4096)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = fed.port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(connected == 0)
        let request = Array("GET /channels/scores/events HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        try waitFor("the subscription") { fed.daemon.gateway.dataEvents.count == 1 }
        let events = TestEnvironment.isQEMUUser ? 20 : 500
        let text = String(repeating: "x", count: 20_000)
        for _ in 0..<events { Self.publish(fed, text) }
        let statistics = try #require(fed.daemon.fanServer?.statistics)
        if !TestEnvironment.isQEMUUser {
            // 500 events of ~47 kB (JSON text + base64): at most 256 kB queued plus the kernel's buffers.
            #expect(statistics.streamChunksDropped > 250, "\(statistics)")
        }
        #expect(statistics.streams == 1, "\(statistics)")
        #expect(try RawHTTPClient(port: fed.port).get("/channels.json").status == 200)
    }

    /// `grandstand send` a data channel → `grandstand run` (live capture) → SSE to curl, in a
    /// private network namespace. Without root or under qemu-user (no live capture), the clear
    /// error of what is missing is asserted instead; the VM runs it for real.
    @Test func sentDataMessagesReachAnEventStreamEndToEnd() throws {
        guard TestEnvironment.isRoot, !TestEnvironment.isQEMUUser else {
            if TestEnvironment.isQEMUUser {
                let send = try SendProcess.start(namespace: nil, arguments: ["send", "--interface", "lo", "--data", "Scores@239.255.47.2:47002",
                                                                       "--duration", "1"])
                let output = send.finish()
                #expect(send.status != 0 && output.contains("IP_MULTICAST_IF"), "\(output)")
            } else {
                #expect(throws: (any Error).self) { _ = try NetworkNamespace(prefix: "gs-sse") }
            }
            return
        }
        let namespace = try NetworkNamespace(prefix: "gs-sse")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gs-sse-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("config.json").path
        try """
        {"license":{"venueName":"SSE Stadium","contentOwner":"Grandstand","appDeveloper":"Tests"},
         "network":{"interface":"lo","wifiInterface":null},
         "listeners":{"fan":"127.0.0.1:18580","management":"127.0.0.1:18581","fanLimits":{"headerTimeoutSeconds":5}},
         "management":{"token":"t"},"discovery":{"sapGroups":["239.255.255.255"]}}
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try Child(["ip", "netns", "exec", namespace.name, SendEndToEndTests.binary, "run", "--config", config])
        defer { daemon.kill() }
        let license = ["--license", "SSE Stadium/Grandstand/Tests"]
        let sender = try Child(["ip", "netns", "exec", namespace.name, SendEndToEndTests.binary, "send", "--interface", "lo",
                                "--sap-interval", "0.5", "--data", "Scores@239.255.47.2:47002", "--data-interval", "0.2",
                                "--duration", "30"] + license)
        defer { sender.kill() }
        try waitFor("the data channel in channels.json", timeout: 20) {
            let list = try? namespace.exec(["curl", "-s", "http://127.0.0.1:18580/channels.json"])
            return list?.contains("\"events\":\"/channels/scores/events\"") == true
        }
        let listener = try Listener("http://127.0.0.1:18580/channels/scores/events", seconds: 3, namespace: namespace.name)
        let events = Self.events(listener.output())
        #expect(events.count >= 5, "\(events)")
        let ids = events.map(\.id)
        #expect(ids == Array((ids.first ?? 0)..<((ids.first ?? 0) + ids.count)), "consecutive ids: \(ids)")
        let first = try JSONParser.parse(Array((events.first?.data ?? "").utf8))
        #expect(first["base64"] != nil && first["timeMilliseconds"] != nil)
    }
}
