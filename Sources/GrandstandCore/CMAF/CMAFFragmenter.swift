/// Turns the segmenter's parts into CMAF chunks (ISO/IEC 23000-19): each part becomes one
/// `moof`+`mdat` holding the timing stream's access units and the program's AAC audio in their
/// own tracks (more chunks follow when the audio itself has a hole), so the same segments and
/// parts the TS playlist lists exist in fragmented MP4 under the same numbers. Pure: events in,
/// events with CMAF bytes out; header (init segment) changes are reported with the event.
///
/// Timing: decode times are the segmenter's presentation timeline (`SegmentStart.presentationTicks`),
/// which never goes back, so a player appends every chunk of a channel to one buffer without
/// timestamp offsets; audio keeps its PTS distance to video, so lip sync is the source's.
/// Rules and what is left out: docs/cmaf.md.
public struct CMAFFragmenter: Sendable {
    /// What came out of one segmenter event.
    public struct Output: Sendable, Equatable {
        public var event: SegmenterEvent
        /// A new header that this segment (and those after it) use: its id and bytes.
        public var newInit: (id: Int, bytes: [UInt8])?
        /// The header the event's segment uses (set on its first part).
        public var initID: Int?

        public static func == (a: Output, b: Output) -> Bool {
            a.event == b.event && a.newInit?.id == b.newInit?.id && a.newInit?.bytes == b.newInit?.bytes && a.initID == b.initID
        }
    }

    public struct Statistics: Sendable, Equatable {
        public var chunks = 0
        public var initSegments = 0
        /// Segments left without media in CMAF (no parameter sets yet, or an unsupported codec):
        /// they are listed as EXT-X-GAP.
        public var segmentsUnpackaged = 0
        /// Audio PES packets of streams CMAF does not carry here (not AAC in ADTS, or a second
        /// audio stream), and ADTS frames that failed to parse.
        public var unsupportedAudioPES = 0
        public var badADTSFrames = 0
        /// AAC frames that overlapped audio already written (a source repeating audio).
        public var audioFramesOverlapping = 0
        public init() {}
    }

    public internal(set) var statistics = Statistics()
    /// The header in use and its tracks.
    public internal(set) var current: (id: Int, tracks: [CMAFTrack])?
    public internal(set) var nextInitID = 0

    var segment: SegmentStart?
    /// The open segment's header; nil until its first part, `-1` when it cannot be packaged.
    var segmentInit: Int?
    var sequence: UInt32 = 0
    var parameterSets = ParameterSetCache()
    var audio: (pid: UInt16, configuration: AACConfiguration)?
    /// Events held while the first part waits for the audio's first ADTS header.
    var held: [SegmenterEvent] = []
    /// How many segments wait for audio before the channel goes on as video only.
    static let audioWaitSegments = 2
    /// The decode time (audio timescale) the next AAC frame continues at.
    var audioNext: Int64?

    public init() {}

    /// The timing stream types CMAF packages (others keep TS only).
    public static func supports(timing type: StreamType) -> Bool { [.h264, .hevc, .aacADTS].contains(type) }

    /// The CMAF form of `event`, and of any events held before it. At the start (and after a
    /// restart) the first part of a program with AAC audio is held until the audio's first ADTS
    /// header is known, at most `audioWaitSegments` segments: a player keeps the tracks of its
    /// first header, so audio cannot join later.
    public mutating func apply(_ event: SegmenterEvent) -> [Output] {
        if held.isEmpty, !waitsForAudio(event) { return [process(event)] }
        held.append(event)
        if case .part(let part) = event, audio == nil { audio = listedAAC(part.samples) }
        let segmentsHeld = held.reduce(0) { if case .segmentCompleted = $1 { $0 + 1 } else { $0 } }
        guard audio != nil || segmentsHeld >= Self.audioWaitSegments else { return [] }
        let events = held
        held = []
        return events.map { process($0) }
    }

    /// Whether `event` is the first part of a segment that must wait for the audio's header.
    func waitsForAudio(_ event: SegmenterEvent) -> Bool {
        guard case .part(let part) = event, segmentInit == nil, let segment, audio == nil,
              !part.samples.audioPIDs.isEmpty, current == nil || segment.discontinuity != nil,
              let timing = part.samples.accessUnits.first, timing.streamType.kind == .video else { return false }
        return listedAAC(part.samples) == nil
    }

    mutating func process(_ event: SegmenterEvent) -> Output {
        switch event {
        case .segmentStarted(let start):
            segment = start
            segmentInit = nil
            if start.discontinuity != nil { audioNext = nil; audio = nil }
            return Output(event: event)
        case .part(var part):
            guard let segment else { return Output(event: event) }
            if audio == nil || !part.samples.audioPIDs.contains(audio!.pid) { audio = listedAAC(part.samples) }
            if segmentInit == nil { return firstPart(part, segment) }
            guard let id = segmentInit, id >= 0, let tracks = current?.tracks else {
                part.bytes = []
                return Output(event: .part(part), initID: nil)
            }
            part.bytes = chunks(part, segment, tracks)
            part.samples = PartSamples()
            return Output(event: .part(part), initID: id)
        case .segmentCompleted:
            return Output(event: event)
        case .gap(var gap):
            gap.bytes = []
            audioNext = nil
            return Output(event: .gap(gap))
        }
    }

    /// A segment's first part decides its header: the timing track from the parameter sets in
    /// force (or the first ADTS header for audio-only programs) and the first AAC audio stream.
    mutating func firstPart(_ part: PartOutput, _ segment: SegmentStart) -> Output {
        var part = part
        for au in part.samples.accessUnits { parameterSets.scan(au) }
        // The audio configuration in force now (an encoder may change it at any time).
        if let fresh = listedAAC(part.samples) { audio = fresh }
        var tracks: [CMAFTrack] = []
        if let timing = part.samples.accessUnits.first {
            switch timing.streamType {
            case .h264, .hevc:
                if let codec = parameterSets.codec(for: timing.streamType) { tracks.append(CMAFTrack(id: 1, codec: codec)) }
            case .aacADTS:
                if let first = ADTSFrame.frames(timing.payload[...]).frames.first {
                    tracks.append(CMAFTrack(id: 1, codec: .aac(first.configuration)))
                }
            default:
                break
            }
        }
        if let video = tracks.first, video.codec.isVideo {
            // A player's buffer keeps the tracks its first header had (Media Source Extensions),
            // so the track set changes only where the timeline restarts (see `apply`).
            let keepsTracks = current != nil && segment.discontinuity == nil
            let wantsAudio = keepsTracks ? current!.tracks.count > 1 : !part.samples.audioPIDs.isEmpty
            if wantsAudio, let audio {
                tracks.append(CMAFTrack(id: 2, codec: .aac(audio.configuration)))
            } else if wantsAudio, keepsTracks {
                tracks = []
            }
        }
        guard !tracks.isEmpty else {
            statistics.segmentsUnpackaged += 1
            segmentInit = -1
            part.bytes = []
            part.samples = PartSamples()
            return Output(event: .part(part))
        }
        var newInit: (Int, [UInt8])?
        if current?.tracks != tracks {
            let id = nextInitID
            nextInitID += 1
            current = (id, tracks)
            statistics.initSegments += 1
            newInit = (id, InitSegment.bytes(tracks: tracks))
            audioNext = nil
        }
        segmentInit = current!.id
        part.bytes = chunks(part, segment, tracks)
        part.samples = PartSamples()
        return Output(event: .part(part), newInit: newInit, initID: current!.id)
    }

    /// The program's first AAC-in-ADTS stream with its configuration: from its newest whole PES
    /// in the part, else from the header of the PES it is receiving.
    func listedAAC(_ samples: PartSamples) -> (pid: UInt16, configuration: AACConfiguration)? {
        guard let pid = samples.audioPIDs.first else { return nil }
        for pes in samples.companions.reversed() where pes.pid == pid {
            if let frame = ADTSFrame.frames(pes.payload[...]).frames.first { return (pid, frame.configuration) }
        }
        return samples.audioHeads[pid].flatMap { ADTSFrame.configuration(header: $0[...]) }.map { (pid, $0) }
    }

    /// `source` ticks (the segmenter's unwrapped 90 kHz timeline) on the presentation timeline.
    func presentation(_ source: Int64, _ segment: SegmentStart) -> Int64 {
        segment.presentationTicks + (source - segment.startTicks)
    }

    /// The part's chunks: the timing track's samples and the audio written so far; audio after
    /// a hole of its own starts another chunk.
    mutating func chunks(_ part: PartOutput, _ segment: SegmentStart, _ tracks: [CMAFTrack]) -> [UInt8] {
        var runs: [TrackRun] = []
        var audioRuns: [TrackRun] = []
        let timing = tracks[0]
        let end = part.startTicks + part.durationTicks
        switch timing.codec {
        case .avc, .hevc:
            runs.append(videoRun(part.samples.accessUnits, end: end, segment, trackID: timing.id))
            if tracks.count > 1, case .aac(let configuration) = tracks[1].codec, let pid = audio?.pid {
                var companions: [CompanionPES] = []
                for pes in part.samples.companions {
                    if pes.pid == pid && pes.streamType == .aacADTS { companions.append(pes) } else { statistics.unsupportedAudioPES += 1 }
                }
                audioRuns = audioRunsFor(companions, configuration, segment, trackID: tracks[1].id)
            } else {
                statistics.unsupportedAudioPES += part.samples.companions.count
            }
        case .aac(let configuration):
            let pes = part.samples.accessUnits.map {
                CompanionPES(pid: 0, streamType: .aacADTS, presentationTicks: $0.decodeTicks + $0.compositionOffsetTicks, payload: $0.payload)
            }
            audioRuns = audioRunsFor(pes, configuration, segment, trackID: timing.id)
        }
        if let first = audioRuns.first { runs.append(first); audioRuns.removeFirst() }
        if runs.count > 1 { runs.removeAll { $0.samples.isEmpty } }
        var bytes: [UInt8] = []
        for chunk in [runs] + audioRuns.map({ [$0] }) where !chunk.isEmpty {
            sequence &+= 1
            statistics.chunks += 1
            bytes += MovieFragment.bytes(sequence: sequence, runs: chunk)
        }
        return bytes
    }
}
