#if canImport(Glibc)
import Glibc
#endif
import GrandstandCore
import GrandstandRuntime
import Synchronization
import HTTPServer
import GrandstandIngest

/// What the gateway serves, fed by the ingest sink on the capture thread: one `VideoChannel` per
/// video channel (created when the channel is added, finished on removal and dropped after its
/// window), a small ring of recent messages per data channel, and the channel list. A serving
/// thread expires held requests and refreshes thumbnails off the capture thread.
public final class Gateway: Sendable {
    struct DataMessage: Sendable {
        /// 1, 2, … per data channel since the daemon started (the SSE event id).
        var sequence: Int
        var timestampNanoseconds: Int64
        var payload: [UInt8]
    }

    public struct Settings: Sendable {
        var segmenter = SegmenterConfiguration()
        var window = WindowConfiguration()
        /// How long a removed channel's playlists stay (its window), seconds.
        var keepRemovedNanoseconds: Int64 = 30_000_000_000
        var dataRingSize = 32
        var thumbnailIntervalNanoseconds: Int64 = 3_000_000_000
        /// Decode each video channel for its health counters (`hls.videoHealth`).
        var videoHealth = true
        /// TS bytes queued per channel for the health check before input is skipped (0.8 s of
        /// a 5 Mbit/s channel; bounds what a decoder falling behind costs in memory).
        var healthQueueBytes = 512 << 10
        /// Segments in memory files answered with sendfile (docs/serving.md); false: arrays.
        public var memoryFileSegments = true
        /// Package CMAF beside TS (`hls.cmaf`).
        public var cmaf = true

        public init() {}

        /// From the configuration's `hls` section.
        public init(hls: GatewayConfig.HLS) {
            segmenter = hls.segmenter
            window = hls.window
            keepRemovedNanoseconds = Int64(hls.rewindWindowSeconds * 1e9)
            videoHealth = hls.videoHealth
            cmaf = hls.cmaf
        }
    }

    let settings: Settings
    /// The channel list, the video channels (each with its own lock) and the data rings.
    private struct State {
        var channelList: [Channel] = []
        var video: [String: VideoChannel] = [:]
        var data: [String: [DataMessage]] = [:]
        /// Summed health counters of video channels already dropped, so totals never go backwards.
        var retiredHealthTotals: [String: Int64] = [:]
    }
    private let state = Mutex(State())
    private let thread = Mutex<ServiceThread?>(nil)
    private let clock: any Clock
    private let thumbnails = Thumbnailer()
    /// Server-Sent Events subscribers of the data channels (FanEvents.swift).
    let dataEvents = DataEventHub()
    /// File channels (FLUTE): receivers, the received-file sink, distribution tables (Files/).
    public let files = FileChannels()
    /// File channels' datagrams on their way to the `files` thread (started with the serving
    /// thread; without it, as in replays and most tests, they are delivered on the caller's thread).
    let fileQueue = FileDeliveryQueue()
    private let filesThread = Mutex<ServiceThread?>(nil)

    public init(settings: Settings = Settings(), clock: any Clock = SystemClock()) {
        self.settings = settings
        self.clock = clock
        Self.boundMallocRetention()
    }

    /// glibc malloc policy for a process that keeps ~20 MB of segments per channel and frees
    /// one every couple of seconds (docs/performance.md, HLS memory): a fixed mmap threshold, so
    /// segment buffers are mapped and unmapped (returned to the kernel when evicted) instead of
    /// raising the dynamic threshold and fragmenting the heap; and at most two arenas, so the
    /// capture, HTTP and health threads do not each keep their own free memory. Process-wide,
    /// set once before the threads start; `trimMalloc` returns freed heap pages periodically.
    static func boundMallocRetention() {
        #if canImport(Glibc)
        _ = glibcMallopt(-3, 256 << 10)   // M_MMAP_THRESHOLD
        _ = glibcMallopt(-8, 2)           // M_ARENA_MAX
        #endif
    }

    // MARK: Ingest sink (capture thread)

    public func handle(_ actions: [IngestAction]) {
        var fileDatagrams: [FileDeliveryQueue.Datagram] = []   // handed to the files thread together, below
        for action in actions {
            switch action {
            case .channelsChanged(let changes):
                apply(changes)
            case .transportStream(let id, let packets, let time):
                videoChannel(id)?.ingest(packets, timestampNanoseconds: time)
            case .gap(let id, let lost, let time):
                videoChannel(id)?.gap(lostPackets: lost, timestampNanoseconds: time)
            case .dataMessage(let id, let payload, let time):
                state.withLock { state in
                    guard let ring = state.data[id] else { return }
                    let message = DataMessage(sequence: (ring.last?.sequence ?? 0) + 1, timestampNanoseconds: time, payload: Array(payload))
                    state.data[id]?.append(message)
                    if ring.count + 1 > settings.dataRingSize { state.data[id]?.removeFirst(ring.count + 1 - settings.dataRingSize) }
                    // Under the lock, like `withDataMessages`: a new subscriber misses and repeats nothing.
                    dataEvents.publish(id, message)
                }
            case .path:
                break   // journaled by the ingest service; the merge's counters are in the stats
            case .fileDatagram(let id, let payload, let time):
                fileDatagrams.append(FileDeliveryQueue.Datagram(channelID: id, payload: Array(payload), timestampNanoseconds: time))
            }
        }
        if !fileDatagrams.isEmpty, fileQueue.put(fileDatagrams) == .notRunning {
            for datagram in fileDatagrams { deliverFile(datagram.channelID, datagram.payload[...], at: datagram.timestampNanoseconds) }
        }
    }

    /// One file channel datagram into its FLUTE receiver (the `files` thread, or the caller's);
    /// arrivals are published like data messages: messages.json and the SSE stream.
    private func deliverFile(_ id: String, _ payload: ArraySlice<UInt8>, at time: Int64) {
        handle(files.receive(id, payload, at: time).map { .dataMessage(channelID: id, payload: $0[...], timestampNanoseconds: time) })
    }

    private func apply(_ changes: [ChannelChange]) {
        files.apply(changes)
        let now = clock.wallNanoseconds()
        var finished: [VideoChannel] = [], replaced: [VideoChannel] = []
        var reasons: [ObjectIdentifier: ChannelChange.RemovalReason] = [:]
        state.withLock { state in
            for change in changes {
                let channel = change.channel
                switch change {
                case .added, .updated:
                    state.channelList.removeAll { $0.id == channel.id }
                    state.channelList.append(channel)
                    switch channel.kind {
                    case .video:
                        if state.video[channel.id]?.removedAtNanoseconds != nil || state.video[channel.id] == nil {
                            if let old = state.video[channel.id] { finished.append(old); replaced.append(old) }
                            state.video[channel.id] = VideoChannel(id: channel.id, segmenter: settings.segmenter, window: settings.window,
                                                             storage: settings.memoryFileSegments ? MemoryFileSegmentBuffer.factory : ArraySegmentBuffer.factory,
                                                             healthQueueBytes: settings.videoHealth ? settings.healthQueueBytes : nil,
                                                             cmaf: settings.cmaf)
                        }
                    case .data, .file:
                        if state.data[channel.id] == nil { state.data[channel.id] = [] }
                    default:
                        break
                    }
                    // A video channel that became something else (a multiplex split into its
                    // programs) stops like a removed one: its window stays until it expires.
                    if channel.kind != .video, let old = state.video[channel.id], old.removedAtNanoseconds == nil { finished.append(old) }
                case .removed(_, let reason):
                    state.channelList.removeAll { $0.id == channel.id }
                    if let old = state.video[channel.id] {
                        finished.append(old)
                        reasons[ObjectIdentifier(old)] = reason
                    }
                }
            }
        }
        for channel in finished { channel.finish(at: now, reason: reasons[ObjectIdentifier(channel)]) }
        for channel in replaced { channel.stopHealth() }
        retireHealthCounters(of: replaced)
    }

    public func videoChannel(_ id: String) -> VideoChannel? { state.withLock { $0.video[id] } }

    /// The listed channels, plus removed video channels still inside their window.
    public var channels: [Channel] { state.withLock { $0.channelList } }

    func dataMessages(_ id: String) -> [DataMessage]? { state.withLock { $0.data[id] } }

    /// Runs `body` on a data channel's ring under the gateway's lock (nil: no such channel), so
    /// an SSE subscription taken there is atomic with respect to new messages.
    func withDataMessages<T: Sendable>(_ id: String, _ body: ([DataMessage]) -> T) -> T? { state.withLock { $0.data[id].map(body) } }

    var videoChannels: [VideoChannel] { state.withLock { $0.video.values.sorted { $0.id < $1.id } } }

    // MARK: Serving thread

    /// Starts the serving thread (`serving`): expiry of held requests, thumbnails, retired channels;
    /// and the `files` thread, which assembles the file channels' objects off the capture thread.
    public func start() throws(RuntimeError) {
        try thread.withLock { (thread: inout ServiceThread?) throws(RuntimeError) in
            thread = try ServiceThread(name: "serving") { [self] stop in run(stop) }
        }
        try filesThread.withLock { (thread: inout ServiceThread?) throws(RuntimeError) in
            let stop = StopSignal()
            fileQueue.attach(stop)
            thread = try ServiceThread(name: "files", stop: stop) { [self] stop in
                fileQueue.drain(stop) { deliverFile($0.channelID, $0.payload[...], at: $0.timestampNanoseconds) }
            }
        }
        files.queueDrops = { [fileQueue] in fileQueue.dropped($0) }
    }

    /// Stops the serving and files threads and answers every held request (before the listeners stop).
    public func stop() {
        thread.withLock { thread in defer { thread = nil }; return thread }?.stop()
        filesThread.withLock { thread in defer { thread = nil }; return thread }?.stop()
        for channel in videoChannels {
            channel.releaseAll()
            channel.stopHealth()
        }
    }

    private func run(_ stop: StopSignal) {
        var nextThumbnails: Int64 = 0
        while !stop.isRaised {
            let now = clock.wallNanoseconds()
            for channel in videoChannels { channel.expire(now: now) }
            if now >= nextThumbnails {
                for channel in videoChannels { thumbnails.refresh(channel) }
                dropExpired(now: now)
                #if canImport(Glibc)
                _ = glibcMallocTrim(0)   // freed segments, parts and responses back to the kernel
                #endif
                nextThumbnails = clock.wallNanoseconds() + settings.thumbnailIntervalNanoseconds
            }
            if clock.wait(nanoseconds: 50_000_000, or: stop) { break }
        }
    }

    /// Drops removed video channels whose window has passed (their health counters go to the totals).
    func dropExpired(now: Int64) {
        let dropped = state.withLock { state -> [VideoChannel] in
            let old = state.video.values.filter { ($0.removedAtNanoseconds ?? Int64.max) <= now - settings.keepRemovedNanoseconds }
            for channel in old { state.video[channel.id] = nil }
            return old
        }
        for channel in dropped {
            channel.releaseAll()
            channel.stopHealth()
        }
        retireHealthCounters(of: dropped)
    }

    private func retireHealthCounters(of channels: [VideoChannel]) {
        guard !channels.isEmpty else { return }
        let counters = channels.flatMap { $0.summary.statistics.filter { Self.summedHealthKeys.contains($0.0) } }
        state.withLock { state in for (key, value) in counters { state.retiredHealthTotals[key, default: 0] += value } }
    }

    /// The health counters of dropped channels (added to the totals by `stats(merging:)`).
    var retiredHealthCounters: [String: Int64] { state.withLock { $0.retiredHealthTotals } }
}

#if canImport(Glibc)
/// glibc's `mallopt(3)` (malloc.h is not in Swift's Glibc module); parameters by number.
@_silgen_name("mallopt")
func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32

/// glibc's `malloc_trim(3)`: releases free heap
/// memory of every arena to the kernel; returns 1 when some was released.
@_silgen_name("malloc_trim")
func glibcMallocTrim(_ pad: Int) -> Int32
#endif
