/// A video channel's decode-health counters (stats keys, docs/hls.md "Video health"). Every
/// access unit that should have become a picture and did not — or became a damaged one — is
/// counted once in exactly one of `lost`, `damaged`, `missingReference` or `skipped`;
/// `num_dropped_video_frames` is their sum (the StadiumVision key, the poor-quality signal).
public struct VideoHealthCounters: Sendable, Equatable {
    /// Access units (pictures) seen in the stream, lost ones not included.
    public var accessUnits = 0
    /// Pictures libavcodec returned.
    public var picturesDecoded = 0
    /// Access units that never arrived (packet loss FEC could not repair), from the DTS timeline.
    public var lost = 0
    /// Access units that arrived incomplete, or that libavcodec rejected or returned damaged.
    public var damaged = 0
    /// Access units after a lost or damaged one, before the next keyframe: they reference
    /// pictures the decoder does not have, so they are not decoded.
    public var missingReference = 0
    /// Access units not decoded because the health check fell behind (and those after them
    /// up to the next keyframe).
    public var skipped = 0
    /// `num_decode_errors`: libavcodec errors (an access unit rejected, a picture returned with
    /// decode-error or corrupt flags).
    public var decodeErrors = 0
    /// Access units before the first keyframe (joining a stream mid-GOP; not a drop).
    public var beforeFirstKeyframe = 0

    public init() {}

    /// `num_dropped_video_frames`.
    public var droppedFrames: Int { lost + damaged + missingReference + skipped }

    /// Stats rows (snake_case; StadiumVision names verbatim), in a fixed order.
    public var statistics: [(String, Int64)] {
        [("num_dropped_video_frames", Int64(droppedFrames)), ("num_decode_errors", Int64(decodeErrors)),
         ("video_access_units", Int64(accessUnits)), ("video_frames_decoded", Int64(picturesDecoded)),
         ("video_frames_lost", Int64(lost)), ("video_frames_damaged", Int64(damaged)),
         ("video_frames_missing_reference", Int64(missingReference)), ("video_frames_skipped", Int64(skipped)),
         ("video_frames_before_first_keyframe", Int64(beforeFirstKeyframe))]
    }
}
