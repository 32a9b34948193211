/// One channel's packaging: TS in, segments/parts and playlists out. Wraps the `Segmenter` and
/// one `MediaWindow` per format: MPEG-TS (`seg<N>.ts`) and CMAF (`seg<N>.m4s` with `init<N>.mp4`
/// headers, from the `CMAFFragmenter`), cut at the same places under the same numbers. What the
/// pipeline's `.transportStream` and `.gap` actions feed, and what the HTTP layer asks for
/// playlists, resources and blocking-reload decisions.
public struct HLSPackager {
    public private(set) var segmenter: Segmenter
    /// The MPEG-TS window (also what recordings and thumbnails read; kept when TS is not served,
    /// see `formats`).
    public private(set) var window: MediaWindow
    /// The CMAF window and its headers by id; nil when CMAF is off.
    public private(set) var cmaf: CMAFOutput?

    /// CMAF packaging state.
    public struct CMAFOutput: Sendable {
        public fileprivate(set) var fragmenter = CMAFFragmenter()
        public fileprivate(set) var window: MediaWindow
        /// Headers still used by a held segment, by id, and their tracks.
        public fileprivate(set) var inits: [Int: [UInt8]] = [:]
        public fileprivate(set) var headerTracks: [Int: [CMAFTrack]] = [:]
    }

    /// The segment formats a playlist can be asked for.
    public enum Format: String, Sendable, Equatable, CaseIterable {
        case ts, cmaf
    }

    /// What changed with one call: wake blocked requests when non-empty.
    public struct Update: Sendable, Equatable {
        public var partsPublished: [PartName] = []
        public var segmentsCompleted: [Int] = []
        public var gapSegments: [Int] = []
        public var discontinuities: [DiscontinuityReason] = []
        public var isEmpty: Bool { partsPublished.isEmpty && segmentsCompleted.isEmpty && gapSegments.isEmpty }
    }

    public struct PartName: Sendable, Equatable {
        public var mediaSequence: Int
        public var index: Int
    }

    /// `cmaf`: also package CMAF (the segmenter then collects samples).
    public init(segmenter: SegmenterConfiguration = SegmenterConfiguration(),
                window: WindowConfiguration = WindowConfiguration(),
                keyframeDetector: any KeyframeDetector = NALUnitKeyframeDetector(),
                storage: @escaping SegmentBufferFactory = ArraySegmentBuffer.factory, cmaf: Bool = false) {
        var configuration = segmenter
        configuration.collectsSamples = cmaf
        self.segmenter = Segmenter(configuration: configuration, keyframeDetector: keyframeDetector)
        self.window = MediaWindow(configuration: window, segmenter: configuration, storage: storage)
        if cmaf {
            var fragmented = window
            fragmented.segmentExtension = "m4s"
            self.cmaf = CMAFOutput(window: MediaWindow(configuration: fragmented, segmenter: configuration, storage: storage))
        }
    }

    /// Whether `format` is packaged for this channel: TS always; CMAF when on and the timing
    /// stream is one it carries (H.264, HEVC, AAC), known once the PMT arrived.
    public func offers(_ format: Format) -> Bool {
        switch format {
        case .ts: true
        case .cmaf: cmaf != nil && (segmenter.timing.map { CMAFFragmenter.supports(timing: $0.streamType) } ?? false)
        }
    }

    /// The window of `format` (TS when CMAF is off).
    public func window(_ format: Format) -> MediaWindow {
        format == .cmaf ? cmaf?.window ?? window : window
    }

    /// n×188 TS bytes (any split) captured at `timestampNanoseconds` (`.transportStream`).
    public mutating func ingest(_ packets: ArraySlice<UInt8>, timestampNanoseconds: Int64) -> Update {
        apply(segmenter.ingest(packets, timestampNanoseconds: timestampNanoseconds))
    }

    /// RTP packets lost for good (`.gap`): the open segment is split here.
    public mutating func gap(lostPackets: Int, timestampNanoseconds: Int64) -> Update {
        apply(segmenter.gap(lostPackets: lostPackets, timestampNanoseconds: timestampNanoseconds))
    }

    /// End of input (replay): completes the last segment; playlists end with EXT-X-ENDLIST.
    public mutating func finish() -> Update {
        let update = apply(segmenter.finish())
        window.finish()
        cmaf?.window.finish()
        return update
    }

    private mutating func apply(_ events: [SegmenterEvent]) -> Update {
        var update = Update()
        for event in events {
            window.apply(event)
            if cmaf != nil { applyCMAF(event) }
            switch event {
            case .part(let p): update.partsPublished.append(PartName(mediaSequence: p.mediaSequence, index: p.index))
            case .segmentCompleted(let n, _): update.segmentsCompleted.append(n)
            case .gap(let g): update.gapSegments.append(g.mediaSequence)
            case .segmentStarted(let s): if let d = s.discontinuity { update.discontinuities.append(d) }
            }
        }
        return update
    }

    private mutating func applyCMAF(_ event: SegmenterEvent) {
        guard var output = cmaf else { return }
        cmaf = nil   // keep the CMAF state uniquely referenced while it changes
        for result in output.fragmenter.apply(event) {
            if let (id, bytes) = result.newInit {
                output.inits[id] = bytes
                output.headerTracks[id] = output.fragmenter.current?.tracks
            }
            output.window.apply(result.event)
            if let id = result.initID, case .part(let part) = result.event { output.window.useMap(id, forSegment: part.mediaSequence) }
        }
        if output.inits.count > 1 {
            let used = output.window.mapsInUse.union(output.fragmenter.current.map { [$0.id] } ?? [])
            output.inits = output.inits.filter { used.contains($0.key) }
            output.headerTracks = output.headerTracks.filter { used.contains($0.key) }
        }
        cmaf = output
    }

    /// `live.m3u8` (LL-HLS tags included; classic clients ignore them).
    public func livePlaylist(_ format: Format = .ts, delta: Bool = false) -> String {
        window(format).playlist(MediaWindow.PlaylistOptions(delta: delta))
    }
    public func rewindPlaylist(_ position: RewindPosition, _ format: Format = .ts) -> String { window(format).rewindPlaylist(position) }
    public func reloadDecision(msn: Int?, part: Int?, _ format: Format = .ts) -> ReloadDecision {
        window(format).reloadDecision(msn: msn, part: part)
    }

    /// A segment or part (`seg<N>[.<P>].ts` / `.m4s`), a CMAF header (`init<N>.mp4`), or one
    /// track of a CMAF segment or header for DASH (`seg<N>.t<T>.m4s`, `init<N>.t<T>.mp4`).
    public func resource(named name: String) -> ResourceLookup {
        guard let cmaf else { return window.resource(named: name) }
        if let (id, track) = CMAFName.header(name) {
            guard let bytes = cmaf.inits[id] else { return .notFound }
            guard let track else { return .media(SegmentBytes(bytes)) }
            guard let tracks = cmaf.headerTracks[id]?.filter({ $0.id == track }), !tracks.isEmpty else { return .notFound }
            return .media(SegmentBytes(InitSegment.bytes(tracks: tracks)))
        }
        if let (sequence, track) = CMAFName.trackSegment(name) {
            switch cmaf.window.resource(named: cmaf.window.segmentName(sequence)) {
            case .media(let bytes):
                guard let one = try? TrackExtraction.extract(track: track, from: bytes.array[...]), !one.isEmpty else { return .notFound }
                return .media(SegmentBytes(one))
            case let other: return other
            }
        }
        if name.hasSuffix(".m4s") { return cmaf.window.resource(named: name) }
        return window.resource(named: name)
    }

    /// Counters for stats.json (snake_case keys, deterministic order).
    public var statistics: [(String, Int64)] {
        let s = segmenter.statistics, d = segmenter.demuxer.statistics, w = window.statistics
        var rows: [(String, Int64)] = [
            ("num_ts_discontinuities", Int64(d.continuityErrors)),
            ("hls_segments", Int64(s.segments)), ("hls_parts", Int64(s.parts)),
            ("hls_access_units", Int64(s.accessUnits)), ("hls_access_units_dropped", Int64(s.accessUnitsDropped)),
            ("hls_gap_markers", Int64(s.gapMarkers)), ("hls_lost_packets", Int64(s.lostPackets)),
            ("hls_continuity_damage", Int64(s.continuityDamage)),
            ("hls_gap_segments", Int64(s.gapSegments)), ("hls_gap_ms", s.gapTicks / 90),
            ("hls_discontinuities", Int64(s.discontinuityCount)),
            ("hls_segments_without_keyframe", Int64(s.segmentsWithoutKeyframe)),
            ("hls_timestamp_holes", Int64(s.timestampHoles)),
            ("hls_segments_evicted", Int64(w.segmentsEvicted)),
            ("hls_segments_evicted_for_bytes", Int64(w.segmentsEvictedForBytes)),
            ("hls_bytes_held", Int64(window.bytes)),
            ("ts_packets", Int64(d.packets)), ("ts_malformed_packets", Int64(d.malformedPackets)),
            ("ts_section_errors", Int64(d.sectionErrors)), ("ts_pes_discarded", Int64(d.pesDiscarded)),
        ]
        if let cmaf {
            let c = cmaf.fragmenter.statistics
            rows += [
                ("cmaf_chunks", Int64(c.chunks)), ("cmaf_init_segments", Int64(c.initSegments)),
                ("cmaf_segments_unpackaged", Int64(c.segmentsUnpackaged)),
                ("cmaf_unsupported_audio_pes", Int64(c.unsupportedAudioPES)), ("cmaf_bad_adts_frames", Int64(c.badADTSFrames)),
                ("cmaf_audio_frames_overlapping", Int64(c.audioFramesOverlapping)),
                ("cmaf_companion_pes_dropped", Int64(s.companionPESDropped)),
                ("cmaf_bytes_held", Int64(cmaf.window.bytes)),
            ]
        }
        for reason in DiscontinuityReason.allCases {
            rows.append(("hls_discontinuities_" + reason.rawValue, Int64(s.discontinuities[reason] ?? 0)))
        }
        return rows
    }
}
