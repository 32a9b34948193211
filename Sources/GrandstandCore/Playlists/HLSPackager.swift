/// One channel's packaging: TS in, segments/parts and playlists out. Wraps the `Segmenter` and
/// the `MediaWindow`; what the pipeline's `.transportStream` and `.gap` actions feed, and what
/// the HTTP layer asks for playlists, resources and blocking-reload decisions.
public struct HLSPackager {
    public private(set) var segmenter: Segmenter
    public private(set) var window: MediaWindow

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

    public init(segmenter: SegmenterConfiguration = SegmenterConfiguration(),
                window: WindowConfiguration = WindowConfiguration(),
                keyframeDetector: any KeyframeDetector = NALUnitKeyframeDetector(),
                storage: @escaping SegmentBufferFactory = ArraySegmentBuffer.factory) {
        self.segmenter = Segmenter(configuration: segmenter, keyframeDetector: keyframeDetector)
        self.window = MediaWindow(configuration: window, segmenter: segmenter, storage: storage)
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
        return update
    }

    private mutating func apply(_ events: [SegmenterEvent]) -> Update {
        var update = Update()
        for event in events {
            window.apply(event)
            switch event {
            case .part(let p): update.partsPublished.append(PartName(mediaSequence: p.mediaSequence, index: p.index))
            case .segmentCompleted(let n, _): update.segmentsCompleted.append(n)
            case .gap(let g): update.gapSegments.append(g.mediaSequence)
            case .segmentStarted(let s): if let d = s.discontinuity { update.discontinuities.append(d) }
            }
        }
        return update
    }

    /// `live.m3u8` (LL-HLS tags included; classic clients ignore them).
    public func livePlaylist() -> String { window.playlist() }
    public func rewindPlaylist(_ position: RewindPosition) -> String { window.rewindPlaylist(position) }
    public func reloadDecision(msn: Int?, part: Int?) -> ReloadDecision { window.reloadDecision(msn: msn, part: part) }
    public func resource(named name: String) -> ResourceLookup { window.resource(named: name) }

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
        for reason in DiscontinuityReason.allCases {
            rows.append(("hls_discontinuities_" + reason.rawValue, Int64(s.discontinuities[reason] ?? 0)))
        }
        return rows
    }
}
