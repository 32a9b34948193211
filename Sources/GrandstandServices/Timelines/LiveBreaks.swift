import GrandstandCore
import GrandstandServing
import HTTPServer
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Live breaks on CMAF channels (docs/inserts.md "Live channels on CMAF"): when a channel's
/// wall-clock insert is due, the break is anchored at the first segment none of whose parts
/// exist yet, its media is transmuxed once (`BreakMedia`), and from then on the channel's
/// LL-HLS answers list the break's chunks in place of the live ones (`LiveBreakPlaylist`)
/// until the segment after the one reaching the break's end. Memory only, like TS anchors.
final class LiveBreaks: Sendable {
    /// One anchored break.
    struct Entry {
        var placed: LiveBreakPlaylist.Placed
        var media: BreakMedia
        var timingTrack: UInt32
        /// The live decode time (90 kHz) where the break begins: its anchor's first part's.
        var anchorTicks: Int64?
        /// Spans (90 kHz, start and duration) of live chunks already read, by name.
        var spans: [String: (start: Int64, duration: Int64)] = [:]
        /// Chunks already answered, by name (every viewer asks for the same ones; a published
        /// live chunk never changes), and their bytes: dropped together past `answerBytesLimit`.
        var answers: [String: [UInt8]] = [:]
        var answerBytes = 0
    }

    static let answerBytesLimit = 8 << 20

    struct Channel {
        /// The channel instance the anchors number into (a restarted channel renumbers).
        var instance: ObjectIdentifier
        var entries: [String: Entry] = [:]
        /// Breaks whose time was before the window when first due: never shown.
        var missed: Set<String> = []
        /// Breaks whose media cannot be CMAF (why): the channel's TS splice serves them.
        var failed: [String: String] = [:]
        /// The last live playlist rewritten and its answer (every client waiting on the same
        /// blocking reload gets the same text).
        var memo: (input: [UInt8], output: [UInt8])?
        /// The play-once breaks each fan session was shown (rewinds leave them out).
        var seen = SessionSeen()
    }

    private let channels = Mutex<[String: Channel]>([:])
    let timelines: TimelineService
    /// A break segment's bytes (a stored item file or a recording's range); nil when not on the box.
    let read: @Sendable (VODSegment) -> [UInt8]?

    init(timelines: TimelineService, read: @escaping @Sendable (VODSegment) -> [UInt8]?) {
        self.timelines = timelines
        self.read = read
    }

    // MARK: Playlists

    /// The rewriting of channel `id`'s CMAF live answers while a break is in place; nil when none
    /// is (nothing due, all missed) or one due cannot be CMAF (the TS splice answers instead).
    func playlist(_ id: String, channel: VideoChannel, now: Int64, view: LiveView = LiveView()) -> (@Sendable (HTTPResponse) -> HTTPResponse)? {
        let breaks = timelines.liveBreaks(id)
        // Most channels have no inserts: nothing more to do on their every request.
        guard !breaks.isEmpty else {
            channels.withLock { _ = $0.removeValue(forKey: id) }
            return nil
        }
        let point = channel.breakPoint
        let ready = channels.withLock { channels -> Bool in
            var state = channels[id].flatMap { $0.instance == ObjectIdentifier(channel) ? $0 : nil } ?? Channel(instance: ObjectIdentifier(channel))
            defer { channels[id] = state }
            state.entries = state.entries.filter { entry in breaks.contains { $0.id == entry.key } }
            state.failed = state.failed.filter { entry in breaks.contains { $0.id == entry.key } }
            for item in breaks where state.entries[item.id] == nil && !state.missed.contains(item.id) && state.failed[item.id] == nil {
                guard Double(now) / 1e9 >= item.unixSeconds, let point else { continue }
                if let oldest = point.oldestNanoseconds, item.unixSeconds < Double(oldest) / 1e9 - 0.0005 {
                    state.missed.insert(item.id)
                    continue
                }
                // One break at a time: a later one waits for the earlier one's end.
                guard state.entries.values.allSatisfy({ $0.placed.resume.map { $0 <= point.segment } ?? false }) else { continue }
                do {
                    let media = try BreakMedia.transmux(try item.segments.map { segment in
                        guard let bytes = read(segment) else { throw BreakMedia.Failure.noMedia }
                        return bytes
                    })
                    let placed = LiveBreakPlaylist.Placed(id: item.id, anchor: point.segment, seconds: Double(media.durationTicks) / 90_000,
                                                          playOnce: item.playOnce)
                    state.entries[item.id] = Entry(placed: placed, media: media, timingTrack: point.timingTrack)
                    state.memo = nil
                } catch {
                    state.failed[item.id] = "\(error)"
                }
            }
            return state.failed.isEmpty && !state.entries.isEmpty
        }
        guard ready else { return nil }
        return { [self] response in
            guard response.status == 200 else { return response }
            var response = response
            response.body = rewrite(id, channel: channel, response.body, view: view, now: now)
            return response
        }
    }

    /// `body` with the breaks `view` is shown: every one live; on a rewind, not the play-once
    /// ones its session was shown before (the channel's own media is there instead).
    func rewrite(_ id: String, channel: VideoChannel, _ body: [UInt8], view: LiveView = LiveView(), now: Int64 = 0) -> [UInt8] {
        let shownBefore: Set<String> = view.rewind ? channels.withLock { state in view.session.flatMap { state[id]?.seen.seen($0, now: now) } ?? [] } : []
        if !view.rewind, let memo = channels.withLock({ $0[id]?.memo }), memo.input == body {
            remember(id, shown: memo.output, view: view, now: now)
            return memo.output
        }
        var entries = channels.withLock { $0[id]?.entries ?? [:] }
        for (key, entry) in entries where entry.placed.resume == nil { entries[key] = resolve(entry, channel: channel) }
        let placed = entries.values.map(\.placed).filter { !($0.playOnce && shownBefore.contains($0.id)) }.sorted { $0.anchor < $1.anchor }
        let text = LiveBreakPlaylist.rewrite(String(decoding: body, as: UTF8.self), breaks: placed) { placed, sequence, part in
            guard var entry = entries[placed.id], let anchor = entry.anchorTicks else { return nil }
            let name = "seg\(sequence).\(part).m4s"
            guard let span = Self.span(&entry, name, channel) else { return nil }
            entries[placed.id] = entry
            return entry.media.describe((span.start - anchor)..<(span.start - anchor + span.duration))
        }
        let output = Array(text.utf8)
        channels.withLock { channels in
            guard channels[id] != nil else { return }
            // In place: an entry deleted meanwhile stays deleted (optional chaining skips it).
            for (key, entry) in entries {
                channels[id]?.entries[key]?.placed = entry.placed
                channels[id]?.entries[key]?.anchorTicks = entry.anchorTicks
                channels[id]?.entries[key]?.spans.merge(entry.spans) { old, _ in old }
            }
            if !view.rewind { channels[id]?.memo = (body, output) }
        }
        remember(id, shown: output, view: view, now: now)
        return output
    }

    /// Records the play-once breaks listed in `output` as shown to the view's session.
    private func remember(_ id: String, shown output: [UInt8], view: LiveView, now: Int64) {
        guard let session = view.session else { return }
        let text = String(decoding: output, as: UTF8.self)
        channels.withLock { channels in
            let ids = (channels[id]?.entries ?? [:]).filter { $0.value.placed.playOnce && text.contains("break/\($0.key)/") }.map(\.key)
            guard !ids.isEmpty else { return }
            channels[id]?.seen.add(ids, to: session, now: now)
        }
    }

    /// Finds where the break ends: the segment after the first complete one reaching its length.
    func resolve(_ entry: Entry, channel: VideoChannel) -> Entry {
        var entry = entry
        if entry.anchorTicks == nil { entry.anchorTicks = Self.span(&entry, "seg\(entry.placed.anchor).0.m4s", channel)?.start }
        guard let anchor = entry.anchorTicks else { return entry }
        var sequence = entry.placed.anchor
        while let span = Self.span(&entry, "seg\(sequence).m4s", channel) {
            if span.start + span.duration - anchor >= entry.media.durationTicks {
                entry.placed.resume = sequence + 1
                break
            }
            sequence += 1
        }
        return entry
    }

    /// The timing track's decode span of live chunk `name` (cached), nil until it is published.
    static func span(_ entry: inout Entry, _ name: String, _ channel: VideoChannel) -> (start: Int64, duration: Int64)? {
        if let known = entry.spans[name] { return known }
        guard let bytes = channel.cmafChunk(name), let found = try? FragmentReader.span(bytes[...], track: entry.timingTrack) else { return nil }
        let span = (Int64(found.start), Int64(found.duration))
        entry.spans[name] = span
        return span
    }

    // MARK: Chunks

    /// `init.mp4` or `seg<N>[.<P>].m4s` of break `insert` on channel `id`: the insert's samples
    /// of the live chunk's span, re-timed onto it; a part is held until the live part exists.
    func resource(_ id: String, insert: String, name: String, channel: VideoChannel, responder: HTTPResponder, now: Int64) -> HTTPResponse? {
        guard let entry = channels.withLock({ $0[id].flatMap { $0.instance == ObjectIdentifier(channel) ? $0.entries[insert] : nil } }) else {
            return .text(404, "no such break")
        }
        if name == "init.mp4" { return Self.mp4(entry.media.initSegment) }
        let fields = name.hasPrefix("seg") && name.hasSuffix(".m4s") ? name.dropFirst(3).dropLast(4).split(separator: ".", omittingEmptySubsequences: false) : []
        guard (1...2).contains(fields.count), let sequence = Int(fields[0]), fields.count == 1 || Int(fields[1]) != nil,
              entry.placed.covers(sequence) else { return .text(404, "not in this break") }
        let make: @Sendable ([UInt8]) -> HTTPResponse = { [self] bytes in chunk(id, insert: insert, name: name, live: bytes, channel: channel) }
        if fields.count == 1 {
            guard let bytes = channel.cmafChunk(name) else { return .text(404, "segment not complete") }
            return make(bytes)
        }
        return channel.whenPublished(name, responder: responder, now: now, make)
    }

    func chunk(_ id: String, insert: String, name: String, live: [UInt8], channel: VideoChannel) -> HTTPResponse {
        if let known = channels.withLock({ $0[id]?.entries[insert]?.answers[name] }) { return Self.mp4(known) }
        guard var entry = channels.withLock({ $0[id]?.entries[insert] }) else { return .text(404, "no such break") }
        if entry.anchorTicks == nil {
            entry = resolve(entry, channel: channel)
            if let anchor = entry.anchorTicks { channels.withLock { $0[id]?.entries[insert]?.anchorTicks = anchor } }
        }
        guard let anchor = entry.anchorTicks, let span = try? FragmentReader.span(live[...], track: entry.timingTrack) else {
            return Self.mp4([])
        }
        let start = Int64(span.start) - anchor
        let bytes = entry.media.chunk(sequence: UInt32(truncatingIfNeeded: span.start / 900), span: start..<(start + Int64(span.duration)),
                                      anchorTicks: anchor)
        // Past the insert's end (a GAP=YES part) the answer is empty: a player appends nothing.
        let answer = bytes ?? []
        channels.withLock { channels in
            guard let held = channels[id]?.entries[insert]?.answerBytes else { return }
            if held + answer.count > Self.answerBytesLimit {
                channels[id]?.entries[insert]?.answers.removeAll()
                channels[id]?.entries[insert]?.answerBytes = 0
            }
            channels[id]?.entries[insert]?.answers[name] = answer
            channels[id]?.entries[insert]?.answerBytes += answer.count
        }
        return Self.mp4(answer)
    }

    static func mp4(_ bytes: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: 200, headers: [("Content-Type", "video/mp4"), ("Cache-Control", "no-cache")], body: bytes)
    }

    // MARK: Reading the break's media

    /// A segment file's bytes, or the byte range of it the segment names.
    static func readFile(_ path: String, _ range: Range<Int>?) -> [UInt8]? {
        guard let range else { return CacheFanRoutes.readFile(path) }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return RecordStore.read(fd, range)
    }
}
