/// How much the live window holds and how playlists name things.
public struct WindowConfiguration: Sendable, Equatable {
    /// Media kept and listed: at least this much (default 30 s, the rewind window).
    public var windowTicks: Int64
    /// Bytes held at most (segments, open segment and retired ones); the oldest segments go first
    /// even if the window then holds less than `windowTicks` (counted).
    public var byteCap: Int
    /// Segments kept fetchable after they left the playlist, for clients that loaded the
    /// playlist just before (RFC 8216bis §6.2.2 asks for the playlist's duration; see docs/hls.md).
    public var retiredSegments: Int
    /// URI stem: segments are `<prefix><msn>.<ext>`, parts `<prefix><msn>.<part>.<ext>`.
    public var segmentPrefix: String
    /// `ts` for MPEG-TS, `m4s` for CMAF (whose headers are `init<N>.mp4`, EXT-X-MAP).
    public var segmentExtension = "ts"
    /// How long a blocked request waits before 503/404; nil: three target durations (§6.2.5.2).
    public var blockTimeoutNanoseconds: Int64?

    public init(window: Double = 30, byteCap: Int = 48 << 20, retiredSegments: Int = 3, segmentPrefix: String = "seg") {
        windowTicks = MediaClock.ticks(seconds: max(window, 0))
        self.byteCap = byteCap
        self.retiredSegments = retiredSegments
        self.segmentPrefix = segmentPrefix
    }
}

/// One part of a stored segment: a byte range of the segment.
public struct StoredPart: Sendable, Equatable {
    public var index: Int
    public var durationTicks: Int64
    public var independent: Bool
    public var range: Range<Int>
}

/// One segment held in the window (the last may still be open, growing part by part).
public struct StoredSegment: Sendable, Equatable {
    public var mediaSequence: Int
    public var discontinuity: DiscontinuityReason?
    /// The discontinuity sequence number of this segment (RFC 8216bis §4.4.3.3).
    public var discontinuitySequence: Int
    public var isGap: Bool
    public var independent: Bool
    public var programDateTimeNanoseconds: Int64
    /// Final once `complete`; the sum of the parts so far while open.
    public var durationTicks: Int64
    public var complete: Bool
    public var parts: [StoredPart]
    /// The segment's bytes; `parts[i].range` are offsets into them.
    public var bytes: SegmentBytes
    /// Its start on the presentation timeline (`SegmentStart.presentationTicks`).
    public var presentationTicks: Int64 = 0
    /// The header (EXT-X-MAP `init<N>.mp4`) its media needs; nil for TS.
    public var map: Int?
    /// The first segment of its run with one header and an unbroken timeline (a DASH Period):
    /// that segment's number and presentation start.
    public var period = PeriodAnchor(sequence: 0, presentationTicks: 0)
}

/// Where a run of segments sharing a header and a continuous timeline starts.
public struct PeriodAnchor: Sendable, Equatable, Hashable {
    public var sequence: Int
    public var presentationTicks: Int64
}

/// Counters of the window (snake_case stats keys).
public struct WindowStatistics: Sendable, Equatable {
    public var segmentsEvicted = 0
    /// Segments evicted by the byte cap while the window held less than its duration.
    public var segmentsEvictedForBytes = 0
    public init() {}
}

/// The live window of one channel: segments in order, the open one last, byte-capped. Applies
/// the segmenter's events; renders playlists and looks resources up (Playlists/*.swift).
public struct MediaWindow: Sendable {
    public let configuration: WindowConfiguration
    public let segmenter: SegmenterConfiguration
    /// Makes each segment's buffer (arrays by default; memory files in the daemon).
    public let storage: SegmentBufferFactory
    public private(set) var segments: [StoredSegment] = []
    public private(set) var retired: [StoredSegment] = []
    public private(set) var statistics = WindowStatistics()
    /// Set by `finish`: the playlist is complete (EXT-X-ENDLIST) and nothing blocks.
    public private(set) var ended = false
    /// Bytes held (listed, open and retired segments).
    public private(set) var bytes = 0
    private var discontinuitySequence = 0
    /// The sequence number the next segment will get (for preload hints before it starts).
    public private(set) var nextMediaSequence = 0
    /// The header the newest segment uses (CMAF); a new segment starts with it.
    public private(set) var currentMap: Int?
    /// The current run's start (see `StoredSegment.period`).
    private var periodAnchor: PeriodAnchor?

    public init(configuration: WindowConfiguration = WindowConfiguration(),
                segmenter: SegmenterConfiguration = SegmenterConfiguration(),
                storage: @escaping SegmentBufferFactory = ArraySegmentBuffer.factory) {
        self.configuration = configuration
        self.segmenter = segmenter
        self.storage = storage
    }

    public var completeSegments: ArraySlice<StoredSegment> {
        segments.last?.complete == false ? segments.dropLast() : segments[...]
    }

    public var openSegment: StoredSegment? { segments.last?.complete == false ? segments.last : nil }

    /// Listed media duration (complete segments).
    public var durationTicks: Int64 { completeSegments.reduce(0) { $0 + $1.durationTicks } }

    public mutating func apply(_ event: SegmenterEvent) {
        switch event {
        case .segmentStarted(let start):
            if start.discontinuity != nil { discontinuitySequence += 1 }
            if start.discontinuity != nil || periodAnchor == nil {
                periodAnchor = PeriodAnchor(sequence: start.mediaSequence, presentationTicks: start.presentationTicks)
            }
            segments.append(StoredSegment(mediaSequence: start.mediaSequence, discontinuity: start.discontinuity,
                                          discontinuitySequence: discontinuitySequence, isGap: false,
                                          independent: start.independent,
                                          programDateTimeNanoseconds: start.programDateTimeNanoseconds,
                                          durationTicks: 0, complete: false, parts: [], bytes: [],
                                          presentationTicks: start.presentationTicks, map: currentMap, period: periodAnchor!))
            nextMediaSequence = start.mediaSequence + 1
        case .part(let part):
            guard let last = segments.indices.last, !segments[last].complete,
                  segments[last].mediaSequence == part.mediaSequence else { return }
            let start = segments[last].bytes.count
            if start == 0 { segments[last].bytes = SegmentBytes(factory: storage, capacityHint: part.bytes.count * 6) }
            segments[last].bytes.append(part.bytes, factory: storage)
            segments[last].parts.append(StoredPart(index: part.index, durationTicks: part.durationTicks,
                                                   independent: part.independent,
                                                   range: start..<(start + part.bytes.count)))
            segments[last].durationTicks += part.durationTicks
            bytes += part.bytes.count
            if bytes > configuration.byteCap { evict() }
        case .segmentCompleted(let sequence, let duration):
            guard let last = segments.indices.last, segments[last].mediaSequence == sequence else { return }
            segments[last].complete = true
            segments[last].durationTicks = duration
            // Nothing of it could be packaged (CMAF without parameter sets): list it as a gap.
            if segments[last].parts.isEmpty { segments[last].isGap = true }
            evict()
        case .gap(let gap):
            if periodAnchor == nil { periodAnchor = PeriodAnchor(sequence: gap.mediaSequence, presentationTicks: gap.presentationTicks) }
            segments.append(StoredSegment(mediaSequence: gap.mediaSequence, discontinuity: nil,
                                          discontinuitySequence: discontinuitySequence, isGap: true, independent: false,
                                          programDateTimeNanoseconds: gap.programDateTimeNanoseconds,
                                          durationTicks: gap.durationTicks, complete: true, parts: [], bytes: SegmentBytes(gap.bytes),
                                          presentationTicks: gap.presentationTicks, map: currentMap, period: periodAnchor!))
            bytes += gap.bytes.count
            nextMediaSequence = gap.mediaSequence + 1
            evict()
        }
    }

    /// The open segment `sequence` (and those after it) use header `map`.
    public mutating func useMap(_ map: Int, forSegment sequence: Int) {
        defer { currentMap = map }
        guard let last = segments.indices.last, segments[last].mediaSequence == sequence else { return }
        if let previous = currentMap, previous != map {
            // A new header starts a new run (a DASH Period).
            periodAnchor = PeriodAnchor(sequence: sequence, presentationTicks: segments[last].presentationTicks)
            segments[last].period = periodAnchor!
        }
        segments[last].map = map
    }

    /// Headers any held segment (listed, open or retired) still uses.
    public var mapsInUse: Set<Int> { Set((segments + retired).compactMap(\.map)) }

    /// End of the stream: an open segment without media is dropped and playlists get EXT-X-ENDLIST.
    public mutating func finish() {
        if let open = openSegment, open.parts.isEmpty { segments.removeLast() }
        ended = true
    }

    /// Drops the oldest segments beyond the window duration or the byte cap (never the last
    /// complete one, nor the open one).
    private mutating func evict() {
        while completeSegments.count > 1, let first = segments.first {
            let overWindow = durationTicks - first.durationTicks >= configuration.windowTicks
            let overBytes = bytes > configuration.byteCap
            guard overWindow || overBytes else { break }
            if !overWindow { statistics.segmentsEvictedForBytes += 1 }
            statistics.segmentsEvicted += 1
            retired.append(segments.removeFirst())
        }
        while retired.count > configuration.retiredSegments || (bytes > configuration.byteCap && !retired.isEmpty) {
            bytes -= retired.removeFirst().bytes.count
        }
    }

    // MARK: Naming

    public func segmentName(_ sequence: Int) -> String { "\(configuration.segmentPrefix)\(sequence).\(configuration.segmentExtension)" }
    public func partName(_ sequence: Int, _ index: Int) -> String {
        "\(configuration.segmentPrefix)\(sequence).\(index).\(configuration.segmentExtension)"
    }
    /// The header `map`'s URI (EXT-X-MAP).
    public static func mapName(_ map: Int) -> String { "init\(map).mp4" }

    /// (sequence, part index?) from a resource name, nil when it is not one of ours.
    func parseName(_ name: String) -> (sequence: Int, part: Int?)? {
        let prefix = configuration.segmentPrefix
        let suffix = "." + configuration.segmentExtension
        guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return nil }
        let core = name.dropFirst(prefix.count).dropLast(suffix.count)
        let fields = core.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(fields.count), fields.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              fields.allSatisfy({ $0.count <= 9 }), let sequence = Int(fields[0]) else { return nil }
        if fields.count == 1 { return (sequence, nil) }
        guard let part = Int(fields[1]) else { return nil }
        return (sequence, part)
    }
}
