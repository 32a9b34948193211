import ErasureCoding
import GrandstandCore
import Synchronization

/// The file channels of the gateway: one FLUTE receiver per `.file` channel, fed the channel's
/// datagrams on the `files` thread (FileDeliveryQueue; the caller's thread in replays);
/// completed objects go to the `ReceivedFileSink`. Keeps the distribution table's facts (what
/// the receivers announce plus where files were stored) and gives each arrival as a JSON event
/// for the channel's SSE stream (docs/files.md).
public final class FileChannels: Sendable {
    private struct State {
        var receivers: [String: FluteReceiver] = [:]
        var storeFailures: [String: Int] = [:]
        var lastStoreError: [String: String] = [:]
        var storedCount: [String: Int] = [:]
        var sink: (any ReceivedFileSink)?
        var spool: SpoolDirectory?
        var limits: Limits
        var completed: (@Sendable (String, String, [UInt8]) -> Void)?
        var stored: [@Sendable (String, StoredFile) -> Void] = []
        var queueDrops: (@Sendable (String) -> Int)?
    }

    /// The receivers' limits and which objects are assembled on disk (docs/files.md "Large files").
    public struct Limits: Sendable, Equatable {
        public var receiver: FluteReceiverConfiguration
        /// Channels whose every object goes to disk (the update channel's bundles).
        public var diskChannels: Set<String>
        /// Free space an on-disk object must leave (its Transfer-Length is refused otherwise).
        public var diskFloorBytes: Int

        public init(receiver: FluteReceiverConfiguration = FluteReceiverConfiguration(), diskChannels: Set<String> = [],
                    diskFloorBytes: Int = 64 << 20) {
            self.receiver = receiver
            self.diskChannels = diskChannels
            self.diskFloorBytes = diskFloorBytes
        }
    }

    private let state: Mutex<State>
    private let math: (any ReedSolomonMath)?

    public init(configuration: FluteReceiverConfiguration = FluteReceiverConfiguration(), math: (any ReedSolomonMath)? = RFC5510ReedSolomonMath()) {
        state = Mutex(State(limits: Limits(receiver: configuration)))
        self.math = math
    }

    /// Limits for receivers made from now on; set before ingest starts.
    public var limits: Limits {
        get { state.withLock { $0.limits } }
        set { state.withLock { $0.limits = newValue } }
    }

    /// Called with each stored file (channel, path, bytes) outside the lock; the catalog feed
    /// hook (Catalog/CatalogFileFeed.swift). Not called for files assembled on disk (large
    /// objects, the update channel): they are never catalog feeds. Set before ingest starts.
    public var completed: (@Sendable (String, String, [UInt8]) -> Void)? {
        get { state.withLock { $0.completed } }
        set { state.withLock { $0.completed = newValue } }
    }

    /// Datagrams of a channel dropped before they reached its receiver (the `files` thread's full
    /// queue, FileDeliveryQueue): shown as `dropped_queue_full` in the channel's stats.
    public var queueDrops: (@Sendable (String) -> Int)? {
        get { state.withLock { $0.queueDrops } }
        set { state.withLock { $0.queueDrops = newValue } }
    }

    /// Calls `observer` with the channel id and each file the sink stored (outside the lock, on
    /// the `files` thread: keep it short). The update channel's bundles reach the update service so.
    public func observeStored(_ observer: @escaping @Sendable (String, StoredFile) -> Void) {
        state.withLock { $0.stored.append(observer) }
    }

    /// Where completed files go; set before ingest starts (nil: received files are only counted).
    /// A sink with a spool directory gets large objects as spool files; the directory's leftovers
    /// from an earlier run are removed here.
    public var sink: (any ReceivedFileSink)? {
        get { state.withLock { $0.sink } }
        set {
            state.withLock { state in
                state.sink = newValue
                state.spool = nil
                guard let path = newValue?.spoolDirectory else { return }
                let spool = SpoolDirectory(path: path, floorBytes: state.limits.diskFloorBytes)
                do {
                    try spool.clear()
                    state.spool = spool
                } catch {
                    // Without a usable spool folder objects stay in memory (within its limit).
                }
            }
        }
    }

    /// Follows the channel list: a receiver per file channel (kept across updates).
    public func apply(_ changes: [ChannelChange]) {
        state.withLock { state in
            for change in changes {
                let channel = change.channel
                switch change {
                case .added, .updated:
                    // The announced a=flute-tsi narrows the receiver to that session; a changed TSI
                    // starts a fresh receiver (the old session's objects are not this channel's).
                    if channel.kind == .file, state.receivers[channel.id]?.configuration.tsi != channel.fluteTSI || state.receivers[channel.id] == nil {
                        var limits = state.limits.receiver
                        limits.tsi = channel.fluteTSI
                        limits.diskOnly = limits.diskOnly || state.limits.diskChannels.contains(channel.id)
                        state.receivers[channel.id] = FluteReceiver(configuration: limits, math: math, stores: state.spool)
                    }
                case .removed:
                    break   // the table stays until the gateway restarts: files remain served
                }
            }
        }
    }

    /// One datagram of channel `id`; returns the arrival events (JSON text) to publish.
    public func receive(_ id: String, _ payload: ArraySlice<UInt8>, at time: Int64) -> [[UInt8]] {
        var stored: [(FluteObject, Result<StoredFile, any Error>?)] = []
        var failed: [(String, String)] = []
        let (completed, observers) = state.withLock { state in
            // Taken out while it changes: its buffers stay uniquely referenced (updated in place).
            guard var receiver = state.receivers.removeValue(forKey: id) else { return (state.completed, state.stored) }
            let events = receiver.receive(payload, nowNanoseconds: time)
            if !events.isEmpty { receiver.tick(nowNanoseconds: time) }
            state.receivers[id] = receiver
            for event in events {
                switch event {
                case .completed(let object):
                    guard let path = ContentLocation.relativePath(object.contentLocation) else {
                        failed.append((object.contentLocation, "unsafe_content_location"))
                        state.storeFailures[id, default: 0] += 1
                        continue
                    }
                    let file = ReceivedFile(channelID: id, path: path, contentType: object.contentType, toi: object.toi,
                                            fdtInstance: object.fdtInstance, bytes: object.bytes, spool: object.spool,
                                            completedNanoseconds: time)
                    var result: Result<StoredFile, any Error>? = nil
                    if let sink = state.sink {
                        do { result = .success(try sink.store(file)) } catch {
                            result = .failure(error)
                            state.storeFailures[id, default: 0] += 1
                            state.lastStoreError[id] = "\(error)"
                        }
                    }
                    if case .success = result { state.storedCount[id, default: 0] += 1 }
                    var named = object
                    named.contentLocation = path
                    stored.append((named, result))
                case .failed(_, _, let location, let reason):
                    failed.append((location, reason))
                case .fdtInstance:
                    break
                }
            }
            return (state.completed, state.stored)
        }
        var notes: [[UInt8]] = []
        for (object, result) in stored {
            var members: [(String, JSONValue)] = [
                ("event", .string("file")), ("path", .string(object.contentLocation)), ("size", .number(Double(object.size))),
                ("toi", .number(Double(object.toi))), ("fdtInstance", .number(Double(object.fdtInstance))),
                ("url", .string("/files/\(id)/\(object.contentLocation)")),
            ]
            switch result {
            // No `localPath` here: the note goes to fans (messages, SSE) and into replays' events,
            // which must not depend on where the files were written (the management table has it).
            case .success(let file)?: members.append(("status", .string("complete")))
                if object.spool == nil { completed?(id, object.contentLocation, object.bytes) }
                for observer in observers { observer(id, file) }
            case .failure(let error)?: members.append(("status", .string("failed"))); members.append(("error", .string("\(error)")))
            case nil: members.append(("status", .string("complete")))
            }
            notes.append(Array(JSONValue.object(members).encoded.utf8))
        }
        for (location, reason) in failed {
            notes.append(Array(JSONValue.object([("event", .string("file")), ("path", .string(location)), ("status", .string("failed")),
                                                 ("error", .string(reason))]).encoded.utf8))
        }
        return notes
    }

    /// The file channel ids, sorted.
    var channelIDs: [String] { state.withLock { $0.receivers.keys.sorted() } }

    /// Channel `id`'s distribution table and counters; nil when it is not a file channel.
    public func table(_ id: String) -> JSONValue? {
        let (rows, stats, failures, lastError, count, sink, memory, queueDrops) = state.withLock { state in
            (state.receivers[id]?.table, state.receivers[id]?.stats, state.storeFailures[id] ?? 0, state.lastStoreError[id],
             state.storedCount[id] ?? 0, state.sink, state.receivers[id]?.bufferedBytes ?? 0, state.queueDrops)
        }
        guard let rows, let stats else { return nil }
        var files: [JSONValue] = []
        var listed = Set<String>()
        for row in rows {
            let path = ContentLocation.relativePath(row.contentLocation)
            let local = path.flatMap { sink?.lookup(channelID: id, path: $0) }
            if let path { listed.insert(path) }
            var state = row.state.rawValue
            if row.state == .complete && local == nil && sink != nil { state = "failed" }
            files.append(.object([
                ("name", .string(row.contentLocation)), ("path", path.map(JSONValue.string) ?? .null),
                ("url", path.map { .string("/files/\(id)/\($0)") } ?? .null),
                ("size", row.size.map { .number(Double($0)) } ?? .null), ("contentType", row.contentType.map(JSONValue.string) ?? .null),
                ("status", .string(state)), ("progress", .number(row.progress)), ("toi", .number(Double(row.toi))),
                ("fdtInstance", .number(Double(row.fdtInstance))), ("error", row.failure.map(JSONValue.string) ?? .null),
                ("localPath", local.map { .string($0.localPath) } ?? .null),
            ]))
        }
        // Stored files no live FDT instance lists any more (their instance expired) stay listed.
        for file in sink?.files(channelID: id) ?? [] where !listed.contains(file.path) {
            files.append(.object([
                ("name", .string(file.path)), ("path", .string(file.path)), ("url", .string("/files/\(id)/\(file.path)")),
                ("size", .number(Double(file.size))), ("contentType", file.contentType.map(JSONValue.string) ?? .null),
                ("status", .string("complete")), ("progress", .number(1)), ("toi", .null), ("fdtInstance", .null), ("error", .null),
                ("localPath", .string(file.localPath)),
            ]))
        }
        var counters: [(String, JSONValue)] = stats.fields.map { ($0.name, .number(Double($0.value))) }
        counters.append(("files_stored", .number(Double(count))))
        counters.append(("store_failures", .number(Double(failures))))
        counters.append(("assembly_memory_bytes", .number(Double(memory))))
        counters.append(("dropped_queue_full", .number(Double(queueDrops?(id) ?? 0))))
        return .object([("id", .string(id)), ("files", .array(files)), ("stats", .object(counters)),
                        ("lastStoreError", lastError.map(JSONValue.string) ?? .null)])
    }

    /// Every file channel's table.
    public var tables: JSONValue { .array(channelIDs.compactMap { table($0) }) }
}
