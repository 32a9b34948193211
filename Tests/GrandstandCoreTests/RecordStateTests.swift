import Foundation
import GrandstandCore
import TestSupport
import Testing

/// Recordings' pure logic (docs/records.md): states and their transitions, the stored metadata,
/// automatic names, the segment journal and what recovery keeps of a recording a crash cut.
struct RecordStateTests {
    static let start: Int64 = 1_764_197_400_000_000_000   // 2025-11-26T22:50:00Z

    @Test func aRecordingEndsOnceAndTheStreamsEndCompletesIt() {
        var record = Recording(name: "final", channel: "bowl-cam", state: .recording, startedAt: Self.start)
        record.append(length: 188 * 10, durationSeconds: 2, discontinuity: true)
        record.append(length: 188 * 5, durationSeconds: 1.5, discontinuity: false)
        #expect(record.segments.map(\.byteRange) == [0..<1880, 1880..<2820])
        #expect(record.segments.first?.discontinuity == false)   // nothing before the first segment
        #expect(record.durationSeconds == 3.5)
        let ended = record.end(.completed, at: Self.start + 4_000_000_000)
        let again = record.end(.failed(RecordState.diskFull), at: Self.start + 5_000_000_000)
        #expect(ended && !again)
        #expect(record.state == .completed && record.stoppedAtNanoseconds == Self.start + 4_000_000_000)

        #expect(RecordState.ending(removal: .deleted) == .completed)
        #expect(RecordState.ending(removal: .ended) == .completed)
        #expect(RecordState.ending(removal: .timeout) == .failed("channel-gone"))
        #expect(RecordState.ending(removal: nil) == .failed("channel-gone"))
        #expect(RecordState.loaded(name: "recording", reason: nil) == .failed("interrupted"))
        #expect(RecordState.loaded(name: "failed", reason: "disk-full") == .failed("disk-full"))
        #expect(RecordState.loaded(name: "stopped", reason: nil) == .stopped)
    }

    @Test func metadataRoundTripsAndARunningRecordLoadsAsInterrupted() throws {
        var record = Recording(name: "r1", channel: "cam", state: .recording, startedAt: Self.start + 123_000_000, automatic: true)
        let running = record.json
        #expect(running["download"] == .null && running["state"] == .string("recording"))
        let loaded = try #require(Recording.decode(try JSONParser.parse(Array(running.encoded.utf8)), name: "r1"))
        #expect(loaded.state == .failed("interrupted"))
        #expect(loaded.startedAtNanoseconds == Self.start + 123_000_000)
        #expect(loaded.automatic)

        record.append(length: 1880, durationSeconds: 2, discontinuity: false)
        record.end(.failed("disk-full"), at: Self.start + 9_000_000_000)
        let stored = try #require(Recording.decode(try JSONParser.parse(Array(record.json.encoded.utf8)), name: "r1"))
        #expect(stored.state == .failed("disk-full") && stored.bytes == 1880)
        #expect(stored.stoppedAtNanoseconds == Self.start + 9_000_000_000)
        #expect(record.json["download"] == .string("/records/r1.ts"))
        #expect(Recording.decode(.object([("state", .string("stopped"))]), name: "x") == nil)
    }

    @Test func automaticNamesNeverReuseANameAndFitTheLimit() {
        var taken: Set<String> = []
        let first = RecordName.automatic(channel: "bowl-cam", wallNanoseconds: Self.start) { taken.contains($0) }
        #expect(first == "bowl-cam-20251126-225000")
        taken.insert(first)
        let second = RecordName.automatic(channel: "bowl-cam", wallNanoseconds: Self.start) { taken.contains($0) }
        #expect(second == "bowl-cam-20251126-225000-2")
        taken.insert(second)
        #expect(RecordName.automatic(channel: "bowl-cam", wallNanoseconds: Self.start) { taken.contains($0) } == "bowl-cam-20251126-225000-3")
        let long = String(repeating: "a", count: 48)
        let name = RecordName.automatic(channel: long, wallNanoseconds: Self.start) { $0.count <= 64 && !$0.hasSuffix("-7") && $0.hasSuffix("0") }
        #expect(name.count <= 64 && RecordName.problem(name) == nil, "\(name)")
        #expect(RecordName.problem(first) == nil)
    }

    @Test func theJournalKeepsCompleteContiguousLinesOnly() {
        let entries = [RecordJournal.Entry(offset: 0, length: 1880, durationSeconds: 2.002, discontinuity: false),
                       RecordJournal.Entry(offset: 1880, length: 940, durationSeconds: 1, discontinuity: true)]
        let text = entries.map(RecordJournal.line).joined()
        #expect(RecordJournal.line(entries[0]) == "0 1880 2.00200 0\n")
        let whole = RecordJournal.parse(Array(text.utf8))
        #expect(whole.entries == entries && whole.validBytes == text.utf8.count)
        let torn = RecordJournal.parse(Array((text + "2820 94").utf8))
        #expect(torn.entries == entries && torn.validBytes == text.utf8.count)
        let gap = RecordJournal.parse(Array((text + "9999 188 1 0\n").utf8))
        #expect(gap.entries.count == 2)
        #expect(RecordJournal.parse(Array("garbage\n0 188 1 0\n".utf8)).entries.isEmpty)
    }

    @Test func recoveryKeepsJournaledSegmentsAndMeasuresTheRest() throws {
        let entries = [RecordJournal.Entry(offset: 0, length: 1880, durationSeconds: 2, discontinuity: false),
                       RecordJournal.Entry(offset: 1880, length: 1880, durationSeconds: 2, discontinuity: false)]
        // Killed after the journal line: file and journal agree.
        #expect(RecordRecovery.plan(entries: entries, fileSize: 3760) == RecordRecovery.Plan(entries: entries, tail: nil, keptBytes: 3760))
        // Killed mid-segment: the tail up to the last whole packet is measured; 100 torn bytes go.
        let longer = RecordRecovery.plan(entries: entries, fileSize: 3760 + 940 + 100)
        #expect(longer.entries == entries && longer.tail == 3760..<4700 && longer.keptBytes == 3760)
        // Power loss took journaled bytes (not synced by some file system): those segments go.
        let shorter = RecordRecovery.plan(entries: entries, fileSize: 2000)
        #expect(shorter.entries == [entries[0]] && shorter.tail == nil && shorter.keptBytes == 1880)
        let none = RecordRecovery.plan(entries: [], fileSize: 187)
        #expect(none.entries.isEmpty && none.tail == nil && none.keptBytes == 0)
    }

    @Test func pcrSpanMeasuresTransportStreamTime() throws {
        func packet(pid: Int, pcr: Int64?) -> [UInt8] {
            var bytes = [UInt8](repeating: 0xFF, count: 188)
            bytes[0] = 0x47
            bytes[1] = UInt8(pid >> 8)
            bytes[2] = UInt8(pid & 0xFF)
            guard let pcr else { bytes[3] = 0x10; return bytes }
            bytes[3] = 0x30
            bytes[4] = 183
            bytes[5] = 0x10
            bytes[6] = UInt8((pcr >> 25) & 0xFF)
            bytes[7] = UInt8((pcr >> 17) & 0xFF)
            bytes[8] = UInt8((pcr >> 9) & 0xFF)
            bytes[9] = UInt8((pcr >> 1) & 0xFF)
            bytes[10] = UInt8((pcr & 1) << 7) | 0x7E
            return bytes
        }
        let wrapStart: Int64 = (1 << 33) - 45_000
        var stream = packet(pid: 256, pcr: wrapStart) + packet(pid: 257, pcr: 0) + packet(pid: 256, pcr: nil)
        stream += packet(pid: 256, pcr: 45_000)    // across the 33-bit wrap: 1 s later
        stream += packet(pid: 256, pcr: 90_000)
        #expect(TransportStreamTime.pcrSpanSeconds(stream[...]) == 1.5)
        #expect(TransportStreamTime.pcrSpanSeconds(packet(pid: 256, pcr: nil)[...]) == nil)
        #expect(TransportStreamTime.pcrSpanSeconds([0x00] + stream.dropLast()) == nil)   // not packet-aligned
        // The sample stream: 20 s by ffprobe; its PCRs span all but the last frame interval.
        let sample = try Data(contentsOf: Fixtures.directory.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("tools/samples/clean.ts"))
        let seconds = try #require(TransportStreamTime.pcrSpanSeconds(Array(sample)[...]))
        #expect(seconds > 19 && seconds <= 20.1, "\(seconds)")
        let tail = try #require(RecordRecovery.tailSegment(Array(sample)[0..<(188 * 2000)], offset: 188 * 10))
        #expect(tail.offset == 1880 && tail.length == 376_000 && tail.durationSeconds > 0)
    }

    @Test func autoRecordChannelsAreCheckedWithTheirPath() throws {
        let base = #"{"license":{"venueName":"V","contentOwner":"O","appDeveloper":"D"},"records":"#
        let good = try GatewayConfig.decode(Array((base + #"{"autoRecord":["bowl-cam","main"]}}"#).utf8))
        #expect(good.records.autoRecord == ["bowl-cam", "main"])
        let none = try GatewayConfig.decode(Array(#"{"license":{"venueName":"V","contentOwner":"O","appDeveloper":"D"}}"#.utf8))
        #expect(none.records.autoRecord.isEmpty)
        let bad = thrownError(ConfigError.self) {
            try GatewayConfig.decode(Array((base + #"{"autoRecord":["bowl-cam","Bowl Cam",3,"bowl-cam"],"other":1}}"#).utf8))
        }
        let paths = bad?.issues.map(\.path.description) ?? []
        #expect(paths.contains("$.records.autoRecord[1]"), "\(String(describing: bad))")
        #expect(paths.contains("$.records.autoRecord[2]"), "\(String(describing: bad))")
        #expect(paths.contains("$.records.autoRecord[3]"), "\(String(describing: bad))")
        #expect(paths.contains("$.records.other"), "\(String(describing: bad))")
        let notArray = thrownError(ConfigError.self) { try GatewayConfig.decode(Array((base + #"{"autoRecord":"bowl-cam"}}"#).utf8)) }
        #expect(notArray?.issues.map(\.path.description) == ["$.records.autoRecord"])
    }
}
