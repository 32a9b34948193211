/// Samples for CMAF packaging (`SegmenterConfiguration.collectsSamples`): each placed access
/// unit of the timing stream, and the other streams' PES packets on the same timeline. The
/// segmenter stays the one authority on what is listed: what it drops, no packager sees.
extension Segmenter {
    /// Other streams' PES packets held at most (about 10 s of audio in PES of 3 frames).
    static let companionLimit = 512

    /// A complete PES of another stream: its PTS unwrapped against the timing stream's last DTS.
    mutating func companionArrived(_ pes: PESPacket) {
        guard pes.complete, pes.streamType.kind == .audio, let pts = pes.pts, let lastRaw = lastRawDTS else { return }
        companions.append(CompanionPES(pid: pes.pid, streamType: pes.streamType,
                                       presentationTicks: lastUnwrappedDTS + Self.signedDelta(pts, from: lastRaw),
                                       payload: pes.payload))
        if companions.count > Self.companionLimit {
            companions.removeFirst(companions.count - Self.companionLimit)
            statistics.companionPESDropped += 1
        }
    }

    /// An audio PES began: keep its first payload bytes, so a packager knows the stream's
    /// configuration from the first packet rather than when the whole PES has arrived.
    mutating func audioPESStarted(_ packet: TSPacket) {
        guard case .header(let header) = PESHeader.parse(packet.payload),
              let head = packet.payload.bytes(at: header.headerLength, length: min(16, packet.payload.count - header.headerLength)) else { return }
        audioHeads[packet.pid] = Array(head)
    }

    /// After a resynchronisation at `dts` (restart, damage, hole): packets before it belong to
    /// media no part lists, and packets far after it to an old time base.
    mutating func dropCompanions(outside dts: Int64) {
        let before = companions.count
        let latest = dts + configuration.timestampJumpTicks
        companions.removeAll { $0.presentationTicks < dts || $0.presentationTicks > latest }
        statistics.companionPESDropped += before - companions.count
    }

    /// The access unit just placed in the open part.
    mutating func place(_ pes: PESPacket, dts: Int64, duration: Int64, keyframe: Bool) {
        let offset = pes.header.dts != nil ? pes.pts.map { Self.signedDelta($0, from: pes.header.dts!) } ?? 0 : 0
        partSamples.accessUnits.append(PlacedAccessUnit(streamType: pes.streamType, decodeTicks: dts,
                                                        compositionOffsetTicks: offset, durationTicks: duration,
                                                        keyframe: keyframe, payload: pes.payload))
    }

    /// `value − reference` modulo 2^33 as a signed distance (PTS/DTS wrap after ~26.5 h).
    static func signedDelta(_ value: Int64, from reference: Int64) -> Int64 {
        var delta = (value - reference) & 0x1_FFFF_FFFF
        if delta >= 0x1_0000_0000 { delta -= 0x2_0000_0000 }
        return delta
    }
}
