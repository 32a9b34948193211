/// The `hls` section: segment and part timing, the live rewind window and its byte cap, how long
/// a blocking playlist reload may wait, and the decode health check (docs/hls.md "Configuration").
extension GatewayConfig {
    public struct HLS: Sendable, Equatable {
        /// Segments are cut at the first keyframe at or after this (seconds; 1...10, default 2).
        public var targetSegmentSeconds: Double = 2
        /// LL-HLS part target (seconds; 0.1...2 and at most the segment target, default 0.2: five
        /// or six frames at 25/30 fps, and the fan app about 0.6–0.9 s behind live; docs/hls.md).
        public var partSeconds: Double = 0.2
        /// The live rewind window (seconds; at least 30, the promised rewind, at most 3600).
        public var rewindWindowSeconds: Double = 30
        /// Bytes one channel's window may hold (1 MiB...1 GiB, default 48 MiB).
        public var windowByteCap: Int = 48 << 20
        /// How long a blocking reload or hinted part request waits (seconds; 1...60). nil: three
        /// target durations, RFC 8216bis §6.2.5.2.
        public var blockingReloadTimeoutSeconds: Double?
        /// Decode each video channel with libavcodec for `num_dropped_video_frames` and
        /// `num_decode_errors` (default on).
        public var videoHealth = true
        /// Package CMAF (fragmented MP4) beside MPEG-TS: `live.m3u8` is then LL-HLS over CMAF and
        /// `live-ts.m3u8` the TS playlist (default on; docs/cmaf.md).
        public var cmaf = true

        public static let minimumRewindWindowSeconds = 30.0

        public init() {}

        public var segmenter: SegmenterConfiguration {
            SegmenterConfiguration(targetDuration: targetSegmentSeconds, partTarget: partSeconds)
        }

        public var window: WindowConfiguration {
            var window = WindowConfiguration(window: rewindWindowSeconds, byteCap: windowByteCap)
            window.blockTimeoutNanoseconds = blockingReloadTimeoutSeconds.map { Int64(($0 * 1e9).rounded()) }
            return window
        }
    }

    static func decodeHLS(_ root: JSONObjectView, _ reader: inout JSONReader) -> HLS {
        var hls = HLS()
        guard let object = reader.object(root["hls"], at: root.path("hls"),
                                         known: ["targetSegmentSeconds", "partSeconds", "rewindWindowSeconds", "windowByteCap",
                                                 "blockingReloadTimeoutSeconds", "videoHealth", "cmaf"]) else { return hls }
        hls.targetSegmentSeconds = seconds(object, "targetSegmentSeconds", in: 1...10, &reader) ?? hls.targetSegmentSeconds
        if let part = seconds(object, "partSeconds", in: 0.1...2, &reader) {
            if part > hls.targetSegmentSeconds {
                reader.report(object.path("partSeconds"), "\(part) is longer than targetSegmentSeconds (\(hls.targetSegmentSeconds))")
            } else {
                hls.partSeconds = part
            }
        } else if hls.partSeconds > hls.targetSegmentSeconds {
            hls.partSeconds = hls.targetSegmentSeconds
        }
        if let window = seconds(object, "rewindWindowSeconds", in: 0...3600, &reader) {
            if window < HLS.minimumRewindWindowSeconds {
                reader.report(object.path("rewindWindowSeconds"),
                              "\(window) is under the 30 s rewind window the gateway promises (rewind.m3u8?offset=-30)")
            } else {
                hls.rewindWindowSeconds = window
            }
        }
        hls.windowByteCap = reader.integer(object["windowByteCap"], at: object.path("windowByteCap"),
                                           in: (1 << 20)...(1 << 30)) ?? hls.windowByteCap
        hls.blockingReloadTimeoutSeconds = seconds(object, "blockingReloadTimeoutSeconds", in: 1...60, &reader)
        hls.videoHealth = reader.bool(object["videoHealth"], at: object.path("videoHealth")) ?? hls.videoHealth
        hls.cmaf = reader.bool(object["cmaf"], at: object.path("cmaf")) ?? hls.cmaf
        return hls
    }

    /// A number of seconds in `range` (fractions allowed), reported with its path when not.
    private static func seconds(_ object: JSONObjectView, _ key: String, in range: ClosedRange<Double>,
                                _ reader: inout JSONReader) -> Double? {
        guard let value = object[key] else { return nil }
        guard case .number(let number) = value else {
            reader.report(object.path(key), "expected a number of seconds, got \(value.typeName)")
            return nil
        }
        guard range.contains(number) else {
            reader.report(object.path(key), "\(number) is out of range \(range.lowerBound)...\(range.upperBound) seconds")
            return nil
        }
        return number
    }
}
