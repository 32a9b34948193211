/// Media time in 90 kHz ticks (the PES clock), the unit of every duration the segmenter reports.
public enum MediaClock {
    public static let ticksPerSecond: Int64 = 90_000

    public static func ticks(seconds: Double) -> Int64 { Int64((seconds * Double(ticksPerSecond)).rounded()) }
    public static func nanoseconds(ticks: Int64) -> Int64 { ticks * 100_000 / 9 }
    public static func seconds(ticks: Int64) -> Double { Double(ticks) / Double(ticksPerSecond) }
}

/// How the TS is cut into segments and LL-HLS parts (see docs/hls.md).
public struct SegmenterConfiguration: Sendable, Equatable {
    /// A segment is cut at the first keyframe at or after this much media time (default 2 s).
    public var targetDurationTicks: Int64
    /// Parts are closed before they would exceed this (0.4 s here, which the golden playlists use;
    /// the gateway configures 0.2 s by default, `GatewayConfig.HLS.partSeconds`).
    public var partTargetTicks: Int64
    /// Consecutive access units whose DTS go backwards or jump forward more than this are a
    /// restart of the stream (default 2 s).
    public var timestampJumpTicks: Int64
    /// Consecutive PCRs further apart than this (or going back) are a restart (§2.7.2 asks for
    /// one every 100 ms; default 1 s).
    public var pcrJumpNanoseconds: Int64
    /// After lost input, the media timeline counts as unbroken when its advance matches the
    /// capture clock's within this tolerance (default 1 s); then the hole is an EXT-X-GAP.
    public var clockToleranceNanoseconds: Int64
    /// Holes longer than this become a discontinuity instead of gap segments (default 30 s).
    public var maximumGapTicks: Int64
    /// Parts also carry their access units and the other streams' PES packets (`PartSamples`),
    /// for CMAF packaging. Off, only the timing stream is reassembled.
    public var collectsSamples = false

    public init(targetDuration: Double = 2, partTarget: Double = 0.4, timestampJump: Double = 2,
                pcrJump: Double = 1, clockTolerance: Double = 1, maximumGap: Double = 30) {
        let target = max(MediaClock.ticks(seconds: targetDuration), MediaClock.ticksPerSecond / 10)
        targetDurationTicks = target
        partTargetTicks = min(max(MediaClock.ticks(seconds: partTarget), MediaClock.ticksPerSecond / 50), target)
        timestampJumpTicks = MediaClock.ticks(seconds: timestampJump)
        pcrJumpNanoseconds = Int64(pcrJump * 1e9)
        clockToleranceNanoseconds = Int64(clockTolerance * 1e9)
        maximumGapTicks = MediaClock.ticks(seconds: maximumGap)
    }

    /// EXT-X-TARGETDURATION: the target rounded up to whole seconds.
    public var targetDurationSeconds: Int {
        Int((targetDurationTicks + MediaClock.ticksPerSecond - 1) / MediaClock.ticksPerSecond)
    }

    /// The longest segment allowed: EXTINF rounded to the nearest integer must not exceed
    /// EXT-X-TARGETDURATION (RFC 8216bis §4.4.3.1), so just under TARGETDURATION + 0.5 s. A
    /// segment reaching it without a keyframe is cut anyway (counted, not independent).
    public var maximumSegmentTicks: Int64 {
        Int64(targetDurationSeconds) * MediaClock.ticksPerSecond + MediaClock.ticksPerSecond / 2 - 1
    }
}
