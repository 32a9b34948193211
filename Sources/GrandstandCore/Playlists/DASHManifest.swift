/// A low-latency DASH manifest (ISO/IEC 23009-1, DASH-IF IOP low-latency modes) over the same
/// CMAF segments the HLS playlist lists (`seg<N>.m4s`, headers `init<N>.mp4`), rendered from the
/// CMAF window. One muxed Representation (the chunks carry video and audio tracks), addressed
/// by `$Number$` = the HLS media sequence number with `@duration` = the target segment duration:
/// the usual LL-DASH form, exact when the source's keyframe interval divides the target (broadcast
/// encoders' fixed GOP); segments cut elsewhere shift the computed times by the difference until
/// the next manifest. `availabilityTimeOffset` lets a client ask for a segment once its first part
/// exists; the gateway then sends it chunk by chunk as parts are published. A new Period starts
/// where the timeline restarts or the header changes. Rules: docs/cmaf.md, "DASH".
public struct DASHManifest: Sendable {
    /// The Representation's description (from the CMAF header).
    public struct Media: Sendable, Equatable {
        public var codecs: String
        public var width: Int?
        public var height: Int?
        public var bandwidth: Int
        public init(codecs: String, width: Int? = nil, height: Int? = nil, bandwidth: Int) {
            self.codecs = codecs
            self.width = width
            self.height = height
            self.bandwidth = bandwidth
        }
    }

    public var media: Media
    /// The gateway's clock for clients (UTCTiming, `urn:mpeg:dash:utc:http-iso:2014`).
    public var timeURL: String
    /// The latency the client should hold (ServiceDescription), milliseconds.
    public var targetLatencyMilliseconds: Int

    public init(media: Media, timeURL: String = "/time", targetLatencyMilliseconds: Int = 1500) {
        self.media = media
        self.timeURL = timeURL
        self.targetLatencyMilliseconds = targetLatencyMilliseconds
    }

    /// The periods of `window`'s listed segments, each with its header, oldest first.
    static func periods(_ window: MediaWindow) -> [(anchor: PeriodAnchor, map: Int)] {
        var periods: [(anchor: PeriodAnchor, map: Int)] = []
        for segment in window.segments where segment.period != periods.last?.anchor {
            periods.append((segment.period, segment.map ?? periods.last?.map ?? 0))
        }
        return periods
    }

    /// The MPD for `window` at `nowNanoseconds` (`publishTime`); static once the window ended.
    public func render(_ window: MediaWindow, nowNanoseconds: Int64) -> String {
        let segment = window.segmenter.targetDurationTicks
        let part = window.segmenter.partTargetTicks
        let periods = Self.periods(window)
        let dynamic = !window.ended
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<MPD xmlns=\"urn:mpeg:dash:schema:mpd:2011\" profiles=\"urn:mpeg:dash:profile:isoff-live:2011,urn:mpeg:dash:profile:cmaf:2019\""
        out += " minBufferTime=\"" + Self.duration(part * 2) + "\""
        out += " maxSegmentDuration=\"" + Self.duration(window.segmenter.maximumSegmentTicks) + "\""
        if dynamic {
            // Times count from 1970: the presentation timeline starts at the first program date-time.
            out += " type=\"dynamic\" availabilityStartTime=\"1970-01-01T00:00:00Z\""
            out += " publishTime=\"" + RFC3339.format(nanoseconds: nowNanoseconds, fractionDigits: 3) + "\""
            out += " minimumUpdatePeriod=\"" + Self.duration(segment) + "\""
            out += " timeShiftBufferDepth=\"" + Self.duration(window.configuration.windowTicks) + "\""
            out += " suggestedPresentationDelay=\"" + Self.duration(Int64(targetLatencyMilliseconds) * 90) + "\""
        } else {
            out += " type=\"static\" mediaPresentationDuration=\"" + Self.duration(window.durationTicks) + "\""
        }
        out += ">\n"
        if dynamic {
            let target = targetLatencyMilliseconds
            out += "  <ServiceDescription id=\"0\">\n"
            out += "    <Latency referenceId=\"0\" target=\"\(target)\" min=\"\(target * 2 / 3)\" max=\"\(target * 3)\"/>\n"
            out += "    <PlaybackRate min=\"0.96\" max=\"1.04\"/>\n"
            out += "  </ServiceDescription>\n"
        }
        let origin = window.segments.first?.presentationTicks ?? 0
        for (anchor, map) in periods {
            // Dynamic: Period@start on the 1970 timeline (where the run's first segment starts,
            // listed or not, so a Period keeps its start across updates); static: from the first
            // listed segment, and the first Period starts with it.
            let start = dynamic ? anchor.presentationTicks : max(0, anchor.presentationTicks - origin)
            out += "  <Period id=\"p\(anchor.sequence)\" start=\"" + Self.duration(start) + "\">\n"
            out += "    <AdaptationSet id=\"0\" mimeType=\"video/mp4\" segmentAlignment=\"true\" startWithSAP=\"1\">\n"
            out += "      <Representation id=\"0\" bandwidth=\"\(media.bandwidth)\" codecs=\"\(media.codecs)\""
            if let w = media.width, let h = media.height { out += " width=\"\(w)\" height=\"\(h)\"" }
            out += ">\n"
            out += "        <SegmentTemplate timescale=\"\(MediaClock.ticksPerSecond)\" duration=\"\(segment)\""
            // Static: the first Period begins at the first listed segment, its number and time.
            let first = !dynamic && anchor == periods.first?.anchor ? window.segments.first! : nil
            let number = first?.mediaSequence ?? anchor.sequence
            let offset = first?.presentationTicks ?? anchor.presentationTicks
            out += " startNumber=\"\(number)\" presentationTimeOffset=\"\(offset)\""
            out += " initialization=\"" + MediaWindow.mapName(map) + "\" media=\"seg$Number$.m4s\""
            if dynamic {
                out += " availabilityTimeOffset=\"" + PlaylistFormat.seconds(segment - part, decimals: 3) + "\" availabilityTimeComplete=\"false\""
            }
            out += "/>\n"
            out += "      </Representation>\n"
            out += "    </AdaptationSet>\n"
            out += "  </Period>\n"
        }
        if dynamic {
            out += "  <UTCTiming schemeIdUri=\"urn:mpeg:dash:utc:http-iso:2014\" value=\"" + timeURL + "\"/>\n"
        }
        out += "</MPD>\n"
        return out
    }

    /// An xs:duration in seconds with millisecond precision, e.g. `PT2.000S`.
    static func duration(_ ticks: Int64) -> String {
        "PT" + PlaylistFormat.seconds(ticks, decimals: 3) + "S"
    }
}
