import Foundation
import GrandstandCore
import HTTPClient
import TestSupport
import Testing
@testable import GrandstandDaemon
@testable import GrandstandIngest
@testable import GrandstandOperations
@testable import GrandstandServices
@testable import GrandstandServing
@testable import GrandstandStreamer

/// Recording a live channel on an in-process daemon fed with the sample stream as the ingest
/// would feed it: start over the management API, stop, then the fan listener serves the TS
/// (whole and by range) and a VOD playlist that ffprobe reads end to end.
@Suite(.serialized) struct RecordTests {
    final class Live {
        let running: ManagementAPITests.Running
        let fan: HTTPClient
        let bytes: [UInt8]
        var offset = 0
        var time: Int64 = 1_700_000_000_000_000_000
        let channel = Channel(id: "cam", name: "Cam", kind: .video, group: nil, port: 5000, fec: .none, origin: .config)

        init() throws {
            running = try ManagementAPITests.Running()
            fan = HTTPClient(HTTPEndpoint(host: "127.0.0.1", port: try #require(running.daemon.status?.fan.port)))
            bytes = Array(try Data(contentsOf: URL(fileURLWithPath: SendEndToEndTests.sample)))
            running.daemon.gateway.handle([.channelsChanged([.added(channel)])])
        }

        /// Feeds datagrams (7 TS packets) until `condition` holds or the sample ends.
        func feed(until condition: () -> Bool) {
            while offset < bytes.count, !condition() {
                let end = min(offset + 7 * 188, bytes.count)
                running.daemon.gateway.handle([.transportStream(channelID: "cam", packets: bytes[offset..<end], timestampNanoseconds: time)])
                offset = end
                time += 1_000_000
            }
        }

        func records() throws -> [JSONValue] {
            guard case .array(let list)? = try JSONParser.parse(try running.call("GET", "/api/v1/records").body)["records"] else { return [] }
            return list
        }

        func record(_ name: String) throws -> JSONValue? { try records().first { $0["name"] == .string(name) } }
    }

    @Test func recordingDownloadsAndPlays() throws {
        let live = try Live()
        live.feed { live.running.daemon.gateway.videoChannel("cam")?.summary.live == true }
        let started = try live.running.call("POST", "/api/v1/records", body: #"{"name":"match-1","channel":"cam"}"#)
        #expect(started.status == 201)
        let startedState = try JSONParser.parse(started.body)["state"]
        #expect(startedState == .string("recording"))
        let early = try live.fan.get("/records/match-1.ts")
        #expect(early.status == 409)
        // Fans' list leaves out what is still recording.
        #expect(try JSONParser.parse(try live.fan.get("/records.json").body)["records"] == .array([]))
        // Half the rest of the sample, a round of the writer (what its thread does every 100 ms),
        // then the other half and another round: the file grows by appends.
        let recorder = live.running.daemon.services.recorder
        let half = live.offset + (live.bytes.count - live.offset) / 2
        live.feed { live.offset >= half }
        recorder.flush()
        let firstHalf = try live.record("match-1")?["bytes"]
        #expect(firstHalf != nil && firstHalf != .number(0))
        live.feed { false }
        recorder.flush()
        #expect(try live.record("match-1")?["bytes"] != firstHalf)

        let stopped = try live.running.call("POST", "/api/v1/records/stop", body: #"{"name":"match-1"}"#)
        #expect(stopped.status == 200)
        let record = try #require(try live.record("match-1"))
        #expect(record["state"] == .string("stopped"))
        #expect(record["download"] == .string("/records/match-1.ts"))
        let fanList = try live.fan.get("/records.json")
        #expect(fanList.status == 200 && fanList.headers["cache-control"] == "no-cache")
        #expect(try JSONParser.parse(fanList.body)["records"] == .array([record]))
        guard case .number(let segments)? = record["segments"], case .number(let size)? = record["bytes"],
              case .number(let duration)? = record["durationSeconds"] else { Issue.record("no counts: \(record)"); return }
        #expect(segments >= 4)
        #expect(duration >= 8)

        // The download is the file on disk; ranges come from it too.
        let ts = try live.fan.get("/records/match-1.ts")
        #expect(ts.status == 200)
        #expect(ts.body.count == Int(size))
        #expect(ts.body.first == 0x47 && ts.body.count % 188 == 0)
        let ranged = try live.fan.get("/records/match-1.ts", headers: [("Range", "bytes=188-375")])
        #expect(ranged.status == 206)
        #expect(ranged.body == Array(ts.body[188..<376]))

        // The VOD playlist lists every segment as a byte range of the TS.
        let playlist = try live.fan.get("/records/match-1.m3u8")
        #expect(playlist.status == 200)
        let parsed = try #require(VODPlaylist.segments(playlist.text))
        #expect(parsed.count == Int(segments))
        #expect(parsed.last?.byteRange?.upperBound == Int(size))
        #expect(playlist.text.hasSuffix("#EXT-X-ENDLIST\n"))

        // A real player reads it end to end over HTTP.
        let port = try #require(live.running.daemon.status?.fan.port)
        let probe = try Self.tool("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0",
                                                       "http://127.0.0.1:\(port)/records/match-1.m3u8"])
        #expect(probe.status == 0, "\(probe.stderr)")
        let probed = try #require(Double(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "\(probe)")
        #expect(abs(probed - duration) < 1.0, "ffprobe \(probed) s, playlist \(duration) s")
        let decode = try Self.tool("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-i", "http://127.0.0.1:\(port)/records/match-1.m3u8",
                                                       "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")

        // A recording is a timeline clip (no content cache needed): byte ranges of its TS, cut.
        let running = try live.running.call("POST", "/api/v1/records", body: #"{"name":"still-running","channel":"cam"}"#)
        #expect(running.status == 201)
        let malformed = try live.running.call("POST", "/api/v1/timelines", body: #"{"id":"bad","clips":[{"record":"match-1","item":"x"},{"record":"../x"}]}"#)
        #expect(malformed.status == 400)
        #expect(malformed.text.contains("$.clips[0].record: give one of") && malformed.text.contains("$.clips[1].record"), "\(malformed.text)")
        let refused = try live.running.call("POST", "/api/v1/timelines", body: #"{"id":"bad","clips":[{"record":"still-running"},{"record":"nope"}]}"#)
        #expect(refused.status == 400)
        #expect(refused.text.contains("still running") && refused.text.contains("no recording nope"), "\(refused.text)")
        let created = try live.running.call("POST", "/api/v1/timelines", body: #"{"id":"highlights","clips":[{"record":"match-1","begin":2,"end":6}]}"#)
        #expect(created.status == 201, "\(created.text)")
        let timeline = try live.fan.get("/timelines/highlights.m3u8")
        #expect(timeline.status == 200)
        #expect(timeline.text.contains("/records/match-1.ts") && timeline.text.contains("#EXT-X-BYTERANGE:"), "\(timeline.text)")
        let clipURL = "http://127.0.0.1:\(port)/timelines/highlights.m3u8"
        let clipProbe = try Self.tool("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", clipURL])
        let clipSeconds = try #require(Double(clipProbe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "\(clipProbe)")
        #expect(clipSeconds >= 3.5 && clipSeconds <= 8.5, "\(clipSeconds) s for a 2–6 s cut at segment boundaries")
        let clipDecode = try Self.tool("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-i", clipURL, "-f", "null", "-"])
        #expect(clipDecode.status == 0 && clipDecode.stderr.isEmpty, "\(clipDecode.stderr)")
    }

    @Test func channelGoneFailsTheRecordingAndNamesAreChecked() throws {
        let live = try Live()
        live.feed { live.running.daemon.gateway.videoChannel("cam")?.summary.live == true }
        for bad in ["../etc", ".hidden", "a/b", "", String(repeating: "x", count: 65)] {
            let body = JSONValue.object([("name", .string(bad)), ("channel", .string("cam"))]).encoded
            let response = try live.running.call("POST", "/api/v1/records", body: body)
            #expect(response.status == 400, "\(bad)")
        }
        let missing = try live.running.call("POST", "/api/v1/records", body: #"{"name":"x","channel":"nope"}"#)
        #expect(missing.status == 404)
        let gone = try live.running.call("POST", "/api/v1/records", body: #"{"name":"gone","channel":"cam"}"#)
        #expect(gone.status == 201)
        let twice = try live.running.call("POST", "/api/v1/records", body: #"{"name":"gone","channel":"cam"}"#)
        #expect(twice.status == 409)
        // Gone without a SAP deletion (timed out): not the stream's end, so the recording fails.
        live.running.daemon.gateway.handle([.channelsChanged([.removed(live.channel, reason: .timeout)])])
        live.running.daemon.services.recorder.flush()   // the writer's next round notices
        #expect(try live.record("gone")?["state"] == .string("failed"))
        let reason = try live.record("gone")?["reason"]
        #expect(reason == .string("channel-gone"))
        let deleted = try live.running.call("DELETE", "/api/v1/records?name=gone")
        #expect(deleted.status == 204)
        let left = try live.records()
        #expect(left.isEmpty)
        let table = ManagementText.records(.object([("records", .array([.object([("name", .string("r")), ("channel", .string("cam")),
                                                                             ("state", .string("failed")), ("reason", .string("disk-full"))])]))]))
        #expect(table.contains("failed: disk-full") && table.contains("NAME"))
    }

    static func tool(_ path: String, _ arguments: [String], timeout: Double = 60) throws -> ToolResult {
        try runTool(path, arguments, timeout: timeout)
    }
}
