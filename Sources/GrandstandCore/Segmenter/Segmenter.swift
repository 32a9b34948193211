/// Cuts one program's MPEG-TS into HLS segments and LL-HLS parts (pure; time passed in).
///
/// Input: TS bytes in any split with their capture time, and gap markers for input that was
/// lost. Output: `SegmenterEvent`s. Segments keep whole TS packets of the program's PIDs, start
/// with a copy of the current PAT and PMT (so each decodes alone) and, except at the maximum
/// duration, with a keyframe of the timing stream (the first video, else the first audio stream).
/// Durations come from DTS (PTS when there is no DTS), program date-times from capture time.
/// Lost input never becomes silent corruption: the segment is split there and nothing is listed
/// until the next keyframe; the hole becomes gap segments (timeline intact) or a discontinuity.
/// An access unit is placed when the next one starts (its end is known then), so output trails
/// input by one frame. Rules and reasons: docs/hls.md.
public struct Segmenter {
    public let configuration: SegmenterConfiguration
    public internal(set) var statistics = SegmenterStatistics()
    public internal(set) var demuxer = TSDemuxer(selection: .timingStream)
    var detector: any KeyframeDetector
    var aligner = TSPacketAligner()
    var demuxEvents: [TSDemuxEvent] = []
    var output: [SegmenterEvent] = []

    /// The elementary stream segments are timed and cut on.
    public internal(set) var timing: ElementaryStreamInfo?

    // The access unit being received: packets since its first packet, in stream order.
    struct PendingAccessUnit {
        var dts: Int64?
        var captureNanoseconds: Int64
        var restart: DiscontinuityReason?
        var packets: [UInt8] = []
    }
    var pending: PendingAccessUnit?
    var completedPES: PESPacket?
    var restartSignal: DiscontinuityReason?
    var lastPCR: Int64?
    var lastPMT: ProgramMapTable?

    // Timeline: unwrapped DTS of the end of the last placed access unit.
    var lastRawDTS: Int64?
    var lastUnwrappedDTS: Int64 = 0
    var lastEnd: Int64?
    var lastDuration: Int64 = 3600
    var lastEndCapture: Int64 = 0

    enum Resync {
        /// Nothing placed yet, or after a restart: wait for a keyframe.
        case start(DiscontinuityReason?)
        /// Input was lost after media ending at `endTicks` (captured until `endCapture`).
        case damaged(endTicks: Int64, endCapture: Int64)
        /// The stream's DTS stepped further than a part after media ending at `endTicks`: the
        /// step becomes gap segments, and the next access unit continues (keyframe or not).
        case hole(endTicks: Int64)
    }
    var resync: Resync? = .start(nil)

    // The open segment and part.
    var nextSequence = 0
    var segment: (sequence: Int, startTicks: Int64)?
    var partIndex = 0
    var partBytes: [UInt8] = []
    var partStart: Int64 = 0
    var partIndependent = false
    var partHasMedia = false
    var anchor: (ticks: Int64, capture: Int64)?
    /// The open segment's start on the presentation timeline, and where the last one ended.
    var segmentPresentation: Int64 = 0
    var presentationEnd: Int64?

    // Samples for CMAF (`configuration.collectsSamples`): the open part's, and other streams'
    // PES packets not yet given to a part.
    var partSamples = PartSamples()
    var companions: [CompanionPES] = []
    var audioPIDs: [UInt16] = []
    /// Set by `finish`: the last part takes every other stream's packet still held.
    var endOfStream = false
    /// The first payload bytes of each audio stream's newest PES (its frame header).
    var audioHeads: [UInt16: [UInt8]] = [:]

    public init(configuration: SegmenterConfiguration = SegmenterConfiguration(),
                keyframeDetector: any KeyframeDetector = NALUnitKeyframeDetector(), firstMediaSequence: Int = 0) {
        self.configuration = configuration
        self.detector = keyframeDetector
        self.nextSequence = firstMediaSequence
        if configuration.collectsSamples { demuxer.selection = .all }
    }

    /// The media sequence number the next segment will get.
    public var nextMediaSequence: Int { nextSequence }
    /// The open segment's number and the index the next part of it will get.
    public var openPart: (mediaSequence: Int, index: Int)? { segment.map { ($0.sequence, partIndex) } }

    // MARK: Input

    /// Feeds TS bytes (any split into calls) captured at `timestampNanoseconds`.
    public mutating func ingest(_ bytes: ArraySlice<UInt8>, timestampNanoseconds: Int64) -> [SegmenterEvent] {
        output.removeAll(keepingCapacity: true)
        for packet in aligner.packets(bytes) { handle(packet, capture: timestampNanoseconds) }
        return output
    }

    /// The ingest pipeline lost `lostPackets` RTP packets it could not recover at this point.
    public mutating func gap(lostPackets: Int, timestampNanoseconds: Int64) -> [SegmenterEvent] {
        output.removeAll(keepingCapacity: true)
        statistics.gapMarkers += 1
        statistics.lostPackets += max(0, lostPackets)
        aligner.reset()
        demuxer.markGap()
        lastPCR = nil
        damage()
        return output
    }

    /// End of input (a replay's last packet): the last access unit is placed and the open
    /// segment completed.
    public mutating func finish() -> [SegmenterEvent] {
        output.removeAll(keepingCapacity: true)
        for event in demuxer.flush() {
            guard case .pes(let pes) = event else { continue }
            if pes.pid == timing?.pid { completedPES = pes } else if configuration.collectsSamples { companionArrived(pes) }
        }
        // The stream ends: other streams' packets after the last access unit go in the last part.
        endOfStream = true
        commitPending(nextDTS: nil)
        if let end = lastEnd { closeSegment(end: end) }
        return output
    }

    mutating func handle(_ bytes: ArraySlice<UInt8>, capture: Int64) {
        demuxEvents.removeAll(keepingCapacity: true)
        guard let packet = demuxer.process(packet: bytes, timestampNanoseconds: capture, into: &demuxEvents) else { return }
        for event in demuxEvents {
            switch event {
            case .programMap(let pmt):
                programChanged(pmt)
            case .pes(let pes) where pes.pid == timing?.pid:
                if var first = completedPES, pending != nil {
                    // A PES without time stamps continued this access unit (see accessUnitStarted).
                    first.payload.append(contentsOf: pes.payload)
                    first.complete = first.complete && pes.complete
                    completedPES = first
                } else {
                    completedPES = pes
                }
            case .pes(let pes) where configuration.collectsSamples:
                companionArrived(pes)
            case .pesStarted(let pid, let header, let ts) where pid == timing?.pid:
                accessUnitStarted(header: header, capture: ts)
            case .continuityError(let pid, _, _) where pid != 0 && pid != demuxer.pmtPID:
                // Lost packets of an elementary stream (lost PSI packets damage no media).
                statistics.continuityDamage += 1
                damage()
            case .discontinuityIndicator(let pid) where pid == demuxer.pmt?.pcrPID || pid == timing?.pid:
                restartSignal = .discontinuityIndicator
                lastPCR = nil
            case .pcr(_, let value, _):
                if let last = lastPCR {
                    // Signed distance modulo the PCR's range (2^33 × 300 ticks of 27 MHz).
                    let range: Int64 = (1 << 33) * 300
                    var ticks = (value - last) % range
                    if ticks < 0 { ticks += range }
                    if ticks >= range / 2 { ticks -= range }
                    let delta = ticks * 1000 / 27
                    if delta < 0 || delta > configuration.pcrJumpNanoseconds { restartSignal = restartSignal ?? .pcrJump }
                }
                lastPCR = value
            default:
                break
            }
        }
        guard demuxer.isProgramPID(packet.pid) else {
            statistics.packetsNotInProgram += 1
            return
        }
        if packet.payloadUnitStart, configuration.collectsSamples, audioPIDs.contains(packet.pid) { audioPESStarted(packet) }
        pending?.packets.append(contentsOf: bytes)
    }

    mutating func programChanged(_ pmt: ProgramMapTable) {
        defer { lastPMT = pmt }
        let newTiming = pmt.timingStream
        if let previous = lastPMT, previous.hasSameStreams(as: pmt) { return }  // a version bump only
        if timing != nil, newTiming != timing {
            restartSignal = .programChange
            // The access unit in progress belonged to the old stream.
            if pending != nil { statistics.accessUnitsDropped += 1 }
            pending = nil
            completedPES = nil
        } else if timing != nil {
            restartSignal = restartSignal ?? .programChange
        }
        timing = newTiming
        audioPIDs = pmt.streams.filter { $0.streamType == .aacADTS && $0.pid != newTiming?.pid }.map(\.pid)
    }
}
