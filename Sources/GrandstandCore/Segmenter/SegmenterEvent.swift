/// Why the media timeline restarted (an EXT-X-DISCONTINUITY before the next segment).
public enum DiscontinuityReason: String, Sendable, Equatable, CaseIterable {
    /// DTS went backwards or jumped beyond `timestampJumpTicks`.
    case timestampJump = "timestamp_jump"
    /// PCR went backwards or jumped beyond `pcrJumpNanoseconds`.
    case pcrJump = "pcr_jump"
    /// An adaptation field's discontinuity_indicator on the PCR or timing PID.
    case discontinuityIndicator = "discontinuity_indicator"
    /// The PMT changed its streams (or the PAT its program).
    case programChange = "program_change"
    /// Input was lost and the media clock no longer matches the capture clock across the hole.
    case timelineLost = "timeline_lost"
}

/// Why input was damaged (the open segment is split there; no media is listed until a keyframe).
public enum DamageReason: String, Sendable, Equatable {
    /// The ingest pipeline reported RTP packets it could not recover.
    case gapMarker = "gap_marker"
    /// A continuity_counter error on a program PID.
    case continuityError = "continuity_error"
}

/// A segment began (its parts follow as `.part`).
public struct SegmentStart: Sendable, Equatable {
    public var mediaSequence: Int
    /// Non-nil: an EXT-X-DISCONTINUITY precedes this segment.
    public var discontinuity: DiscontinuityReason?
    /// EXT-X-PROGRAM-DATE-TIME: UTC nanoseconds since 1970.
    public var programDateTimeNanoseconds: Int64
    /// Starts with a keyframe (false only for segments cut at the maximum duration).
    public var independent: Bool
    /// DTS (unwrapped, 90 kHz) of its first access unit.
    public var startTicks: Int64
}

/// A finished LL-HLS part: whole TS packets, PAT/PMT first when it opens its segment.
public struct PartOutput: Sendable, Equatable {
    public var mediaSequence: Int
    public var index: Int
    public var durationTicks: Int64
    /// Starts with a keyframe (EXT-X-PART INDEPENDENT=YES).
    public var independent: Bool
    public var bytes: [UInt8]
}

/// A hole in the media (EXT-X-GAP): no bytes, only its place on the timeline.
public struct GapSegment: Sendable, Equatable {
    public var mediaSequence: Int
    public var durationTicks: Int64
    public var programDateTimeNanoseconds: Int64
    /// What its URI serves to clients that load it anyway: the PAT and PMT, no media.
    public var bytes: [UInt8]
}

/// What the segmenter produced, in order: a segment starts, its parts follow, then it completes.
public enum SegmenterEvent: Sendable, Equatable {
    case segmentStarted(SegmentStart)
    case part(PartOutput)
    case segmentCompleted(mediaSequence: Int, durationTicks: Int64)
    case gap(GapSegment)
}

/// Segmenter counters (snake_case stats keys).
public struct SegmenterStatistics: Sendable, Equatable {
    public var segments = 0
    public var parts = 0
    public var accessUnits = 0
    /// Access units dropped because they could not be decoded (after damage, before the first keyframe).
    public var accessUnitsDropped = 0
    public var gapMarkers = 0
    public var lostPackets = 0
    public var continuityDamage = 0
    public var gapSegments = 0
    public var gapTicks: Int64 = 0
    public var discontinuities: [DiscontinuityReason: Int] = [:]
    /// Segments cut at the maximum duration without a keyframe.
    public var segmentsWithoutKeyframe = 0
    /// DTS steps longer than the part target (but not a restart), listed as EXT-X-GAP segments.
    public var timestampHoles = 0
    /// Packets of PIDs outside the program, dropped from segments.
    public var packetsNotInProgram = 0
    public var programDateTimeReanchors = 0

    public init() {}

    public var discontinuityCount: Int { discontinuities.values.reduce(0, +) }
}
