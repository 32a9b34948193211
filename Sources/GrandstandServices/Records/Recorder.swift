import GrandstandCore
import GrandstandRuntime
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import GrandstandOperations
import GrandstandServing

/// Records live video channels to MPEG-TS files, crash-safe from the first byte (docs/records.md):
/// metadata is stored when a recording starts; each completed segment the channel's SegmentTap
/// hands over is appended on the recorder's thread, synced, then journaled; the end (stop
/// request, the stream's end, disk full, the channel gone) writes the VOD playlist and the
/// final metadata. At start, recordings a crash or power loss cut are listed `failed:
/// interrupted` with their playable part. Channels in `records.autoRecord` are recorded when
/// they appear.
final class Recorder: Sendable {
    typealias Record = Recording

    /// A running recording's files and the channel it taps (weak: a dropped channel ends it).
    private struct Writer {
        let file: RecordFile
        let journal: RecordFile
        weak var source: VideoChannel?
    }

    /// The last channel instance of each automatic id a recording was started for.
    private struct AutoSeen { weak var channel: VideoChannel? }

    let store: RecordStore
    private let gateway: Gateway
    private let events: EventLog
    private let records: Mutex<[String: Record]>
    /// The running recordings' files. Held for every write and every finish (the writer thread
    /// and stop requests), so those follow each other; taken before `records` when both are.
    private let writing = Mutex<[String: Writer]>([:])
    private let thread = Mutex<ServiceThread?>(nil)
    private let clock: any Clock
    private let autoRecord: [String]
    private let autoSeen = Mutex<[String: AutoSeen]>([:])

    init(store: RecordStore, gateway: Gateway, events: EventLog, clock: any Clock = SystemClock(), autoRecord: [String] = []) {
        self.store = store
        self.clock = clock
        self.gateway = gateway
        self.events = events
        self.autoRecord = autoRecord
        var loaded: [String: Record] = [:]
        let now = clock.wallNanoseconds()
        for name in store.storedNames() {
            guard let (record, interrupted) = store.load(name, now: now) else { continue }
            loaded[name] = record
            if interrupted {
                let channel = record.channel.isEmpty ? "-" : record.channel
                events.record(GatewayEvent(.recordInterrupted, "recording \(name) of channel \(channel) was interrupted (crash or power loss): "
                                           + "kept \(record.segments.count) segments, \(record.bytes) bytes, \(Self.seconds(record.durationSeconds)) s",
                                           fields: [("RECORD", name), ("CHANNEL", channel), ("BYTES", String(record.bytes)),
                                                    ("SEGMENTS", String(record.segments.count))]))
            }
        }
        records = Mutex(loaded)
    }

    /// Starts the writer thread (`recorder`): every 100 ms it appends what the taps collected
    /// and starts the automatic recordings of channels that appeared.
    func start() throws(RuntimeError) {
        try thread.withLock { (thread: inout ServiceThread?) throws(RuntimeError) in
            thread = try ServiceThread(name: "recorder") { [self] stop in
                while !clock.wait(nanoseconds: 100_000_000, or: stop) {
                    flush()
                    startAutomaticRecordings()
                }
            }
        }
    }

    /// Stops the thread; recordings still running are stopped and finalized.
    func stop() {
        thread.withLock { thread in defer { thread = nil }; return thread }?.stop()
        for name in records.withLock({ $0.values.filter { $0.state == .recording }.map(\.name) }) { _ = try? stopRecording(name) }
    }

    /// Stops the thread and leaves running recordings exactly as they are on disk: what a crash
    /// leaves (tests of the recovery).
    func halt() {
        thread.withLock { thread in defer { thread = nil }; return thread }?.stop()
    }

    // MARK: Requests

    /// Starts recording `channel` as `name`. Refused (EEXIST, 409) when the name is listed or any
    /// file of it is on disk: a name is never reused over an old file. The metadata is stored
    /// before the first byte of media.
    func startRecording(name: String, channel: String, automatic: Bool = false) throws(RecordError) -> Record {
        if let problem = RecordName.problem(name) { throw RecordError("record \(name)", errno: EINVAL, reason: problem) }
        guard let video = gateway.videoChannel(channel), video.removedAtNanoseconds == nil else {
            throw RecordError("record \(name)", errno: ENOENT, reason: "no live video channel \"\(channel)\"")
        }
        try store.prepare()
        let record = Record(name: name, channel: channel, state: .recording, startedAt: clock.wallNanoseconds(), automatic: automatic)
        // Under `writing`: every recording is added there, so the check and the insert are one step.
        let failure = writing.withLock { writers -> RecordError? in
            guard records.withLock({ $0[name] == nil }) else {
                return RecordError("record \(name)", errno: EEXIST, reason: "a recording named \"\(name)\" exists")
            }
            guard !store.exists(name) else {
                return RecordError("record \(name)", errno: EEXIST, reason: "files of a recording named \"\(name)\" are on disk; choose another name")
            }
            do throws(RecordError) {
                try store.writeMetadata(record)
                let file = try RecordFile(creating: store.tsPath(name))
                let journal = try RecordFile(creating: store.journalPath(name))
                try store.syncDirectory()   // the new files' names, so synced data is never nameless after a power cut
                writers[name] = Writer(file: file, journal: journal, source: video)
            } catch {
                store.remove(name)
                return error
            }
            records.withLock { $0[name] = record }
            return nil
        }
        if let failure { throw failure }
        video.tap.subscribe(name)
        events.record(GatewayEvent(.recordStarted, "recording \(name) of channel \(channel) started\(automatic ? " (automatic)" : "")",
                                   fields: [("RECORD", name), ("CHANNEL", channel), ("AUTOMATIC", automatic ? "1" : "0")]))
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
    /// ends recordings whose channel is gone.
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
        store.remove(name)
    }

    var list: [Record] { records.withLock { $0.values.sorted { ($0.startedAtNanoseconds, $0.name) < ($1.startedAtNanoseconds, $1.name) } } }

    /// The list as answered, read while no segment is being written.
    var listJSON: JSONValue { writing.withLock { _ in .object([("records", .array(list.map(\.json)))]) } }
    func record(_ name: String) -> Record? { records.withLock { $0[name] } }

    static func json(_ record: Record) -> JSONValue { record.json }

    // MARK: Automatic recordings

    /// Starts a recording of each `records.autoRecord` channel that appeared (a new channel
    /// instance: first announcement, or back after it left) and that nothing records yet.
    func startAutomaticRecordings() {
        for id in autoRecord {
            guard let video = gateway.videoChannel(id), video.removedAtNanoseconds == nil else { continue }
            let isNew = autoSeen.withLock { seen -> Bool in
                guard seen[id]?.channel !== video else { return false }
                seen[id] = AutoSeen(channel: video)
                return true
            }
            guard isNew else { continue }
            let tapped = writing.withLock { writers in writers.values.contains { $0.source === video } }
            guard !tapped else { continue }
            let name = RecordName.automatic(channel: id, wallNanoseconds: clock.wallNanoseconds()) { candidate in
                records.withLock { $0[candidate] != nil } || store.exists(candidate)
            }
            do throws(RecordError) {
                _ = try startRecording(name: name, channel: id, automatic: true)
            } catch {
                events.record(GatewayEvent(.recordFailed, "automatic recording of channel \(id) could not start: \(error)",
                                           fields: [("RECORD", name), ("CHANNEL", id), ("REASON", error.stateReason),
                                                    ("ERRNO", String(error.errno)), ("OPERATION", error.operation)]))
            }
        }
    }

    // MARK: The writer thread

    /// Appends queued segments to their files, syncs them, journals them. Caller holds `writing`.
    private func drain(only: String?, _ writers: inout [String: Writer]) {
        let active = records.withLock { records in
            records.values.filter { $0.state == .recording && (only == nil || $0.name == only) }.map { ($0.name, $0.channel) }
        }
        for (name, channel) in active {
            guard let writer = writers[name], let source = writer.source else {
                finish(name, .failed(RecordState.channelGone), &writers)
                continue
            }
            // Read before taking: a channel that ended offered its last segment before saying so.
            let ended = source.removedAtNanoseconds != nil || gateway.videoChannel(channel) !== source
            let segments = source.tap.take(name)
            if !segments.isEmpty {
                do throws(RecordError) {
                    try append(segments, name: name, writer)
                } catch {
                    finish(name, .failed(error.stateReason), &writers, error: error)
                    continue
                }
            }
            if ended { finish(name, RecordState.ending(removal: source.removalReason), &writers) }
        }
    }

    /// Appends `segments` to the TS, syncs it, then journals them (synced): the journal never
    /// names bytes that are not on disk. A failure cuts both files back to where they were.
    private func append(_ segments: [SegmentTap.Segment], name: String, _ writer: Writer) throws(RecordError) {
        let fileStart = writer.file.size, journalStart = writer.journal.size
        var lines = "", offset = fileStart
        do throws(RecordError) {
            for segment in segments {
                try writer.file.append(segment.bytes)
                lines += RecordJournal.line(RecordJournal.Entry(offset: offset, length: segment.bytes.count,
                                                                durationSeconds: segment.durationSeconds, discontinuity: segment.discontinuity))
                offset += segment.bytes.count
            }
            try writer.file.sync()
            try writer.journal.append(Array(lines.utf8))
            try writer.journal.sync()
        } catch {
            writer.file.truncate(to: fileStart)
            writer.journal.truncate(to: journalStart)
            throw error
        }
        records.withLock { records in
            guard var record = records[name] else { return }
            for segment in segments {
                record.append(length: segment.bytes.count, durationSeconds: segment.durationSeconds, discontinuity: segment.discontinuity)
            }
            records[name] = record
        }
    }

    /// Ends a recording: unsubscribes, writes the playlist and metadata, drops the journal, logs
    /// the outcome. Caller holds `writing` (`writers`).
    private func finish(_ name: String, _ state: RecordState, _ writers: inout [String: Writer], error: RecordError? = nil) {
        let now = clock.wallNanoseconds()
        let ended = records.withLock { records -> Record? in
            guard var record = records[name], record.end(state, at: now) else { return nil }
            records[name] = record
            return record
        }
        guard let record = ended else { return }
        if let writer = writers.removeValue(forKey: name) { writer.source?.tap.unsubscribe(name) }
        var note = ""
        do throws(RecordError) {
            try store.writePlaylist(record)
            try store.writeMetadata(record)
            unlink(store.journalPath(name))
        } catch {
            note = " (files not finalized: \(error); listed as interrupted after a restart)"
        }
        let summary = "\(record.segments.count) segments, \(record.bytes) bytes, \(Self.seconds(record.durationSeconds)) s"
        var fields: [(name: String, value: String)] = [("RECORD", name), ("CHANNEL", record.channel), ("BYTES", String(record.bytes)),
                                                       ("SEGMENTS", String(record.segments.count))]
        switch state {
        case .failed(let reason):
            fields.append(("REASON", reason))
            if let error { fields += [("ERRNO", String(error.errno)), ("OPERATION", error.operation)] }
            let cause = error.map { reason == $0.description ? "" : " (\($0))" } ?? ""
            events.record(GatewayEvent(.recordFailed, "recording \(name) of channel \(record.channel) failed: \(reason)\(cause); kept \(summary)\(note)",
                                       fields: fields))
        case .completed:
            events.record(GatewayEvent(.recordCompleted, "recording \(name) of channel \(record.channel) completed (the stream ended): \(summary)\(note)",
                                       fields: fields))
        default:
            events.record(GatewayEvent(.recordStopped, "recording \(name) of channel \(record.channel) stopped: \(summary)\(note)",
                                       fields: fields))
        }
    }

    private static func seconds(_ value: Double) -> String { String(Double(Int((value * 10).rounded())) / 10) }
}
