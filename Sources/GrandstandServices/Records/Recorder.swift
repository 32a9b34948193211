import GrandstandCore
import GrandstandRuntime
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import GrandstandOperations
import GrandstandServing

/// Records live video channels to MPEG-TS files: subscribes to a channel's SegmentTap, appends
/// each completed segment on its own thread, and on stop writes a VOD playlist of byte ranges
/// into the file. A recording fails (and keeps what it has) when a write fails (disk full) or
/// the channel leaves. docs/records.md.
final class Recorder: Sendable {
    /// A recording as listed and answered.
    struct Record: Sendable {
        let name: String
        let channel: String
        var state: RecordState
        let startedAtNanoseconds: Int64
        var stoppedAtNanoseconds: Int64?
        var segments: [VODSegment] = []
        var bytes = 0

        init(name: String, channel: String, state: RecordState, startedAt: Int64) {
            self.name = name
            self.channel = channel
            self.state = state
            startedAtNanoseconds = startedAt
        }
    }

    /// A running recording's file and the channel it taps (weak: a dropped channel ends it).
    private struct Writer {
        let file: RecordFile
        weak var source: VideoChannel?
    }

    let store: RecordStore
    private let gateway: Gateway
    private let events: EventLog
    private let records: Mutex<[String: Record]>
    /// The running recordings' files. Held for every write and every finish (the writer thread
    /// and stop requests), so those follow each other; taken before `records` when both are.
    private let writing = Mutex<[String: Writer]>([:])
    private let thread = Mutex<ServiceThread?>(nil)
    private let clock: any Clock

    init(store: RecordStore, gateway: Gateway, events: EventLog, clock: any Clock = SystemClock()) {
        self.store = store
        self.clock = clock
        self.gateway = gateway
        self.events = events
        var loaded: [String: Record] = [:]
        for name in store.storedNames() {
            if let record = Self.loadMetadata(store, name) { loaded[name] = record }
        }
        records = Mutex(loaded)
    }

    /// Starts the writer thread (`recorder`): every 100 ms it appends what the taps collected.
    func start() throws(RuntimeError) {
        try thread.withLock { (thread: inout ServiceThread?) throws(RuntimeError) in
            thread = try ServiceThread(name: "recorder") { [self] stop in
                while !clock.wait(nanoseconds: 100_000_000, or: stop) { flush() }
            }
        }
    }

    /// Stops the thread; recordings still running are stopped and finalized.
    func stop() {
        thread.withLock { thread in defer { thread = nil }; return thread }?.stop()
        for name in records.withLock({ $0.values.filter { $0.state == .recording }.map(\.name) }) { _ = try? stopRecording(name) }
    }

    // MARK: Requests

    func startRecording(name: String, channel: String) throws(RecordError) -> Record {
        if let problem = RecordName.problem(name) { throw RecordError("record \(name)", errno: EINVAL, reason: problem) }
        guard let video = gateway.videoChannel(channel), video.removedAtNanoseconds == nil else {
            throw RecordError("record \(name)", errno: ENOENT, reason: "no live video channel \"\(channel)\"")
        }
        try store.prepare()
        let record = Record(name: name, channel: channel, state: .recording, startedAt: clock.wallNanoseconds())
        // Under `writing`: every recording is added there, so the check and the insert are one step.
        let failure = writing.withLock { writers -> RecordError? in
            guard records.withLock({ $0[name] == nil }) else {
                return RecordError("record \(name)", errno: EEXIST, reason: "a recording named \"\(name)\" exists")
            }
            let file: RecordFile
            do throws(RecordError) {
                file = try RecordFile(path: store.tsPath(name))
            } catch {
                return error
            }
            writers[name] = Writer(file: file, source: video)
            records.withLock { $0[name] = record }
            return nil
        }
        if let failure { throw failure }
        video.tap.subscribe(name)
        events.record(GatewayEvent(.recordStarted, "recording \(name) of channel \(channel) started",
                                   fields: [("RECORD", name), ("CHANNEL", channel)]))
        return record
    }

    @discardableResult
    func stopRecording(_ name: String) throws(RecordError) -> Record {
        guard let record = records.withLock({ $0[name] }) else { throw RecordError("stop \(name)", errno: ENOENT, reason: "no recording named \"\(name)\"") }
        guard record.state == .recording else { return record }
        writing.withLock { writers in
            drain(only: name, &writers)
            finish(name, .stopped, &writers)
        }
        return records.withLock { $0[name] } ?? record
    }

    /// Appends what the taps collected now (what the writer thread does every 100 ms), and
    /// fails recordings whose channel is gone.
    func flush() { writing.withLock { drain(only: nil, &$0) } }

    /// Removes a recording that is not running, and its files.
    func delete(_ name: String) throws(RecordError) {
        let failure = records.withLock { records -> RecordError? in
            guard let record = records[name] else { return RecordError("delete \(name)", errno: ENOENT, reason: "no recording named \"\(name)\"") }
            guard record.state != .recording else { return RecordError("delete \(name)", errno: EBUSY, reason: "stop it first") }
            records[name] = nil
            return nil
        }
        if let failure { throw failure }
        for path in [store.tsPath(name), store.playlistPath(name), store.metadataPath(name)] { unlink(path) }
    }

    var list: [Record] { records.withLock { $0.values.sorted { $0.startedAtNanoseconds < $1.startedAtNanoseconds } } }

    /// The list as answered, read while no segment is being written.
    var listJSON: JSONValue { writing.withLock { _ in .object([("records", .array(list.map(Self.json)))]) } }
    func record(_ name: String) -> Record? { records.withLock { $0[name] } }

    // MARK: The writer thread

    /// Appends queued segments to their files. Caller holds `writing` (`writers`).
    private func drain(only: String?, _ writers: inout [String: Writer]) {
        let active = records.withLock { records in
            records.values.filter { $0.state == .recording && (only == nil || $0.name == only) }.map { ($0.name, $0.channel) }
        }
        for (name, channel) in active {
            guard let writer = writers[name], let source = writer.source else { finish(name, .failed("channel gone"), &writers); continue }
            var failed = false
            for segment in source.tap.take(name) {
                do throws(RecordError) {
                    let offset = writer.file.size
                    try writer.file.append(segment.bytes)
                    let size = writer.file.size
                    records.withLock { records in
                        guard var record = records[name] else { return }
                        record.segments.append(VODSegment(uri: "\(name).ts", durationSeconds: segment.durationSeconds,
                                                          byteRange: offset..<offset + segment.bytes.count,
                                                          discontinuity: segment.discontinuity && !record.segments.isEmpty))
                        record.bytes = size
                        records[name] = record
                    }
                } catch {
                    finish(name, .failed(error.stateReason), &writers)
                    failed = true
                    break
                }
            }
            // The channel left the list, or was replaced by a new announcement.
            if !failed, source.removedAtNanoseconds != nil || gateway.videoChannel(channel) !== source {
                finish(name, .failed("channel gone"), &writers)
            }
        }
    }

    /// Ends a recording: unsubscribes, writes the playlist and metadata, logs the outcome.
    /// Caller holds `writing` (`writers`).
    private func finish(_ name: String, _ state: RecordState, _ writers: inout [String: Writer]) {
        let now = clock.wallNanoseconds()
        let ended = records.withLock { records -> Record? in
            guard var record = records[name], record.state == .recording else { return nil }
            record.state = state
            record.stoppedAtNanoseconds = now
            records[name] = record
            return record
        }
        guard let record = ended else { return }
        if let writer = writers.removeValue(forKey: name) {
            writer.source?.tap.unsubscribe(name)
            writer.file.sync()
        }
        var note = ""
        do {
            try AtomicFile.write(Array(VODPlaylist.render(record.segments).utf8), to: store.playlistPath(name), mode: 0o644)
            try AtomicFile.write(Array(Self.json(record).encoded.utf8), to: store.metadataPath(name), mode: 0o644)
        } catch {
            note = " (files not finalized: \(error))"
        }
        switch state {
        case .failed(let reason):
            events.record(GatewayEvent(.recordFailed, "recording \(name) of channel \(record.channel) failed: \(reason)\(note)",
                                       fields: [("RECORD", name), ("CHANNEL", record.channel), ("REASON", reason)]))
        default:
            events.record(GatewayEvent(.recordStopped, "recording \(name) of channel \(record.channel) stopped: \(record.segments.count) segments, \(record.bytes) bytes\(note)",
                                       fields: [("RECORD", name), ("CHANNEL", record.channel), ("BYTES", String(record.bytes)),
                                                ("SEGMENTS", String(record.segments.count))]))
        }
    }

    // MARK: JSON (list answers and the metadata file)

    static func json(_ record: Record) -> JSONValue {
        var reason: JSONValue = .null
        if case .failed(let why) = record.state { reason = .string(why) }
        let served = record.state != .recording
        return .object([
            ("name", .string(record.name)), ("channel", .string(record.channel)), ("state", .string(record.state.name)),
            ("reason", reason),
            ("startedAt", .string(RFC3339.format(nanoseconds: record.startedAtNanoseconds, fractionDigits: 3))),
            ("stoppedAt", record.stoppedAtNanoseconds.map { .string(RFC3339.format(nanoseconds: $0, fractionDigits: 3)) } ?? .null),
            ("bytes", .number(Double(record.bytes))), ("segments", .number(Double(record.segments.count))),
            ("durationSeconds", .number(record.segments.reduce(0) { $0 + $1.durationSeconds })),
            ("download", served ? .string("/records/\(record.name).ts") : .null),
            ("playlist", served ? .string("/records/\(record.name).m3u8") : .null),
        ])
    }

    /// A recording left by an earlier run, from its metadata and playlist.
    private static func loadMetadata(_ store: RecordStore, _ name: String) -> Record? {
        guard let bytes = try? AtomicFile.read(store.metadataPath(name)), let document = try? JSONParser.parse(bytes),
              case .string(let channel)? = document["channel"], case .string(let stateName)? = document["state"],
              let playlist = try? AtomicFile.read(store.playlistPath(name), limit: 16 << 20),
              let segments = VODPlaylist.segments(String(decoding: playlist, as: UTF8.self)) else { return nil }
        var state = RecordState.stopped
        if stateName != "stopped" {
            var why = "interrupted"
            if case .string(let reason)? = document["reason"] { why = reason }
            state = .failed(why)
        }
        var record = Record(name: name, channel: channel, state: state, startedAt: 0)
        record.segments = segments
        if case .number(let size)? = document["bytes"] { record.bytes = Int(size) }
        return record
    }
}
