import GrandstandCore
import GrandstandRuntime
import HTTPServer
import MediaCodec
import Synchronization

/// One video channel's HLS state: its packager, the requests blocked on it (blocking playlist
/// reloads and preload-hinted parts) and its latest thumbnail. Everything behind one lock:
/// the capture thread feeds it, HTTP handlers and the serving timer read it.
public final class VideoChannel: Sendable {
    enum Waiting {
        case live(HLSPackager.Format, delta: Bool)
        case resource(String)
    }

    public typealias Format = HLSPackager.Format

    struct LiveKey: Hashable {
        var format: Format
        var delta: Bool
    }

    let id: String
    /// Decode health on its own thread (nil when `hls.videoHealth` is off); has its own lock.
    private let health: VideoHealthWorker?
    /// Completed segments for recordings (Records/SegmentTap.swift); has its own lock.
    public let tap = SegmentTap()

    struct State {
        let id: String
        /// Distinguishes this packager's segments from an earlier one's of the same channel (ETags).
        let instance: String
        var packager: HLSPackager
        /// Held requests per format (each resolves against its own window).
        var blocked: [Format: BlockedRequests<Int>] = [:]
        var waiting: [Int: (responder: HTTPResponder, kind: Waiting)] = [:]
        var nextToken = 0
        /// Set when the channel left the list: playlists end (ENDLIST) and it is dropped later.
        var removedAtNanoseconds: Int64?
        /// Why it left the list (nil: replaced by a new announcement, or another kind).
        var removalReason: ChannelChange.RemovalReason?
        /// Capture time of the last packet and monotonic time of the last published part.
        var lastPacketNanoseconds: Int64?
        var thumbnail: [UInt8]?
        var thumbnailSegment = -1
        /// The live playlist answer (text and ETag) until the window next changes: polling clients
        /// share one rendering instead of one each.
        /// By format, and full or delta update.
        var liveAnswers: [LiveKey: HTTPResponse] = [:]
        /// Segment and part answers made since the window last changed (at most 4 MiB of media):
        /// fans ask for the same newest parts, and a shared answer costs no copy of the media.
        var mediaAnswers: [String: HTTPResponse] = [:]
        var mediaAnswerBytes = 0
        /// Arrival of the first packet of the part being received (the datagram that completed the
        /// previous part carries it), and how late parts were listed.
        var partArrivalNanoseconds: Int64?
        var publishLatency = PublishLatency()
        /// CMAF segments sent while they are made (LL-DASH).
        var segmentStreams = SegmentStreams()

        /// The window changed: cached answers are stale.
        mutating func forgetAnswers() {
            liveAnswers = [:]
            mediaAnswers = [:]
            mediaAnswerBytes = 0
        }

        /// Times the parts just published against their first packet's arrival.
        mutating func recordPublished(_ parts: [HLSPackager.PartName], arrival: Int64) {
            let now = SystemClock().wallNanoseconds()
            if let first = partArrivalNanoseconds {
                for name in parts {
                    guard let part = packager.window.segments.last(where: { $0.mediaSequence == name.mediaSequence })?
                        .parts.first(where: { $0.index == name.index }) else { continue }
                    publishLatency.record(publishedNanoseconds: now, firstArrivalNanoseconds: first,
                                          durationNanoseconds: MediaClock.nanoseconds(ticks: part.durationTicks))
                }
            }
            partArrivalNanoseconds = arrival
        }

        /// Answers every held request the window can now answer.
        mutating func resolve() -> [(HTTPResponder, HTTPResponse)] {
            if segmentStreams.count > 0, let cmaf = packager.cmaf { segmentStreams.advance(window: cmaf.window, nowNanoseconds: nil) }
            var ready: [(HTTPResponder, HTTPResponse)] = []
            var outcomes: [(Int, BlockedRequests<Int>.Outcome)] = []
            for format in blocked.keys { outcomes += blocked[format]!.resolve(window: packager.window(format)) }
            for (token, outcome) in outcomes {
                guard let entry = waiting.removeValue(forKey: token) else { continue }
                switch outcome {
                case .ready:
                    switch entry.kind {
                    case .live(let format, let delta): ready.append((entry.responder, liveResponse(LiveKey(format: format, delta: delta))))
                    case .resource(let name): ready.append((entry.responder, mediaResponse(name)))
                    }
                case .badRequest(let why): ready.append((entry.responder, .text(400, why)))
                case .notFound, .timedOut: ready.append((entry.responder, .text(404, "not found")))
                }
            }
            return ready
        }

        mutating func hold(_ request: BlockedRequests<Int>.Request, _ kind: Waiting, _ responder: HTTPResponder, now: Int64) {
            nextToken += 1
            let format = Self.format(of: kind)
            blocked[format, default: BlockedRequests<Int>()].add(nextToken, request, window: packager.window(format), nowNanoseconds: now)
            waiting[nextToken] = (responder, kind)
        }

        mutating func mediaResponse(_ name: String) -> HTTPResponse {
            if let answer = mediaAnswers[name] { return answer }
            let answer = makeMediaResponse(name)
            if answer.status == 200 {
                if mediaAnswerBytes + answer.body.count > 4 << 20 { mediaAnswers = [:]; mediaAnswerBytes = 0 }
                mediaAnswers[name] = answer
                mediaAnswerBytes += answer.body.count   // 0 for memory-file answers: they hold no copy
            }
            return answer
        }

        /// Which window a held request waits on.
        static func format(of kind: Waiting) -> Format {
            switch kind {
            case .live(let format, _): format
            case .resource(let name): name.hasSuffix(".ts") ? .ts : .cmaf
            }
        }

        func makeMediaResponse(_ name: String) -> HTTPResponse {
            switch packager.resource(named: name) {
            case .media(let bytes), .gap(let bytes):
                // Complete segments and parts never change: clients and caches may keep them. Not
                // for long: a restarted channel reuses the names (docs/serving.md). The strong tag
                // names this packager's instance, so a restart never repeats one.
                let type = name.hasSuffix(".ts") ? "video/mp2t" : "video/mp4"
                return HTTPResponse(status: 200, headers: [("Content-Type", type),
                                                           ("Cache-Control", "public, max-age=60, immutable"),
                                                           ("ETag", EntityTag.strong("\(id).\(instance).\(name[..<(name.lastIndex(of: ".") ?? name.endIndex)])"))],
                                    bytes: bytes)
            case .notYetAvailable, .notFound:
                return .text(404, "no such segment or part")
            }
        }

        mutating func liveResponse(_ key: LiveKey) -> HTTPResponse {
            if let answer = liveAnswers[key] { return answer }
            var answer = VideoChannel.playlistResponse(packager.livePlaylist(key.format, delta: key.delta))
            answer.headers.append(("ETag", EntityTag.forBody(answer.body)))
            liveAnswers[key] = answer
            return answer
        }

        func bitRate() -> Int {
            let segments = packager.window.completeSegments
            let ticks = segments.reduce(Int64(0)) { $0 + $1.durationTicks }
            guard ticks > 0 else { return 0 }
            let bytes = segments.reduce(0) { $0 + $1.bytes.count }
            return Int(Int64(bytes) * 8 * 90_000 / ticks)
        }
    }
    let state: Mutex<State>

    init(id: String, segmenter: SegmenterConfiguration = SegmenterConfiguration(),
         window: WindowConfiguration = WindowConfiguration(),
         storage: @escaping SegmentBufferFactory = MemoryFileSegmentBuffer.factory, healthQueueBytes: Int? = nil,
         cmaf: Bool = true) {
        self.id = id
        state = Mutex(State(id: id, instance: String(UInt64(SystemClock().wallNanoseconds()), radix: 36),
                            packager: HLSPackager(segmenter: segmenter, window: window, keyframeDetector: ParserKeyframeDetector(),
                                                  storage: storage, cmaf: cmaf)))
        health = healthQueueBytes.flatMap { try? VideoHealthWorker(capacityBytes: $0) }   // no thread: no health counters
    }

    deinit { health?.stop() }

    /// Stops the health thread (the channel is dropped or the gateway stops).
    func stopHealth() { health?.stop() }

    /// Waits until the health worker has decoded what was queued (`VideoHealthWorker.waitUntilDrained()`).
    func waitForHealthDrained() { health?.waitUntilDrained() }

    /// Holds and resumes the health worker (`VideoHealthWorker.hold()`).
    func holdHealth() { health?.hold() }
    func resumeHealth() { health?.resume() }

    /// Set when the channel left the list: playlists end (ENDLIST) and it is dropped later.
    public var removedAtNanoseconds: Int64? { state.withLock { $0.removedAtNanoseconds } }
    /// Why the channel left the list, once it has (nil while listed, and when it was replaced).
    public var removalReason: ChannelChange.RemovalReason? { state.withLock { $0.removalReason } }

    // MARK: Input (capture thread)

    func ingest(_ packets: ArraySlice<UInt8>, timestampNanoseconds: Int64) {
        health?.submit(packets)
        let ready = state.withLock { state -> [(HTTPResponder, HTTPResponse)] in
            state.lastPacketNanoseconds = timestampNanoseconds
            let update = state.packager.ingest(packets, timestampNanoseconds: timestampNanoseconds)
            if !update.isEmpty { state.forgetAnswers() }
            if !update.partsPublished.isEmpty { state.recordPublished(update.partsPublished, arrival: timestampNanoseconds) }
            if !update.segmentsCompleted.isEmpty { tap.offer(update.segmentsCompleted, from: state.packager.window) }
            return update.isEmpty ? [] : state.resolve()
        }
        for (responder, response) in ready { responder.respond(response) }
    }

    func gap(lostPackets: Int, timestampNanoseconds: Int64) {
        health?.gap()
        let ready = state.withLock { state -> [(HTTPResponder, HTTPResponse)] in
            state.partArrivalNanoseconds = nil   // nothing is listed until the next keyframe
            let update = state.packager.gap(lostPackets: lostPackets, timestampNanoseconds: timestampNanoseconds)
            if !update.isEmpty { state.forgetAnswers() }
            return update.isEmpty ? [] : state.resolve()
        }
        for (responder, response) in ready { responder.respond(response) }
    }

    /// The channel left the list: complete the last segment and end the playlists.
    /// The last segment goes to the recorders too, before the channel reads as removed.
    func finish(at now: Int64, reason: ChannelChange.RemovalReason? = nil) {
        let ready = state.withLock { state -> [(HTTPResponder, HTTPResponse)] in
            guard state.removedAtNanoseconds == nil else { return [] }
            state.removedAtNanoseconds = now
            state.removalReason = reason
            health?.finish()
            let update = state.packager.finish()
            if !update.segmentsCompleted.isEmpty { tap.offer(update.segmentsCompleted, from: state.packager.window) }
            state.forgetAnswers()
            return state.resolve()
        }
        for (responder, response) in ready { responder.respond(response) }
    }

    // MARK: Requests (HTTP threads)

    /// The format `live.m3u8` and `rewind.m3u8` serve: CMAF where the channel has it, else TS.
    public var preferredFormat: Format { state.withLock { $0.packager.offers(.cmaf) ? .cmaf : .ts } }

    /// The live playlist of `format` with optional `_HLS_msn`/`_HLS_part`: now, held (nil), or 400.
    func livePlaylist(_ reload: ReloadRequest, format: Format, responder: HTTPResponder, now: Int64) -> HTTPResponse? {
        state.withLock { state in
            let key = LiveKey(format: format, delta: reload.wantsDelta)
            switch state.packager.reloadDecision(msn: reload.msn, part: reload.part, format) {
            case .respondNow: return state.liveResponse(key)
            case .badRequest(let why): return .text(400, why)
            case .wait:
                state.hold(.playlist(msn: reload.msn ?? 0, part: reload.part), .live(format, delta: key.delta), responder, now: now)
                return nil
            }
        }
    }

    func rewindPlaylist(_ position: RewindPosition, format: Format) -> HTTPResponse {
        state.withLock { Self.playlistResponse($0.packager.rewindPlaylist(position, format)) }
    }

    /// A segment or part; the hinted next part is held until published. A CMAF segment still
    /// being made (or the next one) is sent as it is made (`SegmentStreams`).
    func resource(_ name: String, responder: HTTPResponder, now: Int64) -> HTTPResponse? {
        state.withLock { state in
            if name.hasSuffix(".m4s"), let cmaf = state.packager.cmaf,
               let (sequence, track) = CMAFName.segment(name).map({ ($0, UInt32?.none) }) ?? CMAFName.trackSegment(name).map({ ($0.0, Optional($0.1)) }),
               SegmentStreams.follows(sequence, in: cmaf.window) {
                let stream = state.segmentStreams.follow(sequence, track: track, window: cmaf.window,
                                                         deadlineNanoseconds: now + cmaf.window.maximumBlockNanoseconds)
                return .stream(stream, headers: [("Content-Type", "video/mp4"), ("Cache-Control", "no-cache")])
            }
            if case .notYetAvailable = state.packager.resource(named: name) {
                state.hold(.resource(name: name), .resource(name), responder, now: now)
                return nil
            }
            return state.mediaResponse(name)
        }
    }

    /// `live.mpd`: LL-DASH over the CMAF segments (404 when the channel has no CMAF yet).
    func dashManifest(now: Int64) -> HTTPResponse {
        state.withLock { state in
            guard state.packager.offers(.cmaf), let cmaf = state.packager.cmaf, !cmaf.headerTracks.isEmpty else {
                return .text(404, "no CMAF for this channel (yet)")
            }
            let text = DASHManifest(headers: cmaf.headerTracks, bandwidth: state.bitRate()).render(cmaf.window, nowNanoseconds: now)
            return HTTPResponse(status: 200, headers: [("Content-Type", "application/dash+xml"), ("Cache-Control", "no-cache")],
                                body: Array(text.utf8))
        }
    }

    static func playlistResponse(_ text: String) -> HTTPResponse {
        // Live playlists change with every part: a cache may keep one for under a part duration.
        HTTPResponse(status: 200, headers: [("Content-Type", "application/vnd.apple.mpegurl"), ("Cache-Control", "no-cache")],
                     body: Array(text.utf8))
    }

    // MARK: Timer (serving thread)

    /// Answers held requests whose deadline passed: 503 for playlists (RFC 8216bis §6.2.5.2), 404 for parts.
    func expire(now: Int64) {
        let expired = state.withLock { state -> [(HTTPResponder, Waiting)] in
            if state.segmentStreams.count > 0, let cmaf = state.packager.cmaf {
                state.segmentStreams.advance(window: cmaf.window, nowNanoseconds: now)
            }
            var tokens: [Int] = []
            for format in state.blocked.keys { tokens += state.blocked[format]!.expire(nowNanoseconds: now) }
            return tokens.compactMap { token in state.waiting.removeValue(forKey: token).map { ($0.responder, $0.kind) } }
        }
        for (responder, kind) in expired {
            switch kind {
            case .live: responder.respond(.text(503, "the requested part did not appear in time"))
            case .resource: responder.respond(.text(404, "the part did not appear in time"))
            }
        }
    }

    /// Answers every held request (shutdown): 503.
    func releaseAll() {
        let all = state.withLock { state -> [HTTPResponder] in
            let responders = state.waiting.values.map(\.responder)
            state.waiting = [:]
            state.blocked = [:]
            state.segmentStreams.finishAll()
            return responders
        }
        for responder in all { responder.respond(.text(503, "shutting down")) }
    }

    /// The newest complete segment's first independent part (its keyframe; the whole segment
    /// if none is flagged) when it is newer than the last thumbnail's. A part, not the segment:
    /// the copy and its demux are a fraction of the segment's memory, four channels at a time.
    func segmentForThumbnail() -> (sequence: Int, bytes: [UInt8])? {
        state.withLock { state in
            guard let newest = state.packager.window.completeSegments.last(where: { !$0.isGap }),
                  newest.mediaSequence != state.thumbnailSegment else { return nil }
            let keyframePart = newest.parts.first(where: \.independent).map { newest.bytes[$0.range] }
            return (newest.mediaSequence, (keyframePart ?? newest.bytes).array)
        }
    }

    func setThumbnail(_ jpeg: [UInt8]?, sequence: Int) {
        state.withLock { state in
            state.thumbnailSegment = sequence
            if let jpeg { state.thumbnail = jpeg }
        }
    }

    var thumbnailJPEG: [UInt8]? { state.withLock { $0.thumbnail } }

    /// Durations (90 kHz) of the complete segments held, oldest first.
    var completeSegmentDurations: [Int64] { state.withLock { $0.packager.window.completeSegments.map(\.durationTicks) } }

    public struct Summary: Sendable {
        public var live: Bool
        public var segments: Int
        var bytesHeld: Int
        var lastPacketNanoseconds: Int64?
        var hasThumbnail: Bool
        /// Mean bit rate over the complete segments held.
        var bitsPerSecond: Int
        /// What `live.m3u8` serves, and the CMAF tracks' RFC 6381 codecs (nil before the first header).
        public var format: Format
        public var codecs: String?
        var statistics: [(String, Int64)]
    }

    public var summary: Summary {
        let healthStatistics = health?.statistics ?? []
        return state.withLock { state in
            Summary(live: state.removedAtNanoseconds == nil && !state.packager.window.completeSegments.isEmpty,
                    segments: state.packager.window.completeSegments.count, bytesHeld: state.packager.window.bytes,
                    lastPacketNanoseconds: state.lastPacketNanoseconds, hasThumbnail: state.thumbnail != nil,
                    bitsPerSecond: state.bitRate(),
                    format: state.packager.offers(.cmaf) ? .cmaf : .ts,
                    codecs: state.packager.cmaf?.fragmenter.current?.tracks.map(\.codec.codecString).joined(separator: ","),
                    statistics: state.packager.statistics + [("hls_blocked_requests", Int64(state.blocked.values.reduce(0) { $0 + $1.count })),
                                                             ("hls_segment_streams", Int64(state.segmentStreams.count))]
                        + state.publishLatency.statistics + healthStatistics)
        }
    }
}
