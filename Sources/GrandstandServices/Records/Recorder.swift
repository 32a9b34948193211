import GrandstandCore
import GrandstandRuntime
#if canImport(Glibc)
import Glibc
#endif
import GrandstandOperations
import GrandstandServing

/// Records live video channels to MPEG-TS files: subscribes to a channel's SegmentTap, appends
/// each completed segment on its own thread, and on stop writes a VOD playlist of byte ranges
/// into the file. A recording fails (and keeps what it has) when a write fails (disk full) or
/// the channel leaves. docs/records.md.
final class Recorder: @unchecked Sendable {
    // @unchecked: `records` and `stopping` only under `lock`; a Record's file is only written
    // on the recorder's thread or after it is removed from the active set under the lock.
    final class Record {
        let name: String
        let channel: String
        var state: RecordState
        let startedAtNanoseconds: Int64
        var stoppedAtNanoseconds: Int64?
        var segments: [VODSegment] = []
        var bytes = 0
        var file: RecordFile?
        weak var source: VideoChannel?

        init(name: String, channel: String, state: RecordState, startedAt: Int64) {
            self.name = name
            self.channel = channel
            self.state = state
            startedAtNanoseconds = startedAt
        }
    }

    let store: RecordStore
    private let gateway: Gateway
    private let events: EventLog
    private let lock = Lock()
    /// Serializes file writes and finishing (the writer thread and stop requests).
    private let writing = Lock()
    private var records: [String: Record] = [:]
    private var thread: ServiceThread?
    private let clock: any Clock

    init(store: RecordStore, gateway: Gateway, events: EventLog, clock: any Clock = SystemClock()) {
        self.store = store
        self.clock = clock
        self.gateway = gateway
        self.events = events
        for name in store.storedNames() {
            if let record = Self.loadMetadata(store, name) { records[name] = record }
        }
    }

    /// Starts the writer thread (`recorder`): every 100 ms it appends what the taps collected.
    func start() throws(RuntimeError) {
        thread = try ServiceThread(name: "recorder") { [self] stop in
            while !clock.wait(nanoseconds: 100_000_000, or: stop) { flush() }
        }
    }

    /// Stops the thread; recordings still running are stopped and finalized.
    func stop() {
        thread?.stop()
        thread = nil
        for name in lock.withLock({ records.values.filter { $0.state == .recording }.map(\.name) }) { _ = try? stopRecording(name) }
    }

    // MARK: Requests

    func startRecording(name: String, channel: String) throws(RecordError) -> Record {
        if let problem = RecordName.problem(name) { throw RecordError("record \(name)", errno: EINVAL, reason: problem) }
        guard let video = gateway.videoChannel(channel), video.removedAtNanoseconds == nil else {
            throw RecordError("record \(name)", errno: ENOENT, reason: "no live video channel \"\(channel)\"")
        }
        try store.prepare()
        let record = Record(name: name, channel: channel, state: .recording, startedAt: clock.wallNanoseconds())
        let failure = lock.withLock { () -> RecordError? in
            guard records[name] == nil else { return RecordError("record \(name)", errno: EEXIST, reason: "a recording named \"\(name)\" exists") }
            do throws(RecordError) {
                record.file = try RecordFile(path: store.tsPath(name))
            } catch {
                return error
            }
            record.source = video
            records[name] = record
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
        guard let record = lock.withLock({ records[name] }) else { throw RecordError("stop \(name)", errno: ENOENT, reason: "no recording named \"\(name)\"") }
        guard record.state == .recording else { return record }
        writing.withLock {
            drainLocked(only: name)
            finish(record, .stopped)
        }
        return record
    }

    /// Appends what the taps collected now (what the writer thread does every 100 ms), and
    /// fails recordings whose channel is gone.
    func flush() { writing.withLock { drainLocked(only: nil) } }

    /// Removes a recording that is not running, and its files.
    func delete(_ name: String) throws(RecordError) {
        let failure = lock.withLock { () -> RecordError? in
            guard let record = records[name] else { return RecordError("delete \(name)", errno: ENOENT, reason: "no recording named \"\(name)\"") }
            guard record.state != .recording else { return RecordError("delete \(name)", errno: EBUSY, reason: "stop it first") }
            records[name] = nil
            return nil
        }
        if let failure { throw failure }
        for path in [store.tsPath(name), store.playlistPath(name), store.metadataPath(name)] { unlink(path) }
    }

    var list: [Record] { lock.withLock { records.values.sorted { $0.startedAtNanoseconds < $1.startedAtNanoseconds } } }

    /// The list as answered, read while no segment is being written.
    var listJSON: JSONValue { writing.withLock { .object([("records", .array(list.map(Self.json)))]) } }
    func record(_ name: String) -> Record? { lock.withLock { records[name] } }

    // MARK: The writer thread

    /// Appends queued segments to their files. Caller holds `writing`.
    private func drainLocked(only: String?) {
        let active = lock.withLock { records.values.filter { $0.state == .recording && (only == nil || $0.name == only) } }
        for record in active {
            guard let source = record.source else { finish(record, .failed("channel gone")); continue }
            for segment in source.tap.take(record.name) {
                do {
                    let offset = record.file?.size ?? 0
                    try record.file?.append(segment.bytes)
                    record.segments.append(VODSegment(uri: "\(record.name).ts", durationSeconds: segment.durationSeconds,
                                                      byteRange: offset..<offset + segment.bytes.count,
                                                      discontinuity: segment.discontinuity && !record.segments.isEmpty))
                    record.bytes = record.file?.size ?? record.bytes
                } catch {
                    finish(record, .failed(error.stateReason))
                    break
                }
            }
            // The channel left the list, or was replaced by a new announcement.
            if record.state == .recording, source.removedAtNanoseconds != nil || gateway.videoChannel(record.channel) !== source {
                finish(record, .failed("channel gone"))
            }
        }
    }

    /// Ends a recording: unsubscribes, writes the playlist and metadata, logs the outcome.
    private func finish(_ record: Record, _ state: RecordState) {
        let proceed = lock.withLock { () -> Bool in
            guard record.state == .recording else { return false }
            record.state = state
            record.stoppedAtNanoseconds = clock.wallNanoseconds()
            return true
        }
        guard proceed else { return }
        record.source?.tap.unsubscribe(record.name)
        record.file?.sync()
        record.file = nil
        var note = ""
        do {
            try AtomicFile.write(Array(VODPlaylist.render(record.segments).utf8), to: store.playlistPath(record.name), mode: 0o644)
            try AtomicFile.write(Array(Self.json(record).encoded.utf8), to: store.metadataPath(record.name), mode: 0o644)
        } catch {
            note = " (files not finalized: \(error))"
        }
        switch state {
        case .failed(let reason):
            events.record(GatewayEvent(.recordFailed, "recording \(record.name) of channel \(record.channel) failed: \(reason)\(note)",
                                       fields: [("RECORD", record.name), ("CHANNEL", record.channel), ("REASON", reason)]))
        default:
            events.record(GatewayEvent(.recordStopped, "recording \(record.name) of channel \(record.channel) stopped: \(record.segments.count) segments, \(record.bytes) bytes\(note)",
                                       fields: [("RECORD", record.name), ("CHANNEL", record.channel), ("BYTES", String(record.bytes)),
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
        let record = Record(name: name, channel: channel, state: state, startedAt: 0)
        record.segments = segments
        if case .number(let size)? = document["bytes"] { record.bytes = Int(size) }
        return record
    }
}
