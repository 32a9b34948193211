/// A low-latency DASH manifest (ISO/IEC 23009-1, DASH-IF IOP low-latency modes) over the same
/// CMAF segments the HLS playlist lists (`seg<N>.m4s`, headers `init<N>.mp4`), rendered from the
/// CMAF window. One AdaptationSet per track (video, audio), each Representation reading its track
/// out of the interleaved segments (`seg<N>.t<T>.m4s`, `init<N>.t<T>.mp4`: `TrackExtraction`),
/// addressed by `$Number$` = the HLS media sequence number with `@duration` = the target segment duration:
/// the usual LL-DASH form, exact when the source's keyframe interval divides the target (broadcast
/// encoders' fixed GOP); segments cut elsewhere shift the computed times by the difference until
/// the next manifest. `availabilityTimeOffset` lets a client ask for a segment once its first part
/// exists; the gateway then sends it chunk by chunk as parts are published. A new Period starts
/// where the timeline restarts or the header changes. Rules: docs/cmaf.md, "DASH".
public struct DASHManifest: Sendable {
    /// The tracks of each header id (`HLSPackager.CMAFOutput.headerTracks`).
    public var headers: [Int: [CMAFTrack]]
    /// The channel's bit rate (all tracks), for `@bandwidth`.
    public var bandwidth: Int
    /// The gateway's clock for clients (UTCTiming, `urn:mpeg:dash:utc:http-iso:2014`).
    public var timeURL: String
    /// The latency the client should hold (ServiceDescription), milliseconds.
    public var targetLatencyMilliseconds: Int

    public init(headers: [Int: [CMAFTrack]], bandwidth: Int, timeURL: String = "/time", targetLatencyMilliseconds: Int = 1500) {
        self.headers = headers
        self.bandwidth = max(1, bandwidth)
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
            // Static: the first Period begins at the first listed segment, its number and time.
            let first = !dynamic && anchor == periods.first?.anchor ? window.segments.first! : nil
            let number = first?.mediaSequence ?? anchor.sequence
            let offset = first?.presentationTicks ?? anchor.presentationTicks
            for track in headers[map] ?? [] {
                let video = track.codec.isVideo
                let scale = Int64(track.timescale)
                out += "    <AdaptationSet id=\"\(track.id)\" contentType=\"\(video ? "video" : "audio")\""
                out += " mimeType=\"\(video ? "video" : "audio")/mp4\" segmentAlignment=\"true\" startWithSAP=\"1\">\n"
                out += "      <Representation id=\"\(video ? "video" : "audio")\" bandwidth=\"\(video ? bandwidth : 128_000)\""
                out += " codecs=\"\(track.codec.codecString)\""
                if let size = track.size { out += " width=\"\(size.width)\" height=\"\(size.height)\"" }
                if case .aac(let c) = track.codec { out += " audioSamplingRate=\"\(c.sampleRate)\"" }
                out += ">\n"
                out += "        <SegmentTemplate timescale=\"\(scale)\""
                if dynamic { out += " duration=\"\(Self.rescale(segment, scale))\"" }
                out += " startNumber=\"\(number)\" presentationTimeOffset=\"\(Self.rescale(offset, scale))\""
                out += " initialization=\"" + CMAFName.header(map, track: track.id) + "\""
                out += " media=\"seg$Number$.t\(track.id).m4s\""
                if dynamic {
                    out += " availabilityTimeOffset=\"" + PlaylistFormat.seconds(segment - part, decimals: 3) + "\" availabilityTimeComplete=\"false\""
                    out += "/>\n"
                } else {
                    // Ended: the exact timeline of the Period's segments (runs of equal durations).
                    out += ">\n          <SegmentTimeline>\n"
                    let members = window.segments.filter { $0.period == anchor }
                    var i = 0
                    while i < members.count {
                        var run = 0
                        while i + run + 1 < members.count, members[i + run + 1].durationTicks == members[i].durationTicks { run += 1 }
                        out += "            <S t=\"\(Self.rescale(members[i].presentationTicks, scale))\" d=\"\(Self.rescale(members[i].durationTicks, scale))\""
                        out += run > 0 ? " r=\"\(run)\"/>\n" : "/>\n"
                        i += run + 1
                    }
                    out += "          </SegmentTimeline>\n        </SegmentTemplate>\n"
                }
                out += "      </Representation>\n"
                out += "    </AdaptationSet>\n"
            }
            out += "  </Period>\n"
        }
        if dynamic {
            out += "  <UTCTiming schemeIdUri=\"urn:mpeg:dash:utc:http-iso:2014\" value=\"" + timeURL + "\"/>\n"
        }
        out += "</MPD>\n"
        return out
    }

    /// 90 kHz `ticks` in `scale` units per second, without overflow for Unix-epoch times.
    static func rescale(_ ticks: Int64, _ scale: Int64) -> Int64 {
        let second = MediaClock.ticksPerSecond
        return ticks / second * scale + ticks % second * scale / second
    }

    /// An xs:duration in seconds with millisecond precision, e.g. `PT2.000S`.
    static func duration(_ ticks: Int64) -> String {
        "PT" + PlaylistFormat.seconds(ticks, decimals: 3) + "S"
    }
}
