import Foundation
import GrandstandCore
import TestSupport
import Testing
@testable import GrandstandIngest
@testable import GrandstandOperations

/// `grandstand replay` end to end on the venue capture (tools/fixtures/make-ingest-fixtures.py).
struct ReplayTests {
    static func scratch(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("gs-replay-\(getpid())-\(name)").path
    }

    static func replay(_ capture: String = "ingest/venue.pcap", config: Bool = true, into name: String) throws -> String {
        let out = scratch(name)
        try? FileManager.default.removeItem(atPath: out)
        let configuration = IngestConfiguration.product(config ? try ConfigFiles.gateway(Fixtures.path("ingest/config.json")) : nil)
        _ = try Replay(capturePath: Fixtures.path(capture), outputDirectory: out, configuration: configuration).run()
        return out
    }

    static func read(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    static func json(_ path: String) throws -> JSONValue { try JSONParser.parse(try read(path)) }

    @Test func writesChannelsStatsDataAndTransportStreams() throws {
        let out = try Self.replay(into: "main")
        defer { try? FileManager.default.removeItem(atPath: out) }

        guard case .array(let channels) = try Self.json(out + "/channels.json") else {
            Issue.record("channels.json is not an array")
            return
        }
        #expect(channels.map { $0["id"] } == ["bowl-cam-1", "bowl-cam-1-2", "live-scores", "scoreboard-feed"].map { .string($0) })
        let bowl = channels[0]
        #expect(bowl["sessionVersion"] == .string("8"))
        #expect(bowl["bandwidthKbps"] == .number(8000))
        #expect(bowl["fec"] == .object([("D", .number(4)), ("L", .number(5)), ("scheme", .string("smpte2022-1"))]))
        #expect(bowl["streamer"] == .string("10.1.2.3"))
        #expect(bowl["venueName"] == .string("Demo Stadium"))
        #expect(channels[1]["kind"] == .string("unsupported"))
        #expect(channels[1]["kindReason"] == .string("H.264 RTP (RFC 6184) is not MPEG-TS"))
        #expect(channels[3]["origin"] == .string("config"))
        #expect(channels[3]["transport"] == .string("udp"))

        let stats = try Self.json(out + "/stats.json")
        #expect(stats["total"]?["num_license_key_mismatches"] == .number(2))
        #expect(stats["total"]?["num_channel_announcements_received"] == .number(16))
        #expect(stats["total"]?["compressedChannelAnnouncementsReceived"] == .number(1))
        #expect(stats["total"]?["num_ts_discontinuities"] == .number(2))
        #expect(stats["total"]?["unknown_destination"] == .number(5))
        #expect(stats["channels"]?["bowl-cam-1"]?["rtp_packets_lost"] == .number(1))
        #expect(stats["channels"]?["bowl-cam-1"]?["announcement_session_title"] == .string("Bowl Cam 1"))
        #expect(stats["channels"]?["concourse"]?["listed"] == .bool(false))

        let ts = try Self.read(out + "/ts/bowl-cam-1.ts"), expectedTS = try Fixtures.bytes("ingest/bowl-cam-1.expected.ts")
        #expect(ts == expectedTS)
        let concourse = try Self.read(out + "/ts/concourse.ts")
        #expect(concourse.count == 21 * 188)
        let data = try Self.read(out + "/data/live-scores.jsonl"), expectedData = try Fixtures.bytes("ingest/live-scores.expected.jsonl")
        #expect(data == expectedData)
        let scoreboard = String(decoding: try Self.read(out + "/data/scoreboard-feed.jsonl"), as: UTF8.self)
        #expect(scoreboard == """
        {"payload":"c2NvcmUgMS0w","time":"2023-11-14T22:13:21.500000000Z","timestampNanoseconds":1700000001500000000}
        {"payload":"c2NvcmUgMi0w","time":"2023-11-14T22:13:22.500000000Z","timestampNanoseconds":1700000002500000000}

        """)
        let events = String(decoding: try Self.read(out + "/events.jsonl"), as: UTF8.self).split(separator: "\n")
        #expect(events.contains(#"{"change":"removed","event":"channel","id":"concourse","kind":"video","reason":"deleted","time":"2023-11-14T22:13:23.000000000Z","timestampNanoseconds":1700000003000000000}"#))
        #expect(events.contains(#"{"change":"removed","event":"channel","id":"old-feed","kind":"data","reason":"timeout","time":"2023-11-14T22:14:25.000000000Z","timestampNanoseconds":1700000065000000000}"#))
        // Index 12 (due at 0.340) is lost. Bowl Cam 1 announces SMPTE 2022-1 (L=5, D=4) but no
        // valid FEC ever comes, and its 30 packets are too few to measure the rate (four blocks of
        // a matrix, docs/fec.md "Matrix wait"), so the packets after the gap are held for the
        // bound, 1.5 s: the loss is declared at the first tick after 1.86 s, not at the next
        // packet as without FEC.
        #expect(events.contains(#"{"event":"gap","id":"bowl-cam-1","lostPackets":1,"time":"2023-11-14T22:13:21.900000000Z","timestampNanoseconds":1700000001900000000}"#))
    }

    @Test func isDeterministicAcrossRunsAndCaptureFormats() throws {
        let first = try Self.replay(into: "first")
        let second = try Self.replay(into: "second")
        let pcapng = try Self.replay("ingest/venue.pcapng", into: "pcapng")
        defer { for dir in [first, second, pcapng] { try? FileManager.default.removeItem(atPath: dir) } }
        for file in ["channels.json", "stats.json", "events.jsonl", "ts/bowl-cam-1.ts", "data/live-scores.jsonl"] {
            let bytes = try Self.read("\(first)/\(file)")
            #expect(!bytes.isEmpty)
            let again = try Self.read("\(second)/\(file)"), fromPcapng = try Self.read("\(pcapng)/\(file)")
            #expect(bytes == again, "\(file) differs between runs")
            #expect(bytes == fromPcapng, "\(file) differs between pcap and pcapng")
        }
    }

    @Test func withoutConfigNoLicenseIsEnforced() throws {
        let out = try Self.replay(config: false, into: "open")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let stats = try Self.json(out + "/stats.json")
        #expect(stats["total"]?["num_license_key_mismatches"] == .number(0))
        #expect(stats["channels"]?["rival-feed"]?["packets_received"] == .number(2))
        #expect(FileManager.default.fileExists(atPath: out + "/ts/rival-feed.ts"))
        #expect(!FileManager.default.fileExists(atPath: out + "/data/scoreboard-feed.jsonl"))
    }

    @Test func errorsAreClear() throws {
        do {
            _ = try Self.replay("ingest/absent.pcap", into: "absent")
            Issue.record("replayed a missing file")
        } catch {
            #expect("\(error)".contains("absent.pcap"))
        }
        // An output path under a regular file cannot be created.
        let blocker = Self.scratch("blocker")
        _ = FileManager.default.createFile(atPath: blocker, contents: Data([1]))
        defer { try? FileManager.default.removeItem(atPath: blocker) }
        let configuration = IngestConfiguration()
        let error = thrownError(ReplayError.self) {
            try Replay(capturePath: Fixtures.path("ingest/venue.pcap"), outputDirectory: blocker + "/out",
                       configuration: configuration).run()
        }
        #expect(error?.description.hasPrefix("create directory \(blocker)/") == true)
        #expect(error?.code == ENOTDIR)
        // A bad configuration is refused with its path (the command exits 78: ReplayCommandLineTests).
        let bad = Self.scratch("bad.json")
        _ = FileManager.default.createFile(atPath: bad, contents: Data(#"{"license":{}}"#.utf8))
        defer { try? FileManager.default.removeItem(atPath: bad) }
        let rejection = thrownError(ConfigFiles.Rejection.self) { _ = try ConfigFiles.gateway(bad) }
        #expect(rejection?.description.hasPrefix("configuration \(bad) rejected:\n") == true)
    }
}

struct ReplayTextEncodingTests {
    /// RFC 4648 §10 test vectors.
    @Test(arguments: [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
                      ("foobar", "Zm9vYmFy")])
    func base64(text: String, encoded: String) {
        #expect(TextEncoding.base64(Array(text.utf8)[...]) == encoded)
        #expect(TextEncoding.base64(Array(("xx" + text).utf8).dropFirst(2)) == encoded)   // slices not starting at 0
    }

    @Test(arguments: [(Int64(0), "1970-01-01T00:00:00.000000000Z"), (1_700_000_000_123_457_000, "2023-11-14T22:13:20.123457000Z"),
                      (951_782_400_000_000_001, "2000-02-29T00:00:00.000000001Z"), (-1, "1969-12-31T23:59:59.999999999Z"),
                      (4_102_444_799_000_000_000, "2099-12-31T23:59:59.000000000Z")])
    func rfc3339(nanoseconds: Int64, text: String) {
        #expect(TextEncoding.rfc3339(nanoseconds: nanoseconds) == text)
    }
}
