import GrandstandCore

/// Decode health of one channel: TS in (any split), `VideoHealthCounters` out. The program's
/// first H.264/HEVC stream is reassembled into access units (one per PES with time stamps, as
/// the segmenter cuts them) and decoded with libavcodec, the way a fan's player would see it:
/// an access unit that lost packets is still decoded (damaged), one lost whole shows as a hole
/// in the DTS timeline (lost), and after either the pictures up to the next keyframe are
/// counted, not decoded (missing reference). Synchronous and deterministic; the daemon runs it
/// on a worker thread (`VideoHealthWorker`), replay inline. One stream, one owner: not Sendable.
public final class VideoHealthMonitor {
    public private(set) var counters = VideoHealthCounters()
    /// The last libavcodec error (for logs), nil while none happened.
    public private(set) var lastError: MediaCodecError?

    /// Why access units may be missing before the next one.
    enum Loss { case transport, skipped }
    /// What decoding waits for a keyframe after.
    enum Resync { case start, damaged, skipped }

    struct Unit {
        var dts: Int64?
        var bytes: [UInt8] = []
        var damaged = false
        /// Input was lost or skipped just before this access unit.
        var lossBefore: Loss?
    }

    private let fast: Bool
    private var aligner = TSPacketAligner()
    /// Fed only PAT and PMT packets: finds the video PID and codec.
    private var tables = TSDemuxer(selection: .timingStream)
    private var tableEvents: [TSDemuxEvent] = []
    private var continuity = ContinuityTracker()
    private var video: (pid: UInt16, codec: VideoCodec, type: StreamType)?
    private var decoder: VideoDecoder?
    private let keyframes = ParserKeyframeDetector()

    /// The PES being received (header included), whether packets of it were lost, and whether
    /// input was lost just before it.
    private var pes: [UInt8]?
    private var pesDamaged = false
    private var pesLossBefore: Loss?
    /// The access unit being assembled (PES packets without time stamps continue it).
    private var unit: Unit?
    private var pendingLoss: Loss?
    private var resync: Resync? = .start
    private var lastDTS: Int64?
    /// Decode-order distance of consecutive access units (90 kHz), measured; 25 fps until then.
    private var frameTicks: Int64 = 3600
    private var serial: Int64 = 0
    /// Serials already counted as dropped (so a damaged picture of them is not counted twice).
    private var dropped: Set<Int64> = []

    /// `fastDecode` skips the deblocking filter (see `VideoDecoder.init(codec:fastHealthCheck:)`).
    public init(fastDecode: Bool = true) {
        fast = fastDecode
    }

    // MARK: Input

    /// TS bytes (whole packets in any split).
    public func ingest(_ bytes: ArraySlice<UInt8>) {
        // The pipeline hands whole packets: walk them in place unless a partial one is pending.
        if aligner.pendingBytes == 0, bytes.count % TSPacket.size == 0, bytes.first == TSPacket.syncByte {
            var offset = bytes.startIndex
            while offset < bytes.endIndex {
                handle(bytes[offset..<(offset + TSPacket.size)])
                offset += TSPacket.size
            }
            return
        }
        for packet in aligner.packets(bytes) { handle(packet) }
    }

    /// Lost input (an unrecovered FEC window): access units missing before the next one are
    /// counted lost; continuity errors mark a damaged one.
    public func gap() {
        aligner.reset()
        pendingLoss = pendingLoss ?? .transport
    }

    /// Input left out on purpose (the health check fell behind): whatever was in progress is
    /// dropped, and what is missing before the next access unit is counted skipped.
    public func skip() {
        aligner.reset()
        continuity = ContinuityTracker()
        // The PES in progress may have lost its tail: dropped. The access unit before it is whole.
        pes = nil
        if let unit { submit(unit) }
        unit = nil
        pendingLoss = .skipped
    }

    /// End of input: the last access unit is decoded and the decoder drained.
    public func finish() {
        endPES()
        if let unit { submit(unit) }
        unit = nil
        guard let decoder else { return }
        do {
            account(try decoder.checkDrain())
        } catch {
            record(error)
        }
    }

    // MARK: Transport stream

    private func handle(_ bytes: ArraySlice<UInt8>) {
        // Most packets are audio, other PIDs or stuffing: look at the PID before parsing.
        guard bytes.count == TSPacket.size else { return }
        let start = bytes.startIndex
        let rawPID = UInt16(bytes[start + 1] & 0x1F) << 8 | UInt16(bytes[start + 2])
        guard rawPID == 0 || rawPID == tables.pmtPID || rawPID == video?.pid else { return }
        guard case .success(let packet) = TSPacket.parse(bytes) else { return }
        let pid = packet.pid
        if pid == 0 || pid == tables.pmtPID {
            tableEvents.removeAll(keepingCapacity: true)
            _ = tables.process(packet: bytes, timestampNanoseconds: 0, into: &tableEvents)
            for case .programMap(let pmt) in tableEvents { programChanged(pmt) }
            return
        }
        guard let video, pid == video.pid else { return }
        switch continuity.record(packet) {
        case .duplicate: return
        case .discontinuity:
            // Packets of the video stream were lost. Before a PES start, whole access units may
            // be missing (the DTS step tells) and the last one may have lost its tail (the
            // decoder tells); inside a PES, that PES is damaged.
            pendingLoss = pendingLoss ?? .transport
            if pes != nil && !packet.payloadUnitStart { pesDamaged = true }
        case .ok, .ignored: break
        }
        guard packet.hasPayload, !packet.payload.isEmpty else { return }
        if packet.payloadUnitStart {
            endPES()
            pesDamaged = false
            pesLossBefore = pendingLoss
            pendingLoss = nil
            // Not a PES start code: nothing to assemble until the next start (garbage costs no copy).
            let payload = packet.payload, first = payload.startIndex
            guard payload.count >= 3, payload[first] == 0, payload[first + 1] == 0, payload[first + 2] == 1 else {
                if unit != nil { unit?.damaged = true }
                return
            }
            pes = Array(payload)
        } else {
            pes?.append(contentsOf: packet.payload)
        }
    }

    private func programChanged(_ pmt: ProgramMapTable) {
        let stream = pmt.streams.first { $0.streamType == .h264 || $0.streamType == .hevc }
        let next: (UInt16, VideoCodec, StreamType)? = stream.map { ($0.pid, $0.streamType == .h264 ? .h264 : .hevc, $0.streamType) }
        guard next?.0 != video?.pid || next?.1 != video?.codec else { return }
        endPES()
        if let unit { submit(unit) }
        unit = nil
        pes = nil
        video = next.map { (pid: $0.0, codec: $0.1, type: $0.2) }
        decoder = nil
        resync = .start
        lastDTS = nil
        guard let video else { return }
        do {
            decoder = try VideoDecoder(codec: video.codec, fastHealthCheck: fast)
        } catch {
            record(error)
        }
    }

    /// The PES in progress is complete: it starts an access unit (time stamps) or continues one.
    private func endPES() {
        guard let bytes = pes else { return }
        pes = nil
        guard case .header(let header) = PESHeader.parse(bytes[...]), header.headerLength <= bytes.count else {
            // Not a PES start (a lost first packet, garbage): whatever it carried is damage.
            if unit != nil { unit?.damaged = true }
            return
        }
        let truncated = header.packetLength != 0 && bytes.count < header.packetLength + 6
        let damaged = pesDamaged || truncated
        let payload = bytes[header.headerLength...]
        let lossBefore = pesLossBefore
        pesLossBefore = nil
        if let dts = header.dts ?? header.pts {
            if let unit { submit(unit) }
            unit = Unit(dts: dts, bytes: Array(payload), damaged: damaged, lossBefore: lossBefore)
        } else if unit != nil {
            // A continuation of the access unit; input lost before it means a part is missing.
            unit?.bytes.append(contentsOf: payload)
            if damaged || lossBefore != nil { unit?.damaged = true }
        } else {
            unit = Unit(dts: nil, bytes: Array(payload), damaged: damaged, lossBefore: lossBefore)
        }
    }

    // MARK: Access units

    private func submit(_ unit: Unit) {
        guard let video, let decoder else { return }
        counters.accessUnits += 1
        serial += 1
        countMissing(before: unit.dts, loss: unit.lossBefore)
        if let waiting = resync {
            guard !unit.damaged, isKeyframe(unit.bytes, video.type) else {
                switch waiting {
                case .start: counters.beforeFirstKeyframe += 1
                case .damaged: counters.missingReference += 1
                case .skipped: counters.skipped += 1
                }
                return
            }
            resync = nil
        }
        if unit.damaged {
            counters.damaged += 1
            dropped.insert(serial)
        }
        do {
            account(try decoder.check(unit.bytes, serial: serial))
        } catch {
            record(error)
            counters.decodeErrors += 1
            if !unit.damaged {
                counters.damaged += 1
                dropped.insert(serial)
            }
        }
        if dropped.contains(serial) { resync = .damaged }
        if dropped.count > 256 { dropped = dropped.filter { $0 > serial - 128 } }
    }

    /// Access units missing between the last one and one with `dts` after a loss, from the DTS
    /// step; with no loss the step is the frame interval.
    private func countMissing(before dts: Int64?, loss: Loss?) {
        guard let dts else { return }
        defer { lastDTS = dts }
        guard let last = lastDTS else { return }
        // Signed distance modulo 2^33 (the PES clock wraps after ~26.5 hours).
        var delta = (dts - last) & ((1 << 33) - 1)
        if delta >= 1 << 32 { delta -= 1 << 33 }
        guard let loss else {
            if delta > 0 && delta <= MediaClock.ticksPerSecond / 5 { frameTicks = delta }
            return
        }
        // A jump over 2 s or backwards is a restart, not a loss: nothing to count.
        guard delta > 0 && delta <= 2 * MediaClock.ticksPerSecond else { return }
        let missing = max(0, Int((Double(delta) / Double(frameTicks)).rounded()) - 1)
        guard missing > 0 else { return }
        switch loss {
        case .transport: counters.lost += missing
        case .skipped: counters.skipped += missing
        }
        if resync == nil { resync = loss == .skipped ? .skipped : .damaged }
    }

    private func account(_ result: VideoDecoder.CheckResult) {
        counters.picturesDecoded += result.pictures.count
        for serial in result.damaged {
            counters.decodeErrors += 1
            if !dropped.contains(serial) {
                counters.damaged += 1
                dropped.insert(serial)
                resync = resync ?? .damaged
            }
        }
    }

    /// IDR/IRAP by the core's NAL scan; libavcodec's parser only for H.264 access units with SEI
    /// (a recovery point is an SEI message), so the common case costs no parser.
    private func isKeyframe(_ bytes: [UInt8], _ type: StreamType) -> Bool {
        let types = NALUnitKeyframeDetector.nalUnitTypes(bytes[...], hevc: type == .hevc)
        if type == .hevc { return types.contains { (16...21).contains($0) } }
        if types.contains(5) { return true }
        return types.contains(6) && keyframes.isKeyframe(bytes[...], streamType: type)
    }

    private func record(_ error: Error) {
        // Damaged input can fail every access unit: keep the first error of a kind, not a string per failure.
        if let error = error as? MediaCodecError {
            if lastError?.code != error.code || lastError?.operation != error.operation { lastError = error }
        } else if lastError == nil {
            lastError = MediaCodecError(operation: "video health", code: -1, detail: "\(error)")
        }
    }
}
