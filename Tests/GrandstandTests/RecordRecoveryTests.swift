import Foundation
import GrandstandCore
import GrandstandRuntime
import TestSupport
import Testing
@testable import GrandstandOperations
@testable import GrandstandServices
@testable import GrandstandServing

/// The recorder on a ManualClock, fed the sample stream in process (docs/records.md "Crash
/// safety"): metadata before the first byte, a recorder abandoned mid-recording (what a kill
/// leaves) comes back `failed: interrupted` with its playable part, names are never reused over
/// old files, the stream's end completes a recording, and `records.autoRecord` starts one each
/// time the channel appears. The writer's rounds are the clock's steps (advance, then
/// waitForSleepers), never a pause.
@Suite(.serialized) struct RecordRecoveryTests {
    final class Bench {
        let clock = ManualClock(wall: 1_764_197_400_000_000_000)   // 2025-11-26T22:50:00Z
        let directory = NSTemporaryDirectory() + "gs-records-\(UUID().uuidString)"
        let gateway: Gateway
        let events = EventLog(stderrOnly: true)
        let channel = Channel(id: "cam", name: "Cam", kind: .video, group: nil, port: 5000, fec: .none, origin: .config)
        let bytes: [UInt8]
        var offset = 0
        var time: Int64 = 1_700_000_000_000_000_000

        init() throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            var settings = Gateway.Settings()
            settings.videoHealth = false
            gateway = Gateway(settings: settings, clock: clock)
            bytes = Array(try Data(contentsOf: URL(fileURLWithPath: SendEndToEndTests.sample)))
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }

        func recorder(autoRecord: [String] = []) -> Recorder {
            Recorder(store: RecordStore(stateDirectory: directory), gateway: gateway, events: events, clock: clock, autoRecord: autoRecord)
        }

        func announce() { gateway.handle([.channelsChanged([.added(channel)])]) }

        /// Feeds 7-packet datagrams until `condition` holds or the sample ends.
        func feed(until condition: () -> Bool) {
            while offset < bytes.count, !condition() {
                let end = min(offset + 7 * 188, bytes.count)
                gateway.handle([.transportStream(channelID: "cam", packets: bytes[offset..<end], timestampNanoseconds: time)])
                offset = end
                time += 1_000_000
            }
        }

        /// One round of the recorder's thread: 100 ms pass, it works and parks again.
        func round() {
            clock.advance(by: 100_000_000)
            #expect(clock.waitForSleepers(1))
        }

        func file(_ name: String) -> [UInt8] { (try? Array(Data(contentsOf: URL(fileURLWithPath: directory + "/records/" + name)))) ?? [] }
        func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: directory + "/records/" + name) }
    }

    @Test func aRecordingCutByACrashIsListedInterruptedWithItsPlayablePart() throws {
        let bench = try Bench()
        bench.announce()
        bench.feed { bench.gateway.videoChannel("cam")?.summary.live == true }
        let first = bench.recorder()
        try first.start()
        #expect(bench.clock.waitForSleepers(1))
        _ = try first.startRecording(name: "match", channel: "cam")
        // Metadata before the first byte of media.
        let stored = try JSONParser.parse(bench.file("match.json"))
        #expect(stored["state"] == .string("recording") && stored["channel"] == .string("cam"))
        #expect(stored["startedAt"] == .string("2025-11-26T22:50:00.000Z"))
        #expect(bench.exists("match.ts") && bench.file("match.ts").isEmpty)

        // About 7 s of stream, written and journaled by the writer's rounds.
        let target = bench.offset + 188 * 7 * 600
        bench.feed { bench.offset >= target }
        bench.clock.stepWall(by: 4_000_000_000)
        bench.round()
        let running = try #require(first.record("match"))
        #expect(running.segments.count >= 1 && running.bytes > 0)
        let journal = RecordJournal.parse(bench.file("match.segments"))
        #expect(journal.entries.count == running.segments.count && journal.entries.last?.end == running.bytes)

        // The crash: the process ends here. What it leaves: a segment half appended (not yet
        // journaled) and a torn journal line. The abandoned recorder is never stopped.
        first.halt()
        let half = Array(bench.bytes[0..<(188 * 700 + 57)])
        let ts = try FileHandle(forWritingTo: URL(fileURLWithPath: bench.directory + "/records/match.ts"))
        try ts.seekToEnd()
        try ts.write(contentsOf: Data(half))
        try ts.close()
        let journalFile = try FileHandle(forWritingTo: URL(fileURLWithPath: bench.directory + "/records/match.segments"))
        try journalFile.seekToEnd()
        try journalFile.write(contentsOf: Data("\(running.bytes) 1316".utf8))
        try journalFile.close()

        bench.clock.stepWall(by: 60_000_000_000)
        let second = bench.recorder()
        let record = try #require(second.record("match"))
        #expect(record.state == .failed("interrupted"))
        #expect(record.startedAtNanoseconds == 1_764_197_400_000_000_000)
        #expect(record.stoppedAtNanoseconds == 1_764_197_464_100_000_000)
        // The journaled segments, plus the half segment measured by its PCRs, cut to whole packets.
        #expect(record.segments.count == running.segments.count + 1)
        #expect(record.bytes == running.bytes + 188 * 700)
        #expect(bench.file("match.ts").count == record.bytes)
        #expect(record.segments.last?.durationSeconds ?? 0 > 0)
        #expect(!bench.exists("match.segments"))
        #expect(bench.events.hub.recentKinds.contains("record-interrupted"))
        let playlist = try #require(VODPlaylist.segments(String(decoding: bench.file("match.m3u8"), as: UTF8.self)))
        #expect(playlist.last?.byteRange?.upperBound == record.bytes)
        #expect(try JSONParser.parse(bench.file("match.json"))["state"] == .string("failed"))

        // Listed the same after another restart (stored as failed now, not recovered again).
        let third = bench.recorder()
        #expect(third.record("match") == record)
        #expect(bench.events.hub.recentKinds.filter { $0 == "record-interrupted" }.count == 1)

        // A name is never reused over an old file: refused, listed or not.
        #expect(thrownError(RecordError.self) { try third.startRecording(name: "match", channel: "cam") }?.errno == EEXIST)
        try Data([0x47]).write(to: URL(fileURLWithPath: bench.directory + "/records/stray.m3u8"))
        let stray = thrownError(RecordError.self) { try third.startRecording(name: "stray", channel: "cam") }
        #expect(stray?.errno == EEXIST && stray?.description.contains("on disk") == true)
    }

    @Test func aTSLeftWithoutMetadataIsAdopted() throws {
        let bench = try Bench()
        try FileManager.default.createDirectory(atPath: bench.directory + "/records", withIntermediateDirectories: true)
        // What an older version left: a TS and no metadata, ending mid-packet.
        try Data(bench.bytes[0..<(188 * 3000 + 11)]).write(to: URL(fileURLWithPath: bench.directory + "/records/old.ts"))
        let recorder = bench.recorder()
        let record = try #require(recorder.record("old"))
        #expect(record.state == .failed("interrupted") && record.channel.isEmpty)
        #expect(record.bytes == 188 * 3000 && bench.file("old.ts").count == 188 * 3000)
        #expect(record.durationSeconds > 1)
    }

    @Test func theStreamsEndCompletesAndAutoRecordStartsWhenTheChannelAppears() throws {
        let bench = try Bench()
        let recorder = bench.recorder(autoRecord: ["cam"])
        try recorder.start()
        #expect(bench.clock.waitForSleepers(1))
        bench.round()
        #expect(recorder.list.isEmpty)   // not there yet
        bench.announce()
        bench.round()
        let auto = try #require(recorder.list.first)
        #expect(auto.name == "cam-20251126-225000" && auto.automatic && auto.state == .recording)
        bench.round()
        #expect(recorder.list.count == 1)   // once per appearance

        bench.feed { bench.offset >= 188 * 7 * 1_500 }
        bench.round()
        // A SAP deletion: the stream ended; its last segment is kept and the recording completes.
        bench.gateway.handle([.channelsChanged([.removed(bench.channel, reason: .deleted)])])
        bench.round()
        let done = try #require(recorder.record(auto.name))
        #expect(done.state == .completed)
        #expect(done.bytes == bench.file(auto.name + ".ts").count && done.bytes > 0)
        #expect(bench.events.hub.recentKinds.contains("record-completed"))
        let fed = bench.offset
        #expect(done.bytes >= fed - 188 * 7 * 200, "the last segment is in: \(done.bytes) of \(fed) bytes fed")

        // It comes back: a new automatic recording under a new name (same second: a suffix).
        bench.announce()
        bench.round()
        let names = recorder.list.map(\.name)
        #expect(names == ["cam-20251126-225000", "cam-20251126-225000-2"], "\(names)")
        // A timeout is not the stream's end: channel-gone.
        bench.gateway.handle([.channelsChanged([.removed(bench.channel, reason: .timeout)])])
        bench.round()
        #expect(recorder.record("cam-20251126-225000-2")?.state == .failed("channel-gone"))
        #expect(try ServiceLifecycleTests.stopsWithTimeStandingStill(bench.clock) { recorder.stop() })
    }
}
