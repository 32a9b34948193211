/// Placing access units: segment and part cuts, damage and resynchronisation (see Segmenter).
extension Segmenter {
    // MARK: Access units

    mutating func accessUnitStarted(header: PESHeader?, capture: Int64) {
        let raw = header?.dts ?? header?.pts
        // One access unit per PES is the TS practice; a PES without PTS (an encoder splitting a
        // picture over several PES packets) continues the access unit in progress.
        if raw == nil, header != nil, pending != nil { return }
        var dts: Int64?
        if let raw {
            if let lastRaw = lastRawDTS {
                dts = lastUnwrappedDTS + Self.signedDelta(raw, from: lastRaw)
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
    mutating func commitPending(nextDTS: Int64?) {
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
        // No access unit may be longer than a part (RFC 8216bis §4.4.4.9: every part ≤ PART-TARGET,
        // and an access unit cannot be split): a longer DTS step is a hole in the timeline, placed
        // after this access unit (given the last normal duration) as EXT-X-GAP segments.
        var duration = min(lastDuration, configuration.partTargetTicks)
        var holeAfter = false
        if let next = nextDTS, next > dts, next - dts <= configuration.timestampJumpTicks {
            if next - dts <= configuration.partTargetTicks {
                duration = next - dts
            } else {
                holeAfter = true
            }
        }

        if resync != nil, configuration.collectsSamples { dropCompanions(outside: dts) }
        switch resync {
        case .start(let reason)?:
            guard keyframe else { statistics.accessUnitsDropped += 1; return }
            startSegment(dts: dts, capture: au.captureNanoseconds, discontinuity: reason, independent: true)
        case .hole(let endTicks)?:
            // The stream itself left the hole (its DTS run on): nothing was lost, no keyframe needed.
            emitGaps(from: endTicks, ticks: dts - endTicks)
            startSegment(dts: dts, capture: au.captureNanoseconds, discontinuity: nil, independent: keyframe)
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
        if configuration.collectsSamples, let pes, pes.complete { place(pes, dts: dts, duration: duration, keyframe: keyframe) }
        lastEnd = dts + duration
        lastDuration = duration
        lastEndCapture = au.captureNanoseconds + MediaClock.nanoseconds(ticks: duration)
        // Close the part now if the next access unit (assumed as long as this one) would not fit.
        if dts + duration - partStart + duration > configuration.partTargetTicks { closePart(end: dts + duration) }
        if holeAfter {
            statistics.timestampHoles += 1
            closeSegment(end: dts + duration)
            resync = .hole(endTicks: dts + duration)
        }
    }

    mutating func isKeyframe(_ pes: PESPacket?) -> Bool {
        guard let pes, pes.complete else { return false }
        switch pes.streamType {
        case .h264, .hevc: return detector.isKeyframe(pes.payload[...], streamType: pes.streamType)
        default: return pes.streamType.kind == .audio || pes.randomAccess
        }
    }

    // MARK: Damage

    /// Input was lost: the open segment ends with the last whole access unit; nothing more is
    /// placed until a keyframe.
    mutating func damage() {
        if pending != nil { statistics.accessUnitsDropped += 1 }
        pending = nil
        completedPES = nil
        if case .hole(let end)? = resync {
            // Lost input inside a hole: the next access unit must be a keyframe after all.
            resync = .damaged(endTicks: end, endCapture: lastEndCapture)
            return
        }
        guard resync == nil, let end = lastEnd else { return }
        closeSegment(end: end)
        resync = .damaged(endTicks: end, endCapture: lastEndCapture)
    }

    mutating func emitGaps(from start: Int64, ticks hole: Int64) {
        guard hole > 0 else { return }
        let count = (hole + configuration.targetDurationTicks - 1) / configuration.targetDurationTicks
        var at = start
        for i in 0..<count {
            let length = i == count - 1 ? start + hole - at : hole / count
            let presentation = presentationEnd ?? presentationTicks(at)
            let gap = GapSegment(mediaSequence: nextSequence, durationTicks: length, programDateTimeNanoseconds: dateTime(at),
                                 bytes: programHeader(), presentationTicks: presentation)
            presentationEnd = presentation + length
            nextSequence += 1
            statistics.gapSegments += 1
            statistics.gapTicks += length
            output.append(.gap(gap))
            at += length
        }
    }

    // MARK: Segments and parts

    mutating func startSegment(dts: Int64, capture: Int64, discontinuity: DiscontinuityReason?, independent: Bool) {
        if let discontinuity { statistics.discontinuities[discontinuity, default: 0] += 1 }
        if discontinuity != nil || anchor == nil {
            anchor = (dts, capture)
        } else if abs(dateTime(dts) - capture) > 2 * configuration.clockToleranceNanoseconds {
            // The capture clock and the media clock drifted apart: follow the capture clock.
            statistics.programDateTimeReanchors += 1
            anchor = (dts, capture)
        }
        // The presentation timeline runs on from the last end; it is (re)anchored to the program
        // date-time at the start and after a discontinuity, never going back.
        if discontinuity != nil || presentationEnd == nil {
            segmentPresentation = max(presentationEnd ?? 0, presentationTicks(dts))
        } else {
            segmentPresentation = presentationEnd!
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
                                                   startTicks: dts, presentationTicks: segmentPresentation)))
    }

    /// The current PAT and PMT packets, which open every segment.
    func programHeader() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 * 1024)
        for p in demuxer.patPackets { bytes.append(contentsOf: p) }
        for p in demuxer.pmtPackets { bytes.append(contentsOf: p) }
        return bytes
    }

    func dateTime(_ ticks: Int64) -> Int64 {
        guard let anchor else { return 0 }
        return anchor.capture + MediaClock.nanoseconds(ticks: ticks - anchor.ticks)
    }

    /// The program date-time of media time `ticks` in 90 kHz ticks since 1970.
    func presentationTicks(_ ticks: Int64) -> Int64 { dateTime(ticks) / 100_000 * 9 }

    mutating func closePart(end: Int64) {
        guard let open = segment, partHasMedia else { return }
        statistics.parts += 1
        if configuration.collectsSamples {
            // Other streams' packets go with the part their PTS falls in (or an earlier one).
            if endOfStream || companions.allSatisfy({ $0.presentationTicks < end }) {
                partSamples.companions = companions
                companions = []
            } else {
                partSamples.companions = companions.filter { $0.presentationTicks < end }
                companions.removeAll { $0.presentationTicks < end }
            }
            partSamples.audioPIDs = audioPIDs
            partSamples.audioHeads = audioHeads
        }
        output.append(.part(PartOutput(mediaSequence: open.sequence, index: partIndex, durationTicks: end - partStart,
                                       independent: partIndependent, bytes: partBytes, startTicks: partStart,
                                       samples: partSamples)))
        partSamples = PartSamples()
        partIndex += 1
        partBytes = []
        partBytes.reserveCapacity(64 * 1024)
        partHasMedia = false
    }

    mutating func closeSegment(end: Int64) {
        guard let open = segment else { return }
        closePart(end: end)
        segment = nil
        presentationEnd = segmentPresentation + (end - open.startTicks)
        output.append(.segmentCompleted(mediaSequence: open.sequence, durationTicks: end - open.startTicks))
    }
}
