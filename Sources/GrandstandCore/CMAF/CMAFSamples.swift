/// Track runs from the segmenter's samples (see CMAFFragmenter).
extension CMAFFragmenter {
    /// The timing video track's run: one sample per access unit, Annex B turned into 4-byte
    /// length-prefixed NAL units (ISO/IEC 14496-15 §5.3.2, §8.3.2) without access unit
    /// delimiters. Parameter sets stay in band as well (a change inside a segment then still
    /// decodes); durations run to the next access unit and the last one to the part's end.
    func videoRun(_ units: [PlacedAccessUnit], end: Int64, _ segment: SegmentStart, trackID: UInt32) -> TrackRun {
        guard let first = units.first else {
            return TrackRun(trackID: trackID, baseDecodeTime: UInt64(max(0, presentation(end, segment))))
        }
        var run = TrackRun(trackID: trackID, baseDecodeTime: UInt64(max(0, presentation(first.decodeTicks, segment))))
        run.data.reserveCapacity(units.reduce(0) { $0 + $1.payload.count } + 16 * units.count)
        for (i, au) in units.enumerated() {
            let next = i + 1 < units.count ? units[i + 1].decodeTicks : end
            let before = run.data.count
            for nal in NALUnits.split(au.payload[...]) where !ParameterSetCache.isDelimiter(nal, au.streamType) {
                run.data.append(contentsOf: [UInt8(nal.count >> 24 & 0xFF), UInt8(nal.count >> 16 & 0xFF),
                                             UInt8(nal.count >> 8 & 0xFF), UInt8(nal.count & 0xFF)])
                run.data.append(contentsOf: nal)
            }
            run.samples.append(FragmentSample(duration: UInt32(clamping: max(0, next - au.decodeTicks)),
                                              size: UInt32(run.data.count - before),
                                              flags: au.keyframe ? SampleFlags.sync : SampleFlags.nonSync,
                                              compositionOffset: Int32(clamping: au.compositionOffsetTicks)))
        }
        return run
    }

    /// AAC runs: each ADTS frame one sample of 1024 (ISO/IEC 14496-3 raw_data_block), decode
    /// times in the sampling rate. A frame continues the previous one when its PTS is within half
    /// a frame of where that ended (PTS rounding is not a hole); a real hole starts another run,
    /// which goes out as its own chunk; overlapping frames are dropped.
    mutating func audioRunsFor(_ packets: [CompanionPES], _ configuration: AACConfiguration, _ segment: SegmentStart,
                               trackID: UInt32) -> [TrackRun] {
        let rate = Int64(configuration.sampleRate)
        var runs: [TrackRun] = []
        for pes in packets {
            let (frames, error) = ADTSFrame.frames(pes.payload[...])
            if error != nil { statistics.badADTSFrames += 1 }
            for (i, frame) in frames.enumerated() {
                guard frame.configuration == configuration else { statistics.badADTSFrames += 1; continue }
                let source = pes.presentationTicks + Int64(i) * 1024 * MediaClock.ticksPerSecond / rate
                let at = DASHManifest.rescale(presentation(source, segment), rate)
                guard at >= 0 else { continue }
                var start = at
                if let next = audioNext {
                    if at < next - 512 { statistics.audioFramesOverlapping += 1; continue }
                    if at <= next + 512 { start = next }
                }
                if runs.isEmpty || start != audioNext {
                    runs.append(TrackRun(trackID: trackID, baseDecodeTime: UInt64(start)))
                }
                runs[runs.count - 1].samples.append(FragmentSample(duration: 1024, size: UInt32(frame.payload.count), flags: SampleFlags.sync))
                runs[runs.count - 1].data.append(contentsOf: frame.payload)
                audioNext = start + 1024
            }
        }
        return runs
    }
}

/// The newest parameter sets seen in the timing stream's access units (H.264 SPS/PPS, HEVC
/// VPS/SPS/PPS), from which a track's sample entry is built.
struct ParameterSetCache: Sendable, Equatable {
    var vps: [UInt8]?
    var sps: [UInt8]?
    var pps: [[UInt8]] = []

    /// Takes the parameter sets an access unit carries; an access unit with an SPS replaces the
    /// picture parameter sets known so far with its own.
    mutating func scan(_ au: PlacedAccessUnit) {
        let hevc = au.streamType == .hevc
        var sawSPS = false
        for nal in NALUnits.split(au.payload[...]) {
            guard let type = Self.type(nal, hevc: hevc) else { continue }
            switch (hevc, type) {
            case (true, 32): vps = Array(nal)
            case (true, 33), (false, 7):
                sps = Array(nal)
                if !sawSPS { pps = []; sawSPS = true }
            case (true, 34), (false, 8):
                // At most as many as the ids allow (H.264 256, HEVC 64): a stream sending more
                // distinct ones keeps its newest.
                if !pps.contains(where: { $0[...] == nal }) {
                    if pps.count >= 64 { pps.removeFirst() }
                    pps.append(Array(nal))
                }
            default: break
            }
        }
    }

    func codec(for type: StreamType) -> CMAFCodec? {
        guard let sps else { return nil }
        if type == .hevc {
            guard let vps, let c = HEVCConfiguration(vps: vps, sps: sps, pps: pps) else { return nil }
            return .hevc(c)
        }
        return AVCConfiguration(sps: sps, pps: pps).map(CMAFCodec.avc)
    }

    static func type(_ nal: ArraySlice<UInt8>, hevc: Bool) -> UInt8? {
        guard let first = nal.first else { return nil }
        return hevc ? (first >> 1) & 0x3F : first & 0x1F
    }

    /// Access unit delimiters (H.264 type 9, HEVC 35): not carried in MP4 samples.
    static func isDelimiter(_ nal: ArraySlice<UInt8>, _ streamType: StreamType) -> Bool {
        type(nal, hevc: streamType == .hevc) == (streamType == .hevc ? 35 : 9)
    }
}
