import Foundation
#if canImport(Glibc)
import Glibc
#endif
import GrandstandCore
import TestSupport
import Testing

/// File channels from an independent FLUTE sender (ypo/flute via PyPI flute-alc,
/// tools/flute/flute-alc-send.py), with none of Grandstand's private SDP attributes: one session
/// announced by SAP as RFC 6726 §7 describes it (`FLUTE/UDP`, `a=flute-tsi`, `a=source-filter`),
/// Reed-Solomon over GF(2^8) with 5 % loss; one static file channel of the config (group, port,
/// TSI), Compact No-Code with 5 % loss over a three-round carousel. The files must come out
/// byte-identical on `/files/ID/NAME`. Needs root and packet sockets (not qemu-user).
@Suite(.serialized) struct FluteStandardSenderTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The venv tools/pydeps.sh made (`make deps`).
    static var python: String {
        let cache = ProcessInfo.processInfo.environment["GRANDSTAND_CACHE"] ?? repository.appendingPathComponent(".cache").path
        return cache + "/venv/bin/python3"
    }

    static func config(state: String) -> String {
        """
        {"license":{"venueName":"Test Arena","contentOwner":"Test Owner","appDeveloper":"Test App","required":false},
         "listeners":{"fan":"127.0.0.1:0","management":"127.0.0.1:0"},"management":{"token":"secret"},
         "network":{"interface":"gsv1"},"stateDirectory":"\(state)",
         "channels":[{"name":"Static Files","kind":"file","group":"239.255.49.2","port":49002,"tsi":5,"source":"10.200.0.1"}]}
        """
    }

    @Test func standardAndStaticFluteSessionsDeliverByteIdenticalFiles() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("gs-flute-alc-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: work) }
        let config = try GatewayConfig.decode(Array(Self.config(state: work + "/state").utf8))
        guard TestEnvironment.isRoot, !TestEnvironment.isQEMUUser else {
            try expectNoLiveCaptureHere(config)
            return
        }
        #expect(FileManager.default.isExecutableFile(atPath: Self.python), "no \(Self.python): run make deps (tools/pydeps.sh)")
        var generator = SeededBytes(seed: 7)
        let sessions: [(id: String, directory: String, files: [String: [UInt8]], arguments: [String])] = [
            ("venue-replays", work + "/rs", ["clip-1.mp4": generator.bytes(90_000), "poster.jpg": generator.bytes(7_001)],
             ["--group", "239.255.49.1", "--port", "49000", "--tsi", "3", "--fec", "rs", "--block", "32", "--parity", "8",
              "--loss", "0.05", "--seed", "3", "--rounds", "2", "--sap", "Venue Replays"]),
            ("static-files", work + "/nocode", ["feed.json": generator.bytes(30_000), "notes.txt": generator.bytes(1_500)],
             ["--group", "239.255.49.2", "--port", "49002", "--tsi", "5", "--fec", "nocode", "--loss", "0.05", "--seed", "5",
              "--rounds", "3"]),
        ]
        for session in sessions { try NetnsGateway.write(session.files, into: session.directory) }
        let gateway = try NetnsGateway(prefix: "gs-flalc", config: config)
        defer { gateway.stop() }
        var senders: [Child] = []
        defer { for sender in senders { sender.kill() } }
        for session in sessions {
            senders.append(try Child(["ip", "netns", "exec", gateway.namespace.name, Self.python,
                                      Self.repository.appendingPathComponent("tools/flute/flute-alc-send.py").path,
                                      "--source", "10.200.0.1"] + session.arguments + [session.directory]))
        }
        for sender in senders {
            let output = sender.output(containing: "flute-alc-send:", timeout: 120)
            #expect(output.contains("packets sent"), "\(output)")
        }
        for session in sessions {
            for (name, bytes) in session.files {
                let reply = try gateway.get("/files/\(session.id)/\(name)")
                #expect(reply.status == 200, "\(session.id)/\(name): \(reply.status)")
                #expect(reply.body == bytes, "\(session.id)/\(name): \(reply.body.count) bytes, expected \(bytes.count)")
            }
        }
        let channels = try JSONParser.parse(Array(try gateway.get("/api/v1/channels", management: true).body))
        guard case .array(let list) = channels else { Issue.record("channels: \(channels)"); return }
        #expect(list.first { $0["id"] == .string("venue-replays") }?["kind"] == .string("file"))
        #expect(list.first { $0["id"] == .string("static-files") }?["kind"] == .string("file"))
    }
}
