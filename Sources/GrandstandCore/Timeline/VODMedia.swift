/// A finished piece of media as a list of segments: a recording (byte ranges of one `.ts` file)
/// or a VOD item's playlist (one URI per segment). Timelines cut and stitch these (Timeline.swift).
public struct VODSegment: Sendable, Equatable {
    public var uri: String
    public var durationSeconds: Double
    /// `EXT-X-BYTERANGE` within `uri`, nil for a whole file.
    public var byteRange: Range<Int>?
    /// The segment does not continue the previous one (`EXT-X-DISCONTINUITY` before it).
    public var discontinuity: Bool

    public init(uri: String, durationSeconds: Double, byteRange: Range<Int>? = nil, discontinuity: Bool = false) {
        self.uri = uri
        self.durationSeconds = durationSeconds
        self.byteRange = byteRange
        self.discontinuity = discontinuity
    }
}
