/// One channel's receive path: RTP parse, sequence and jitter accounting, the recovery stage,
/// then TS split and continuity checking (video) or whole-datagram messages (data).
/// Counters land in a `ChannelStats` the pipeline keeps by channel id.
struct ChannelReceiver: Sendable {
    let id: String
    let kind: ChannelKind
    let rtp: Bool
    let source: IPAddress?
    let fec: FECParameters
    var sequence = SequenceTracker()
    var jitter = JitterEstimator()
    var continuity = ContinuityTracker()
    /// Plain-UDP video: whole TS packets from datagrams that may cut them (FFmpeg's defaults).
    var aligner = TSStreamAligner()
    /// A failover pair's second path: its own byte stream, aligned on its own.
    var secondaryAligner = TSStreamAligner()
    var recovery: any RecoveryStage
    let programs: ProgramSelection
    let secondPath: SecondPath?
    /// ST 2022-7: merges the channel's two paths (nil with one path).
    var merger: SeamlessMerger?
    /// The two paths are merged as TS, not by RTP sequence: plain UDP, or a path over SRT (TS
    /// without RTP). The output takes one path and fails over on silence (not hitless); an RTP
    /// path's payloads are taken as TS and its loss found from continuity counters.
    let failover: Bool
    /// Video: splits a multi-program stream (nil when the configuration keeps the mux whole).
    var splitter: ProgramSplitter?
    /// The splitter wants every batch (it splits, or waits to decide by time); otherwise only
    /// batches with a PAT or SDT packet reach it. A stored flag: one load per datagram.
    var splitterEngaged = false
    /// The channel id of each split program, set by the pipeline when it lists them.
    var programChannels: [UInt16: String] = [:]
    /// Something for the pipeline to look at: the split programs changed, or the merge has
    /// path events. A stored flag, so the per-datagram check is one load.
    var notices = false
    /// The recovery stage's outputs for one media packet, reused (emptied after each packet).
    private var scratch: [RecoveryOutput] = []

    init(channel: Channel, recovery: any RecoveryStage) {
        id = channel.id
        kind = channel.kind
        rtp = channel.rtp
        source = channel.source
        fec = channel.fec
        programs = channel.programs
        secondPath = channel.kind == .video ? channel.secondPath : nil
        let failover = secondPath != nil && (!channel.rtp || secondPath?.srt != nil)
        self.failover = failover
        merger = secondPath.map { SeamlessMerger(configuration: .init(silenceNanoseconds: $0.silenceNanoseconds), rtp: !failover) }
        splitter = channel.kind == .video && channel.programs != .whole ? ProgramSplitter(selection: channel.programs) : nil
        self.recovery = recovery
    }


    /// A datagram on the channel's media port (of `path`, for a channel with two).
    mutating func media(_ datagram: Datagram, path: SeamlessMerger.Path = .primary, stats: inout ChannelStats,
                        into actions: inout [IngestAction]) {
        stats.packetsReceived += 1
        stats.bytesReceived += datagram.payload.count
        let expected = path == .primary ? source : secondPath?.endpoint?.source
        if let expected, datagram.source.address != expected {
            stats.unexpectedSource += 1
            return
        }
        let time = datagram.timestampNanoseconds
        // File channels (FLUTE): the whole payload goes to the file receiver (docs/files.md).
        guard kind != .file else {
            actions.append(.fileDatagram(channelID: id, payload: datagram.payload, timestampNanoseconds: time))
            return
        }
        guard rtp else {
            // Plain UDP: a data channel's payload is the message; a video channel's is whole TS
            // packets, its loss seen in their continuity counters (no sequence number, no FEC).
            if kind == .video {
                guard failoverForwards(path, at: time) else { return }
                plainTS(datagram.payload, path: path, time: time, stats: &stats, into: &actions)
            } else {
                deliverData(datagram.payload, time: time, stats: &stats, into: &actions)
            }
            return
        }
        let packet: RTPPacket
        switch RTPPacket.parse(datagram.payload) {
        case .failure(let reason):
            stats.drop(reason)
            return
        case .success(let parsed):
            packet = parsed
        }
        if failover {
            // Paired with a path over SRT: RTP is only a wrapper here; the TS inside is what the
            // other path carries, merged by silence (sequence numbers exist on one side only).
            guard failoverForwards(path, at: time) else { return }
            plainTS(packet.payload, path: path, time: time, stats: &stats, into: &actions)
            return
        }
        if merger != nil {
            let decision = merger?.receive(ssrc: packet.ssrc, sequence: packet.sequenceNumber, payload: packet.payload, from: path, at: time)
            if merger?.hasEvents == true { notices = true }
            guard decision == .forward else { return }
        }
        let (outcome, _) = sequence.record(packet.sequenceNumber)
        switch outcome {
        case .duplicate, .jump:
            return
        case .first, .inOrder, .late, .restart:
            jitter.record(rtpTimestamp: packet.timestamp, arrivalNanoseconds: time)
        }
        if kind == .video {
            recovery.media(packet, outcome: outcome, arrivalNanoseconds: time, into: &scratch)
            handle(scratch, stats: &stats, into: &actions)
            scratch.removeAll(keepingCapacity: true)
        } else {
            // Data channels deliver every accepted datagram, late ones too: messages are whole.
            deliverData(packet.payload, time: time, stats: &stats, into: &actions)
        }
    }

    /// Whether `stream` applies to `path`: video without RTP (an SRT channel's receiver), or the
    /// second path of a channel whose secondary is over SRT.
    func takesStream(_ path: SeamlessMerger.Path) -> Bool {
        switch path {
        case .primary: kind == .video && !rtp
        case .secondary: kind == .video && merger != nil && secondPath?.srt != nil
        }
    }

    /// One chunk of a channel fed by a stream transport rather than multicast (an SRT message,
    /// normally 7 × 188 bytes): TS without RTP, handled as a plain-UDP video datagram (of `path`
    /// for a channel with two).
    mutating func stream(_ payload: ArraySlice<UInt8>, path: SeamlessMerger.Path = .primary, time: Int64, stats: inout ChannelStats,
                         into actions: inout [IngestAction]) {
        stats.packetsReceived += 1
        stats.bytesReceived += payload.count
        guard failoverForwards(path, at: time) else { return }
        plainTS(payload, path: path, time: time, stats: &stats, into: &actions)
    }

    /// A failover pair (or a single path: always true): whether `path`'s TS goes on now.
    private mutating func failoverForwards(_ path: SeamlessMerger.Path, at time: Int64) -> Bool {
        guard merger != nil else { return true }
        let decision = merger?.receiveDatagram(from: path, at: time)
        if merger?.hasEvents == true { notices = true }
        return decision == .forward
    }

    /// Whole TS packets out of a payload that may cut them (FFmpeg's defaults), loss found from
    /// their continuity counters. Each path of a failover pair has its own aligner.
    private mutating func plainTS(_ payload: ArraySlice<UInt8>, path: SeamlessMerger.Path = .primary, time: Int64,
                                  stats: inout ChannelStats, into actions: inout [IngestAction]) {
        if payload.count != 7 * TSPacket.size { stats.oddSizedDatagrams += 1 }
        let packets: ArraySlice<UInt8>
        if path == .secondary {
            let skipped = secondaryAligner.skippedBytes
            packets = secondaryAligner.packets(payload)
            if secondaryAligner.skippedBytes != skipped { stats.drop(.tsLostSync) }
        } else {
            let skipped = aligner.skippedBytes
            packets = aligner.packets(payload)
            if aligner.skippedBytes != skipped { stats.drop(.tsLostSync) }
        }
        demux(packets, time: time, plainUDP: true, stats: &stats, into: &actions)
    }

    /// A datagram on one of the channel's FEC repair ports.
    mutating func repair(_ datagram: Datagram, stats: inout ChannelStats, into actions: inout [IngestAction]) {
        if let source, datagram.source.address != source {
            stats.unexpectedSource += 1
            return
        }
        let outputs = recovery.repair(port: datagram.destination.port, payload: datagram.payload,
                                      arrivalNanoseconds: datagram.timestampNanoseconds)
        handle(outputs, stats: &stats, into: &actions)
    }

    mutating func tick(now: Int64, stats: inout ChannelStats, into actions: inout [IngestAction]) {
        let outputs = recovery.tick(nowNanoseconds: now)
        handle(outputs, stats: &stats, into: &actions)
        splitter?.tick(at: now)
        if splitter != nil { splitterEngaged = splitter?.wantsEveryBatch == true }
        merger?.tick(now: now)
        if splitter?.changed == true || merger?.hasEvents == true { notices = true }
    }

    /// The channel goes away: the recovery stage hands on what it holds (docs/fec.md).
    mutating func finish(now: Int64, stats: inout ChannelStats, into actions: inout [IngestAction]) {
        let outputs = recovery.finish(nowNanoseconds: now)
        handle(outputs, stats: &stats, into: &actions)
    }

    /// Copies the sequence, jitter and recovery counters into `stats`, on top of what earlier
    /// receivers of the same channel id counted (`ChannelStats.carry`).
    func snapshot(into stats: inout ChannelStats) {
        stats.sequenceLost = stats.carried.lost + sequence.lost
        stats.sequenceReordered = stats.carried.reordered + sequence.reordered
        stats.sequenceDuplicates = stats.carried.duplicates + sequence.duplicates
        stats.sequenceRestarts = stats.carried.restarts + sequence.restarts
        stats.jitterTimestampUnits = Int(jitter.reportedJitter)
        stats.jitterMicroseconds = Int(jitter.jitterSeconds * 1_000_000)
        var recovery = stats.carried.recovery
        for (name, value) in self.recovery.counters { recovery[name, default: 0] += value }
        stats.recoveryCounters = recovery.keys.sorted().map { ($0, recovery[$0] ?? 0) }
        if let merger { stats.pathCounters = Self.pathFields(merger) }
    }

    /// The merge's counters: `paths_down_current` and `path_refused_current` (levels), then per path (docs/ingest.md, "Two paths").
    static func pathFields(_ merger: SeamlessMerger) -> [(name: String, value: Int)] {
        var fields = [("paths_down_current", merger.pathsDown), ("path_refused_current", merger.refusal == nil ? 0 : 1)]
        for path in SeamlessMerger.Path.allCases {
            let counter = merger.counters[path.rawValue]
            fields += [("path_\(path)_packets", counter.packets), ("path_\(path)_duplicates", counter.duplicates),
                       ("path_\(path)_dropped", counter.dropped), ("path_\(path)_down_events", counter.downEvents)]
        }
        return fields
    }

    private mutating func handle(_ outputs: [RecoveryOutput], stats: inout ChannelStats, into actions: inout [IngestAction]) {
        for output in outputs {
            switch output {
            case .lost(let count, let time):
                gap(count, time: time, stats: &stats, into: &actions)
            case .packet(let payload, let time, let recovered):
                if recovered { stats.recoveredPackets += 1 }
                demux(payload, time: time, stats: &stats, into: &actions)
            }
        }
    }

    private func deliverData(_ payload: ArraySlice<UInt8>, time: Int64, stats: inout ChannelStats, into actions: inout [IngestAction]) {
        stats.dataMessages += 1
        stats.bytesWritten += payload.count
        actions.append(.dataMessage(channelID: id, payload: payload, timestampNanoseconds: time))
    }

    /// Splits an RTP payload into 188-byte TS packets (RFC 2250: normally 7), drops malformed
    /// packets and continuity duplicates, counts discontinuities, and hands on the rest.
    /// `plainUDP` (the datagram was already counted and aligned, and nothing else can find loss):
    /// the packets a continuity jump says are missing (ISO/IEC 13818-1 §2.4.3.3, modulo 16 per
    /// PID) go out as a gap before this datagram.
    private mutating func demux(_ payload: ArraySlice<UInt8>, time: Int64, plainUDP: Bool = false,
                                stats: inout ChannelStats, into actions: inout [IngestAction]) {
        let size = TSPacket.size
        let whole = payload.count / size
        let trailing = payload.count % size
        if !plainUDP, whole != 7 || trailing != 0 { stats.oddSizedDatagrams += 1 }
        if trailing != 0 { stats.drop(.tsBadLength) }
        let start = payload.startIndex
        var missing = 0
        var tables = false   // a PAT or SDT packet is in the datagram (the splitter reads those)
        var kept: [UInt8]? = nil   // nil while every packet so far is kept (then no copy is made)
        // Headers are read in place: no per-packet slices or `TSPacket` values on this hot path
        // (docs/performance.md).
        payload.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            for index in 0..<whole {
                let chunk = base + index * size
                var keep = true
                switch TSPacket.Header.parse(chunk) {
                case .failure(let reason):
                    stats.drop(reason)
                    keep = false
                case .success(let header):
                    if header.pid == 0 || header.pid == ServiceDescriptionTable.pid { tables = true }
                    switch continuity.record(pid: header.pid, counter: header.continuityCounter, hasPayload: header.hasPayload,
                                             discontinuityIndicator: header.discontinuityIndicator) {
                    case .duplicate:
                        stats.tsDuplicatesDropped += 1
                        keep = false
                    case .discontinuity(let expected, let received):
                        stats.tsDiscontinuities += 1
                        missing += Int((received &- expected) & 0x0F)
                    case .ok, .ignored:
                        break
                    }
                }
                if !keep, kept == nil {
                    kept = Array(UnsafeBufferPointer(start: base, count: index * size))
                } else if keep, kept != nil {
                    kept?.append(contentsOf: UnsafeBufferPointer(start: chunk, count: size))
                }
            }
        }
        if plainUDP, missing > 0 { gap(missing, time: time, stats: &stats, into: &actions) }
        let packets: ArraySlice<UInt8> = kept.map { $0[...] } ?? payload[start..<(start + whole * size)]
        guard !packets.isEmpty else { return }
        stats.tsPackets += packets.count / size
        stats.bytesWritten += packets.count
        var programs: [(program: UInt16, packets: [UInt8])]? = nil
        if splitterEngaged || tables, splitter != nil {
            programs = splitter?.split(packets, at: time)
            splitterEngaged = splitter?.wantsEveryBatch == true
            if splitter?.changed == true { notices = true }
        }
        if let programs {
            for (number, bytes) in programs {
                guard let channel = programChannels[number] else { continue }
                actions.append(.transportStream(channelID: channel, packets: bytes[...], timestampNanoseconds: time))
            }
            return
        }
        actions.append(.transportStream(channelID: id, packets: packets, timestampNanoseconds: time))
    }

    /// Packets lost for good: the gap goes to the channel, or to every program split out of it
    /// (loss in a multiplex cannot be told apart by program).
    private mutating func gap(_ count: Int, time: Int64, stats: inout ChannelStats, into actions: inout [IngestAction]) {
        stats.gaps += 1
        stats.gapPackets += count
        guard splitter?.isSplit == true else {
            actions.append(.gap(channelID: id, lostPackets: count, timestampNanoseconds: time))
            return
        }
        self.splitter?.markGap()
        for channel in programChannels.keys.sorted().compactMap({ programChannels[$0] }) {
            actions.append(.gap(channelID: channel, lostPackets: count, timestampNanoseconds: time))
        }
    }
}
