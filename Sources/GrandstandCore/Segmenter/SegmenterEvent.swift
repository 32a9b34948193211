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
    /// Where it starts on the presentation timeline (90 kHz): continuous from segment to segment
    /// and across gaps, so fragmented-MP4 decode times never jump back; at the first segment and
    /// after a discontinuity it is the program date-time (never earlier than the last end).
    public var presentationTicks: Int64 = 0
}

/// A finished LL-HLS part: whole TS packets, PAT/PMT first when it opens its segment.
public struct PartOutput: Sendable, Equatable {
    public var mediaSequence: Int
    public var index: Int
    public var durationTicks: Int64
    /// Starts with a keyframe (EXT-X-PART INDEPENDENT=YES).
    public var independent: Bool
    public var bytes: [UInt8]
    /// DTS (unwrapped, 90 kHz) where it starts.
    public var startTicks: Int64 = 0
    /// Its timing-stream access units and other streams' PES packets, when the configuration
    /// asks for them (`collectsSamples`: CMAF packaging); empty otherwise.
    public var samples = PartSamples()
}

/// The elementary-stream content of one part, for packagers other than TS (CMAF).
public struct PartSamples: Sendable, Equatable {
    /// The timing stream's access units placed in the part, in decode order.
    public var accessUnits: [PlacedAccessUnit] = []
    /// Whole PES packets of the program's other streams (audio) whose PTS falls before the part's
    /// end, in arrival order.
    public var companions: [CompanionPES] = []
    /// The AAC (ADTS) streams the PMT lists besides the timing stream.
    public var audioPIDs: [UInt16] = []
    /// The first payload bytes of each of those streams' newest PES (an ADTS header).
    public var audioHeads: [UInt16: [UInt8]] = [:]
    public init() {}
}

/// A timing-stream access unit as the segmenter placed it.
public struct PlacedAccessUnit: Sendable, Equatable {
    public var streamType: StreamType
    /// DTS, unwrapped (90 kHz).
    public var decodeTicks: Int64
    /// PTS − DTS (90 kHz; 0 without B-frames).
    public var compositionOffsetTicks: Int64
    public var durationTicks: Int64
    public var keyframe: Bool
    /// The PES payload (Annex B for H.264/HEVC, ADTS for AAC).
    public var payload: [UInt8]
}

/// A PES packet of another stream of the program, its PTS unwrapped onto the timing stream's
/// timeline (90 kHz).
public struct CompanionPES: Sendable, Equatable {
    public var pid: UInt16
    public var streamType: StreamType
    public var presentationTicks: Int64
    public var payload: [UInt8]
}

/// A hole in the media (EXT-X-GAP): no bytes, only its place on the timeline.
public struct GapSegment: Sendable, Equatable {
    public var mediaSequence: Int
    public var durationTicks: Int64
    public var programDateTimeNanoseconds: Int64
    /// What its URI serves to clients that load it anyway: the PAT and PMT, no media.
    public var bytes: [UInt8]
    /// Where it starts on the presentation timeline (see `SegmentStart.presentationTicks`).
    public var presentationTicks: Int64 = 0
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
    /// Other streams' PES packets dropped for CMAF: outside the media listed after a
    /// resynchronisation, or beyond the backlog limit.
    public var companionPESDropped = 0

    public init() {}

    public var discontinuityCount: Int { discontinuities.values.reduce(0, +) }
}
