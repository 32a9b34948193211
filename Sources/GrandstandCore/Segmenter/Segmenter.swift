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
    public private(set) var statistics = SegmenterStatistics()
    public private(set) var demuxer = TSDemuxer(selection: .timingStream)
    private var detector: any KeyframeDetector
    private var aligner = TSPacketAligner()
    private var demuxEvents: [TSDemuxEvent] = []
    private var output: [SegmenterEvent] = []

    /// The elementary stream segments are timed and cut on.
    public private(set) var timing: ElementaryStreamInfo?

    // The access unit being received: packets since its first packet, in stream order.
    private struct PendingAccessUnit {
        var dts: Int64?
        var captureNanoseconds: Int64
        var restart: DiscontinuityReason?
        var packets: [UInt8] = []
    }
    private var pending: PendingAccessUnit?
    private var completedPES: PESPacket?
    private var restartSignal: DiscontinuityReason?
    private var lastPCR: Int64?
    private var lastPMT: ProgramMapTable?

    // Timeline: unwrapped DTS of the end of the last placed access unit.
    private var lastRawDTS: Int64?
    private var lastUnwrappedDTS: Int64 = 0
    private var lastEnd: Int64?
    private var lastDuration: Int64 = 3600
    private var lastEndCapture: Int64 = 0

    private enum Resync {
        /// Nothing placed yet, or after a restart: wait for a keyframe.
        case start(DiscontinuityReason?)
        /// Input was lost after media ending at `endTicks` (captured until `endCapture`).
        case damaged(endTicks: Int64, endCapture: Int64)
    }
    private var resync: Resync? = .start(nil)

    // The open segment and part.
    private var nextSequence = 0
    private var segment: (sequence: Int, startTicks: Int64)?
    private var partIndex = 0
    private var partBytes: [UInt8] = []
    private var partStart: Int64 = 0
    private var partIndependent = false
    private var partHasMedia = false
    private var anchor: (ticks: Int64, capture: Int64)?

    public init(configuration: SegmenterConfiguration = SegmenterConfiguration(),
                keyframeDetector: any KeyframeDetector = NALUnitKeyframeDetector(), firstMediaSequence: Int = 0) {
        self.configuration = configuration
        self.detector = keyframeDetector
        self.nextSequence = firstMediaSequence
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
        for event in demuxer.flush() { if case .pes(let pes) = event, pes.pid == timing?.pid { completedPES = pes } }
        commitPending(nextDTS: nil)
        if let end = lastEnd { closeSegment(end: end) }
        return output
    }

    private mutating func handle(_ bytes: ArraySlice<UInt8>, capture: Int64) {
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
        pending?.packets.append(contentsOf: bytes)
    }

    private mutating func programChanged(_ pmt: ProgramMapTable) {
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
    }

    // MARK: Access units

    private mutating func accessUnitStarted(header: PESHeader?, capture: Int64) {
        let raw = header?.dts ?? header?.pts
        // One access unit per PES is the TS practice; a PES without PTS (an encoder splitting a
        // picture over several PES packets) continues the access unit in progress.
        if raw == nil, header != nil, pending != nil { return }
        var dts: Int64?
        if let raw {
            if let lastRaw = lastRawDTS {
                // Signed distance modulo 2^33 (PTS/DTS wrap after ~26.5 h).
                var delta = (raw - lastRaw) & 0x1_FFFF_FFFF
                if delta >= 0x1_0000_0000 { delta -= 0x2_0000_0000 }
                dts = lastUnwrappedDTS + delta
            } else {
                dts = raw
            }
            lastRawDTS = raw
            lastUnwrappedDTS = dts!
        }
        commitPending(nextDTS: dts)
        var restart = restartSignal
        restartSignal = nil
        if restart == nil, let dts, let end = lastEnd, resync == nil {
            let delta = dts - end
            if delta < 0 || delta > configuration.timestampJumpTicks { restart = .timestampJump }
        }
        pending = PendingAccessUnit(dts: dts, captureNanoseconds: capture, restart: restart)
        pending?.packets.reserveCapacity(8 * TSPacket.size)
    }

    /// Places the access unit in progress now that its end (`nextDTS`, nil if unknown) is known.
    private mutating func commitPending(nextDTS: Int64?) {
        guard let au = pending else { return }
        pending = nil
        let pes = completedPES
        completedPES = nil
        statistics.accessUnits += 1
        let keyframe = isKeyframe(pes)

        if let reason = au.restart {
            if let end = lastEnd, segment != nil { closeSegment(end: end) }
            resync = .start(reason)
        }
        guard let dts = au.dts ?? lastEnd else {
            statistics.accessUnitsDropped += 1
            return
        }
        var duration = lastDuration
        if let next = nextDTS, next > dts, next - dts <= configuration.timestampJumpTicks { duration = next - dts }

        switch resync {
        case .start(let reason)?:
            guard keyframe else { statistics.accessUnitsDropped += 1; return }
            startSegment(dts: dts, capture: au.captureNanoseconds, discontinuity: reason, independent: true)
        case .damaged(let endTicks, let endCapture)?:
            guard keyframe else { statistics.accessUnitsDropped += 1; return }
            let hole = dts - endTicks
            let wall = au.captureNanoseconds - endCapture
            if hole >= 0, hole <= configuration.maximumGapTicks,
               abs(MediaClock.nanoseconds(ticks: hole) - wall) <= configuration.clockToleranceNanoseconds {
                emitGaps(from: endTicks, ticks: hole)
                startSegment(dts: dts, capture: au.captureNanoseconds, discontinuity: nil, independent: true)
            } else {
                startSegment(dts: dts, capture: au.captureNanoseconds, discontinuity: .timelineLost, independent: true)
            }
        case nil:
            guard let open = segment else { statistics.accessUnitsDropped += 1; return }
            let elapsed = dts - open.startTicks
            if keyframe && elapsed >= configuration.targetDurationTicks {
                closeSegment(end: dts)
                startSegment(dts: dts, capture: au.captureNanoseconds, discontinuity: nil, independent: true)
            } else if elapsed + duration > configuration.maximumSegmentTicks {
                statistics.segmentsWithoutKeyframe += 1
                closeSegment(end: dts)
                startSegment(dts: dts, capture: au.captureNanoseconds, discontinuity: nil, independent: keyframe)
            } else if partHasMedia && dts - partStart + duration > configuration.partTargetTicks {
                closePart(end: dts)
            }
        }
        resync = nil
        if !partHasMedia {
            partStart = dts
            partIndependent = keyframe
            partHasMedia = true
        }
        partBytes.append(contentsOf: au.packets)
        lastEnd = dts + duration
        lastDuration = duration
        lastEndCapture = au.captureNanoseconds + MediaClock.nanoseconds(ticks: duration)
        // Close the part now if the next access unit (assumed as long as this one) would not fit.
        if dts + duration - partStart + duration > configuration.partTargetTicks { closePart(end: dts + duration) }
    }

    private mutating func isKeyframe(_ pes: PESPacket?) -> Bool {
        guard let pes, pes.complete else { return false }
        switch pes.streamType {
        case .h264, .hevc: return detector.isKeyframe(pes.payload[...], streamType: pes.streamType)
        default: return pes.streamType.kind == .audio || pes.randomAccess
        }
    }

    // MARK: Damage

    /// Input was lost: the open segment ends with the last whole access unit; nothing more is
    /// placed until a keyframe.
    private mutating func damage() {
        if pending != nil { statistics.accessUnitsDropped += 1 }
        pending = nil
        completedPES = nil
        guard resync == nil, let end = lastEnd else { return }
        closeSegment(end: end)
        resync = .damaged(endTicks: end, endCapture: lastEndCapture)
    }

    private mutating func emitGaps(from start: Int64, ticks hole: Int64) {
        guard hole > 0 else { return }
        let count = (hole + configuration.targetDurationTicks - 1) / configuration.targetDurationTicks
        var at = start
        for i in 0..<count {
            let length = i == count - 1 ? start + hole - at : hole / count
            let gap = GapSegment(mediaSequence: nextSequence, durationTicks: length, programDateTimeNanoseconds: dateTime(at),
                                 bytes: programHeader())
            nextSequence += 1
            statistics.gapSegments += 1
            statistics.gapTicks += length
            output.append(.gap(gap))
            at += length
        }
    }

    // MARK: Segments and parts

    private mutating func startSegment(dts: Int64, capture: Int64, discontinuity: DiscontinuityReason?, independent: Bool) {
        if let discontinuity { statistics.discontinuities[discontinuity, default: 0] += 1 }
        if discontinuity != nil || anchor == nil {
            anchor = (dts, capture)
        } else if abs(dateTime(dts) - capture) > 2 * configuration.clockToleranceNanoseconds {
            // The capture clock and the media clock drifted apart: follow the capture clock.
            statistics.programDateTimeReanchors += 1
            anchor = (dts, capture)
        }
        let sequence = nextSequence
        nextSequence += 1
        segment = (sequence, dts)
        partIndex = 0
        partBytes = programHeader()
        partHasMedia = false
        statistics.segments += 1
        output.append(.segmentStarted(SegmentStart(mediaSequence: sequence, discontinuity: discontinuity,
                                                   programDateTimeNanoseconds: dateTime(dts), independent: independent,
                                                   startTicks: dts)))
    }

    /// The current PAT and PMT packets, which open every segment.
    private func programHeader() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 * 1024)
        for p in demuxer.patPackets { bytes.append(contentsOf: p) }
        for p in demuxer.pmtPackets { bytes.append(contentsOf: p) }
        return bytes
    }

    private func dateTime(_ ticks: Int64) -> Int64 {
        guard let anchor else { return 0 }
        return anchor.capture + MediaClock.nanoseconds(ticks: ticks - anchor.ticks)
    }

    private mutating func closePart(end: Int64) {
        guard let open = segment, partHasMedia else { return }
        statistics.parts += 1
        output.append(.part(PartOutput(mediaSequence: open.sequence, index: partIndex, durationTicks: end - partStart,
                                       independent: partIndependent, bytes: partBytes)))
        partIndex += 1
        partBytes = []
        partBytes.reserveCapacity(64 * 1024)
        partHasMedia = false
    }

    private mutating func closeSegment(end: Int64) {
        guard let open = segment else { return }
        closePart(end: end)
        segment = nil
        output.append(.segmentCompleted(mediaSequence: open.sequence, durationTicks: end - open.startTicks))
    }
}
